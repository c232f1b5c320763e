"""Resolution rules (docs/design.md, "The layers of a pod"), one case each: magic
container names across layers, scheduling-only roles, limits below requests,
defaultResources, resourceTolerations and the interruptible layer."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from podtemplate import (
    Platform,
    PodTemplate,
    PodTemplateError,
    Resources,
    Role,
    RoleSpec,
    Task,
    render,
    resolve_pod,
    task,
)
from podtemplate.dispatch import define_roles
from podtemplate.policy import Policy
from podtemplate.render import make_context
from podtemplate.testing import container

Templates = Callable[[dict[str, str]], Path]
IMAGE = "python:3.11"


def cluster_template(templates_dir: Templates, spec: dict[str, Any], name: str = "base") -> Path:
    """A folder holding one cluster template ``name`` with pod spec ``spec``."""
    body = {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": name},
            "template": {"spec": spec}}
    return templates_dir({f"{name}.yaml": json.dumps(body)})


def resolve(job: Task, platform: Platform, role: RoleSpec | None = None,
            override: PodTemplate | None = None) -> tuple[dict[str, Any], list[str]]:
    """The pod of ``role`` (else the task's one role) and the render's warnings."""
    context = make_context(platform=platform, override=override)
    if role is None:
        (role,) = define_roles(job, context)
    pod = resolve_pod(job, role, context)
    return pod, [w.message for w in context.warnings]


def names(pod: dict[str, Any]) -> list[str]:
    return [c["name"] for c in pod["spec"]["containers"]]


def helper_role(**fields: Any) -> RoleSpec:
    """A role with its own operator layer, as a plugin declares one."""
    return RoleSpec(name="helper", template_path="", operator_layer={
        "spec": {"containers": [{"name": "primary", "image": "helper:1"}]}}, **fields)


# ------------------------------------------------------------ a deleted sidecar stays deleted

LOGGED = {"containers": [{"name": "log", "image": "fluent:1"}]}
NO_LOG = PodTemplate({"containers": [{"name": "log", "$patch": "delete"}]})
DEFAULT_ENTRY = {"name": "default", "securityContext": {"runAsNonRoot": True}}
ENFORCE_DEFAULT = Policy(enforce={"containers": [DEFAULT_ENTRY]})


def logged_then_deleted(templates_dir: Templates, policy: Policy | None = None
                        ) -> tuple[Task, Platform]:
    """A task whose cluster template gives the ``log`` sidecar and whose own template
    deletes it, and its platform (the deletion sits in a layer above the sidecar's:
    ``with_overrides(pod_template=)`` would replace the task's template instead)."""
    folder = cluster_template(templates_dir, LOGGED, name="logged")
    job = task(image="app:1", pod_template_name="logged", pod_template=NO_LOG)(lambda: None)
    platform = Platform(templates=folder, defaultImage=IMAGE,
                        **({"policy": policy} if policy else {}))
    return job, platform


def test_a_policy_default_entry_does_not_bring_back_a_deleted_sidecar(
        templates_dir: Templates) -> None:
    job, platform = logged_then_deleted(templates_dir, ENFORCE_DEFAULT)
    pod, _ = resolve(job, platform)
    assert names(pod) == ["primary"]
    assert pod["spec"]["containers"][0]["securityContext"] == {"runAsNonRoot": True}
    (manifest,) = render(job, platform=platform)
    assert names(manifest) == ["primary"]


def test_a_default_entry_of_the_run_override_does_not_bring_back_a_deleted_sidecar(
        templates_dir: Templates) -> None:
    job, platform = logged_then_deleted(templates_dir)
    override = PodTemplate({"containers": [DEFAULT_ENTRY]})
    pod, _ = resolve(job, platform, override=override)
    assert names(pod) == ["primary"]


def test_a_sidecar_deleted_and_given_again_higher_up_gets_the_policy_default_entry(
        templates_dir: Templates) -> None:
    job, platform = logged_then_deleted(templates_dir, ENFORCE_DEFAULT)
    again = PodTemplate({"containers": [{"name": "log", "image": "fluent:2"}]})
    pod, _ = resolve(job, platform, override=again)
    assert names(pod) == ["primary", "log"]
    assert container(pod, "log") == {"name": "log", "image": "fluent:2",
                                     "securityContext": {"runAsNonRoot": True}}


def test_a_delete_entry_of_a_sidecar_nothing_gave_adds_no_container() -> None:
    job = task(image="app:1", pod_template=NO_LOG)(lambda: None)
    pod, _ = resolve(job, Platform(defaultImage=IMAGE),
                     override=PodTemplate({"containers": [DEFAULT_ENTRY]}))
    assert names(pod) == ["primary"]


def test_a_list_replace_marker_names_no_container() -> None:
    """``[{"$patch": "replace"}]`` empties the containers it inherits and gives none: the
    marker has no name, so a higher ``default`` entry makes no nameless container of it
    (found by hypothesis in test_composed_layers: a KeyError on the plain fold)."""
    emptied = PodTemplate({"containers": [{"$patch": "replace"}]})
    job = task(image="app:1", pod_template=emptied)(lambda: None)
    for provenance in (None, {}):
        context = make_context(platform=Platform(defaultImage=IMAGE),
                               override=PodTemplate({"containers": [DEFAULT_ENTRY]}))
        (role,) = define_roles(job, context)
        pod = resolve_pod(job, role, context, provenance=provenance)
        assert names(pod) == ["primary"]
        assert pod["spec"]["containers"][0]["securityContext"] == {"runAsNonRoot": True}


# ------------------------------------------------------------------------ scheduling-only roles


def test_a_scheduling_role_takes_no_resources_from_the_template_default_entry(
        templates_dir: Templates) -> None:
    folder = cluster_template(templates_dir, {"nodeSelector": {"pool": "gpu"}, "containers": [
        {"name": "default", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]})
    job = task(pod_template_name="base")(lambda: None)
    pod, _ = resolve(job, Platform(templates=folder, defaultImage=IMAGE),
                     role=helper_role(inherit="scheduling"))
    assert pod["spec"]["nodeSelector"] == {"pool": "gpu"}
    assert "resources" not in container(pod, "primary")
    worker, _ = resolve(job, Platform(templates=folder, defaultImage=IMAGE), role=helper_role())
    # the request is the limit, as on Flyte and the API server (resolve/resources.py)
    assert container(worker, "primary")["resources"] == {"limits": {"nvidia.com/gpu": "1"},
                                                         "requests": {"nvidia.com/gpu": "1"}}


def test_a_scheduling_role_takes_the_labels_but_not_the_settings_of_the_task() -> None:
    template = PodTemplate({"tolerations": [{"key": "spot", "operator": "Exists"}]},
                           labels={"team": "ml"}, annotations={"owner": "ada"})
    job = task(pod_template=template, image="app:1", env={"A": "1"},
               requests=Resources(cpu="4"))(lambda: None)
    pod, _ = resolve(job, Platform(defaultImage=IMAGE), role=helper_role(inherit="scheduling"))
    assert pod["metadata"]["labels"]["team"] == "ml"
    assert pod["metadata"]["annotations"]["owner"] == "ada"
    assert pod["spec"]["tolerations"] == [{"key": "spot", "operator": "Exists"}]
    assert container(pod, "primary") == {"name": "primary", "image": "helper:1"}


# ---------------------------------------------------------------------- requests and limits


def test_a_gpu_limit_alone_is_mirrored_to_the_request() -> None:
    job = task(image="app:1", limits=Resources(gpu=1))(lambda: None)
    pod, _ = resolve(job, Platform(defaultImage=IMAGE))
    assert container(pod, "primary")["resources"] == {
        "requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "1"}}


def test_a_gpu_limit_of_the_task_is_its_request_over_a_templates_request(
        templates_dir: Templates) -> None:
    # The task's GPU limit is mirrored in its own layer, so it also replaces the
    # template's GPU request (Flyte's rule alone would keep the template's 2 under a
    # limit of 1, which the API server refuses for an extended resource).
    folder = cluster_template(templates_dir, {"containers": [
        {"name": "primary", "resources": {"requests": {"nvidia.com/gpu": "2"}}}]})
    job = task(pod_template_name="base", image="app:1", limits=Resources(gpu=1))(lambda: None)
    pod, _ = resolve(job, Platform(templates=folder, defaultImage=IMAGE))
    assert container(pod, "primary")["resources"] == {
        "requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "1"}}


def test_a_request_above_the_limit_of_its_own_layer_is_refused() -> None:
    job = task(image="app:1", requests=Resources(cpu="2"), limits=Resources(cpu="1"))(
        lambda: None)
    with pytest.raises(PodTemplateError, match="limit"):
        render(job, platform=Platform(defaultImage=IMAGE))


def test_quantities_are_compared_by_value_not_as_text(templates_dir: Templates) -> None:
    folder = cluster_template(templates_dir, {"containers": [
        {"name": "primary", "resources": {"limits": {"memory": "1Gi", "cpu": "1"}}}]})
    job = task(pod_template_name="base", image="app:1",
               requests=Resources(memory="512Mi", cpu="500m"))(lambda: None)
    pod, warnings = resolve(job, Platform(templates=folder, defaultImage=IMAGE))
    assert container(pod, "primary")["resources"]["limits"] == {"memory": "1Gi", "cpu": "1"}
    assert warnings == []


def test_a_limit_given_by_the_template_default_entry_rises_to_a_higher_request(
        templates_dir: Templates) -> None:
    folder = cluster_template(templates_dir, {"containers": [
        {"name": "default", "resources": {"limits": {"cpu": "1"}}}]})
    job = task(pod_template_name="base", image="app:1", requests=Resources(cpu="2"))(
        lambda: None)
    pod, warnings = resolve(job, Platform(templates=folder, defaultImage=IMAGE))
    assert container(pod, "primary")["resources"] == {
        "requests": {"cpu": "2"}, "limits": {"cpu": "2"}}
    assert len(warnings) == 1 and "cluster template" in warnings[0]


def test_the_highest_layer_setting_a_request_decides_whether_the_limit_rises(
        templates_dir: Templates) -> None:
    folder = cluster_template(templates_dir, {"containers": [
        {"name": "primary", "resources": {"requests": {"cpu": "500m"}, "limits": {"cpu": "1"}}}]})
    job = task(pod_template_name="base", image="app:1", requests=Resources(cpu="2"))(
        lambda: None)
    pod, warnings = resolve(job, Platform(templates=folder, defaultImage=IMAGE))
    assert container(pod, "primary")["resources"]["limits"] == {"cpu": "2"}
    assert len(warnings) == 1 and "task settings" in warnings[0]


def test_a_raised_limit_reaches_neither_the_template_nor_another_task(
        templates_dir: Templates) -> None:
    folder = cluster_template(templates_dir, {"containers": [
        {"name": "primary", "resources": {"limits": {"cpu": "1"}}}]})
    platform = Platform(templates=folder, defaultImage=IMAGE)
    big = task(name="big", pod_template_name="base", image="app:1",
               requests=Resources(cpu="2"))(lambda: None)
    small = task(name="small", pod_template_name="base", image="app:1")(lambda: None)
    for _ in range(3):
        rendered = render([big, small], platform=platform)
        limits = [m["spec"]["containers"][0]["resources"]["limits"] for m in rendered]
        assert limits == [{"cpu": "2"}, {"cpu": "1"}]


def test_a_limit_alone_is_the_request_and_the_platform_limit_is_a_cap() -> None:
    """As Flyte's backend (flytek8s.AdjustOrDefaultResource): an unset request is the
    limit (not the default), an unset limit the request, and defaultResources.limits
    lowers both to it, here with a warning."""
    platform = Platform(defaultImage=IMAGE, defaultResources={
        "requests": {"memory": "2Gi"}, "limits": {"cpu": "1"}})
    job = task(image="app:1", requests=Resources(cpu="3"), limits=Resources(memory="1Gi"))(
        lambda: None)
    pod, warnings = resolve(job, platform)
    assert container(pod, "primary")["resources"] == {
        "requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"memory": "1Gi", "cpu": "1"}}
    assert any("cpu request 3 is above the platform's cap 1" in str(w) for w in warnings)


# ------------------------------------------------------------------ resourceTolerations


@pytest.mark.parametrize("resources", [
    {"init": {"requests": {"example.com/fpga": "1"}, "limits": {"example.com/fpga": "1"}}},
    {"primary": {"limits": {"example.com/fpga": "1"}}},
], ids=["init-container", "limit-only"])
def test_each_requested_or_limited_resource_brings_its_tolerations(
        resources: dict[str, dict[str, Any]]) -> None:
    spec: dict[str, Any] = {"containers": [{"name": "primary",
                                            "resources": resources.get("primary", {})}]}
    if "init" in resources:
        spec["initContainers"] = [{"name": "warm", "image": "busybox:1",
                                   "resources": resources["init"]}]
    toleration = {"key": "fpga", "operator": "Exists", "effect": "NoSchedule"}
    platform = Platform(defaultImage=IMAGE,
                        resourceTolerations={"example.com/fpga": [toleration]})
    pod, _ = resolve(task(image="app:1", pod_template=PodTemplate(spec))(lambda: None), platform)
    assert pod["spec"]["tolerations"] == [toleration]


# ------------------------------------------------------------------ the interruptible layer

SPOT = {"nodeSelector": {"pool": "spot"}}


@pytest.mark.parametrize(("task_flag", "role", "fields", "on_spot"), [
    (True, None, {}, True),
    (True, Role(interruptible=False), {}, False),
    (True, None, {"task_interruptible": False}, False),
    (True, Role(interruptible=True), {"task_interruptible": False}, True),
    (False, Role(interruptible=True), {}, True),
    (True, Role(), {"interruptible": False}, False),
])
def test_the_interruptible_layer_follows_role_then_task(
        task_flag: bool, role: Role | None, fields: dict[str, Any], on_spot: bool) -> None:
    job = task(image="app:1", interruptible=task_flag)(lambda: None)
    spec = helper_role(role=role, **fields)
    pod, _ = resolve(job, Platform(defaultImage=IMAGE, interruptible=SPOT), role=spec)
    assert (pod["spec"].get("nodeSelector") == SPOT["nodeSelector"]) is on_spot


# ------------------------------------------------------------------------ templates stay


def test_templates_are_unchanged_by_renders() -> None:
    template = PodTemplate({"containers": [{"name": "primary", "env": [{"name": "A",
                                                                        "value": "1"}]}]})
    before = copy.deepcopy(template.pod_spec)
    job = task(image="app:1", pod_template=template, env={"A": "2"})(lambda: None)
    for _ in range(3):
        (manifest,) = render(job, platform=Platform(defaultImage=IMAGE))
        assert manifest["spec"]["containers"][0]["env"] == [{"name": "A", "value": "2"}]
    assert template.pod_spec == before


# --------------------------------------------------------- a request above its limit, by layer

def test_a_request_above_a_higher_layers_limit_names_the_layer_of_each_value() -> None:
    """The task template requests 4Gi, the run override limits the container to 1Gi: the
    error names where each of the two values came from (the fold run again with provenance
    on this error path only)."""
    asks = PodTemplate({"containers": [{"name": "primary",
                                        "resources": {"requests": {"memory": "4Gi"}}}]})
    caps = PodTemplate({"containers": [{"name": "primary",
                                        "resources": {"limits": {"memory": "1Gi"}}}]})
    job = task(image="app:1", pod_template=asks)(lambda: None)
    with pytest.raises(PodTemplateError) as raised:
        render(job, override=caps)
    text = str(raised.value)
    assert "spec.containers[primary].resources.requests.memory" in text
    assert "the request is set by the task template, the limit by the run override" in text

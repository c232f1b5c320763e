"""Ownership at every boundary: the pods a build is handed are the plugin's, and what
``render`` returns is the caller's. Changing either, everywhere, reaches no template, no
other task and no other render."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from podtemplate import (
    Platform,
    PodTemplate,
    RenderContext,
    Resources,
    RoleSpec,
    Task,
    TaskType,
    build_plugin_manager,
    pod_manifest,
    render,
)
from podtemplate.dispatch import make_sample_task, task_types
from podtemplate.plugin import TaskTypePlugin, single_pod_role
from podtemplate.testing import assert_valid_custom_resource, assert_valid_pod

MANAGER = build_plugin_manager()
TYPES = sorted(task_types(MANAGER))


def rich_template(tag: str) -> PodTemplate:
    """A template as teams write them: a sidecar, volumes, tolerations, affinity."""
    return PodTemplate({
        "volumes": [{"name": "data", "emptyDir": {"sizeLimit": "1Gi"}},
                    {"name": "config", "configMap": {"name": f"{tag}-config"}}],
        "containers": [
            {"name": "primary", "env": [{"name": "TEAM", "value": tag}],
             "volumeMounts": [{"name": "data", "mountPath": "/data"}]},
            {"name": "log-shipper", "image": "fluent/fluent-bit:3.0",
             "volumeMounts": [{"name": "data", "mountPath": "/data", "readOnly": True}]},
        ],
        "tolerations": [{"key": f"team/{tag}", "operator": "Exists", "effect": "NoSchedule"}],
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
                {"key": "zone", "operator": "In", "values": ["a"]}]}]}}},
    }, labels={"team": tag}, annotations={"owner": f"{tag}@example.com"})


def tasks() -> tuple[list[Task], list[PodTemplate]]:
    made: list[Task] = []
    templates: list[PodTemplate] = []
    for task_type in TYPES:
        own = rich_template(task_type)
        roles = {role: rich_template(f"{task_type}-{role}")
                 for role in ("master", "worker", "scheduler", "driver", "executor", "head")}
        made.append(make_sample_task(MANAGER, task_type, pod_template=own,
                                     role_templates=roles))
        templates += [own, *roles.values()]
    return made, templates


def containers_in(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from containers_in(item)
    elif isinstance(value, list):
        yield value
        for item in value:
            yield from containers_in(item)


def assert_valid(manifests: list[dict[str, Any]]) -> None:
    types = task_types(MANAGER)
    for manifest in manifests:
        if manifest["apiVersion"] == "v1":
            if manifest["kind"] == "Pod":
                assert_valid_pod(manifest)
            continue
        task_type = manifest["metadata"]["labels"]["podtemplate.io/task-type"]
        assert_valid_custom_resource(manifest, types[task_type])


def vandalize(value: Any) -> None:
    """Change every dict and list inside ``value`` (and ``value`` itself)."""
    for obj in list(containers_in(value)):
        if isinstance(obj, dict):
            obj["changed"] = True
        else:
            obj.append("changed")


def independent(values: list[Any]) -> bool:
    """No dict or list appears twice among ``values`` and what they hold."""
    ids = [id(obj) for value in values for obj in containers_in(value)]
    return len(ids) == len(set(ids))


def test_a_build_that_changes_everything_it_is_handed_changes_nothing_else() -> None:
    """For every installed task type, over three renders: the build's plugin changes
    every dict and list of the pods it was handed, and the roles list, once it has
    built its manifests. No template, no other render's output, no later render is
    affected, and the pods it was handed share nothing with each other."""
    manager = build_plugin_manager()
    made, templates = tasks()
    before = [copy.deepcopy((t.pod_spec, t.labels, t.annotations)) for t in templates]
    handed: list[bool] = []

    def after(outcome: Any, name: str, impls: Any, kwargs: dict[str, Any]) -> None:
        if name == "podtemplate_build_manifests":
            outcome.force_result(copy.deepcopy(outcome.get_result()))
            handed.append(independent(list(kwargs["pods"].values())))
            vandalize(kwargs["pods"])
            kwargs["roles"].clear()

    first = render(made, platform=Platform(), plugin_manager=manager)
    expected = json.dumps(first)
    undo = manager.add_hookcall_monitoring(lambda *_: None, after)
    try:
        for _ in range(3):
            assert json.dumps(render(made, platform=Platform(), plugin_manager=manager)) == (
                expected)
    finally:
        undo()
    assert handed == [True] * 3 * len(made)
    assert json.dumps(first) == expected
    assert [(t.pod_spec, t.labels, t.annotations) for t in templates] == before
    assert json.dumps(render(made, platform=Platform(), plugin_manager=manager)) == expected


def test_the_result_is_the_callers_and_shares_nothing() -> None:
    made, templates = tasks()
    manifests = render(made, platform=Platform(), plugin_manager=MANAGER)
    assert_valid(manifests)
    assert independent(manifests)  # not even within itself
    ids = {id(obj) for template in templates for obj in containers_in(template.pod_spec)}
    assert not ids & {id(obj) for obj in containers_in(manifests)}


def test_changing_every_value_of_a_result_never_reaches_a_template_or_a_later_render(
        ) -> None:
    made, templates = tasks()
    before = [copy.deepcopy((t.pod_spec, t.labels, t.annotations)) for t in templates]
    first = render(made, platform=Platform(), plugin_manager=MANAGER)
    expected = json.dumps(first)
    for _ in range(3):
        changed = render(made, platform=Platform(), plugin_manager=MANAGER)
        assert json.dumps(changed) == expected
        vandalize(changed)
    assert [(t.pod_spec, t.labels, t.annotations) for t in templates] == before
    assert json.dumps(first) == expected
    assert json.dumps(render(made, platform=Platform(), plugin_manager=MANAGER)) == expected


def test_the_uncopied_result_equals_the_copied_one() -> None:
    made, _ = tasks()
    copied = render(made, platform=Platform(), plugin_manager=MANAGER)
    uncopied = render(made, platform=Platform(), plugin_manager=MANAGER, copy=False)
    assert json.dumps(uncopied) == json.dumps(copied)  # key order and types too


def test_rendering_changes_no_template() -> None:
    made, templates = tasks()
    before = [copy.deepcopy((t.pod_spec, t.labels, t.annotations)) for t in templates]
    render(made, platform=Platform(), plugin_manager=MANAGER, copy=False)
    assert [(t.pod_spec, t.labels, t.annotations) for t in templates] == before


def limited_template(tag: str) -> PodTemplate:
    """:func:`rich_template` whose primary container also has limits (below the task's
    requests: the render raises them), a port and a securityContext, for the layers
    above to merge into."""
    spec = copy.deepcopy(rich_template(tag).pod_spec)
    primary = spec["containers"][0]
    primary.update(resources={"limits": {"cpu": "1", "memory": "1Gi"}},
                   ports=[{"containerPort": 9000}], securityContext={"runAsUser": 1000})
    return PodTemplate(spec, labels={"team": tag})


PLATFORMS = [
    Platform(defaultImage="python:3.11"),
    Platform.model_validate({
        "defaultImage": "python:3.11",
        "defaultResources": {"requests": {"ephemeral-storage": "1Gi"},
                             "limits": {"ephemeral-storage": "2Gi"}},
        "resourceTolerations": {"memory": [{"key": "mem", "operator": "Exists"}]},
        "policy": {"enforce": {"containers": [{
            "name": "default", "securityContext": {"allowPrivilegeEscalation": False},
            "env": [{"name": "POLICY", "value": "1"}]}]}}}),
]


def test_renders_again_under_other_platforms_and_changed_copies_change_nothing() -> None:
    """Every task type, its task's requests above its template's limits: later renders
    (which fold the task's own layers composed, from a pod kept for them) under
    platforms that fill defaultResources, add tolerations and enforce a policy, and
    changes to their results, reach no template and no other render."""
    made: list[Task] = []
    templates: list[PodTemplate] = []
    for task_type in TYPES:
        own = limited_template(task_type)
        roles = {role: rich_template(f"{task_type}-{role}")
                 for role in ("master", "worker", "scheduler", "driver", "executor", "head")}
        sample = make_sample_task(MANAGER, task_type, pod_template=own, role_templates=roles)
        made.append(sample.with_overrides(requests=Resources(cpu="2", memory="2Gi"),
                                          name=sample.name))
        templates += [own, *roles.values()]
    before = [copy.deepcopy((t.pod_spec, t.labels, t.annotations)) for t in templates]
    expected = []
    for platform in PLATFORMS:
        first = render(made, platform=platform, plugin_manager=MANAGER)
        assert_valid(first)
        expected.append(json.dumps(first))
    for _ in range(3):
        for platform, text in zip(PLATFORMS, expected, strict=True):
            copied = render(made, platform=platform, plugin_manager=MANAGER)
            assert json.dumps(copied) == text
            vandalize(copied)
    assert [(t.pod_spec, t.labels, t.annotations) for t in templates] == before


KEPT = {"pool": "batch"}  # kept by the plugin below across renders


class Keeping(TaskTypePlugin):
    """A task type whose build places an object it keeps into every pod it builds (as
    a build may place what it took from a task's config): only ``render``'s own copy
    keeps a caller's changes away from it."""

    task_type = TaskType(name="keeping", distribution="test-keeping")

    def define_roles(self, task: Task, context: RenderContext) -> list[RoleSpec]:
        return [single_pod_role("keeping")]

    def build(self, task: Task, roles: Sequence[RoleSpec], pods: Mapping[str, dict[str, Any]],
              context: RenderContext) -> list[dict[str, Any]]:
        pod = pods["pod"]
        pod["spec"]["nodeSelector"] = KEPT
        return [pod_manifest(task, pod, context)]


def test_a_caller_changing_what_a_build_keeps_changes_no_later_render() -> None:
    manager = build_plugin_manager([Keeping()], load_entry_points=False)
    task = Task(name="kept", task_type="keeping", image="busybox:1.36")
    first = render(task, platform=Platform(), plugin_manager=manager)
    expected = json.dumps(first)
    assert first[0]["spec"]["nodeSelector"] == KEPT
    for _ in range(3):
        changed = render(task, platform=Platform(), plugin_manager=manager)
        assert json.dumps(changed) == expected
        assert id(KEPT) not in {id(obj) for obj in containers_in(changed)}
        vandalize(changed)
    assert KEPT == {"pool": "batch"}
    assert json.dumps(first) == expected

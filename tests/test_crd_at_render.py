"""Custom resources are validated at render time against the CRD their task type ships:
a field the operator's schema would silently drop fails the render (or, where the role
declares it unsupported, is a warning), and so does a value the schema refuses."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from podtemplate import (
    FieldDecl,
    ManifestValidationError,
    Platform,
    PodTemplate,
    Role,
    RoleSpec,
    Task,
    TaskType,
    build_plugin_manager,
    hookimpl,
    make_context,
    object_metadata,
    render_task,
    task,
)
from podtemplate.testing.policy_kit import assert_valid_manifest
from podtemplate_dask import Dask
from podtemplate_pytorch import PyTorch
from podtemplate_ray import Ray

IMAGE = "ghcr.io/acme/train:1"
# Valid in Kubernetes 1.35, unknown to the pod schema of Training Operator 1.9.4 and
# KubeRay 1.7.0: the API server would drop it from the custom resource without a word.
WORKLOAD = {"workloadRef": {"name": "train", "podGroup": "workers"}}


def render(one: Task, manager: Any = None) -> tuple[list[dict[str, Any]], Any]:
    context = make_context(plugin_manager=manager or build_plugin_manager())
    return render_task(one, context), context


@pytest.mark.parametrize(("config", "role", "kind"), [
    (PyTorch(), "master", "PyTorchJob CRD of Kubeflow Training Operator v1.9.4"),
    (Ray(), "head", "RayJob CRD of KubeRay v1.7.0"),
])
def test_a_field_the_crd_would_prune_fails_the_render(config: Any, role: str,
                                                      kind: str) -> None:
    @task(image=IMAGE, pod_template=PodTemplate(WORKLOAD), task_config=config)
    def train() -> None: ...

    with pytest.raises(ManifestValidationError) as caught:
        render(train)
    text = str(caught.value)
    for part in ("task 'train'", f"role '{role}'",
                 "spec.workloadRef",
                 kind, "has no such field: the API server would silently drop it",
                 "fix: remove this field"):
        assert part in text, text


def test_the_same_template_without_the_field_renders() -> None:
    known = {"volumes": [{"name": "scratch", "emptyDir": {"sizeLimit": "1Gi"}}]}

    @task(image=IMAGE, pod_template=PodTemplate(known), task_config=PyTorch())
    def train() -> None: ...

    (job,), context = render(train)
    assert job["kind"] == "PyTorchJob" and context.warnings == []


def test_a_role_template_is_checked_like_a_task_template() -> None:
    config = PyTorch(worker=Role(replicas=2, pod_template=PodTemplate(WORKLOAD)))

    @task(image=IMAGE, task_config=config)
    def train() -> None: ...

    with pytest.raises(ManifestValidationError, match="role 'worker'"):
        render(train)


# --------------------------------------------------- a task type of our own, on the real CRD


class Job:
    """A PyTorchJob task type whose roles may declare fields unsupported, and whose build
    can break the resource around the pods."""

    name = "crd-fixture"
    replicas: Any = 1
    unsupported: tuple[FieldDecl, ...] = ()

    @hookimpl
    def podtemplate_add_task_types(self) -> Sequence[TaskType]:
        crd = "podtemplate_pytorch:crds/kubeflow.org_pytorchjobs.json"
        return [TaskType(self.name, distribution="fixture", kind="PyTorchJob",
                         api_version="kubeflow.org/v1", crds=(crd,))]

    @hookimpl
    def podtemplate_define_roles(self, task: Task, context: Any) -> list[RoleSpec] | None:
        if task.task_type != self.name:
            return None
        leader = RoleSpec("leader", "spec.pytorchReplicaSpecs.Master.template", "pytorch",
                          unsupported=self.unsupported)
        return [leader, dataclasses.replace(
            leader, name="follower", template_path="spec.pytorchReplicaSpecs.Worker.template")]

    @hookimpl
    def podtemplate_build_manifests(self, task: Task, roles: Sequence[RoleSpec],
                                    pods: Mapping[str, dict[str, Any]],
                                    context: Any) -> list[dict[str, Any]] | None:
        if task.task_type != self.name:
            return None
        specs = {"Master": {"replicas": 1, "template": pods["leader"]},
                 "Worker": {"replicas": self.replicas, "template": pods["follower"]}}
        return [{"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
                 "metadata": object_metadata(task, context),
                 "spec": {"pytorchReplicaSpecs": specs}}]


def fixture_task(template: PodTemplate | None = None) -> Task:
    return Task(name="fixture", task_type=Job.name, fn=lambda: None, image=IMAGE,
                pod_template=template)


def test_a_declared_unsupported_field_is_a_warning_not_an_error() -> None:
    plugin = Job()
    plugin.unsupported = (FieldDecl("spec.workloadRef", "older pod schema"),)
    (job,), context = render(fixture_task(PodTemplate(WORKLOAD)),
                             build_plugin_manager([plugin]))
    field = "spec.workloadRef"
    assert [(w.role, w.field) for w in context.warnings] == [("leader", field),
                                                             ("follower", field)]
    assert all(w.message.startswith("older pod schema: the PyTorchJob CRD of Kubeflow "
                                    "Training Operator v1.9.4 has no such field")
               for w in context.warnings)
    assert job["kind"] == "PyTorchJob"


def test_a_value_the_crd_refuses_outside_the_pods_fails_the_render() -> None:
    plugin = Job()
    plugin.replicas = "two"
    with pytest.raises(ManifestValidationError) as caught:
        render(fixture_task(), build_plugin_manager([plugin]))
    text = str(caught.value)
    assert "spec.pytorchReplicaSpecs.Worker.replicas: must be of type integer" in text
    assert "role" not in text.split(":")[0] and "report a plugin bug" in text


@pytest.mark.parametrize(("config", "role"), [(PyTorch(), "master"), (Ray(), "head")])
def test_a_field_the_platforms_policy_enforces_is_checked_too(config: Any, role: str) -> None:
    """The policy is folded over every pod after the task's layers: what it enforces must
    fit the CRD as well, or the API server drops it and the policy silently does not
    hold."""
    @task(image=IMAGE, task_config=config)
    def train() -> None: ...

    platform = Platform(policy={"enforce": WORKLOAD})
    context = make_context(platform=platform, plugin_manager=build_plugin_manager())
    with pytest.raises(ManifestValidationError) as caught:
        render_task(train, context)
    text = str(caught.value)
    for part in (f"role '{role}'", "spec.workloadRef", "has no such field",
                 "platform's templates or policy"):
        assert part in text, text


def test_dask_drops_a_field_its_old_pod_schema_lacks_even_when_the_policy_sets_it() -> None:
    """The DaskJob CRD's pod schema is Kubernetes 1.21's: no appArmorProfile (1.30). Set by
    the platform's policy, it is dropped from the pods with a warning, like a template's."""
    @task(image=IMAGE, task_config=Dask())
    def crunch() -> None: ...

    platform = Platform(policy={"enforce": {"securityContext": {
        "appArmorProfile": {"type": "RuntimeDefault"}}}})
    context = make_context(platform=platform, plugin_manager=build_plugin_manager())
    manifests = render_task(crunch, context)
    assert "appArmorProfile" not in json.dumps(manifests)
    for manifest in manifests:
        assert_valid_manifest(manifest, context.plugin_manager)
    fields = {warning.field for warning in context.warnings}
    assert "spec.securityContext.appArmorProfile" in fields, context.warnings

"""``Role(pod_template_name=...)``: a role names a cluster template (layer 5, beneath the
role's inline template), looked up like the task's own."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import pytest
from podtemplate import (
    ConfigModel,
    DefinitionError,
    Platform,
    PodTemplate,
    Role,
    RoleSpec,
    TaskType,
    TemplateNotFoundError,
    hookimpl,
    object_metadata,
    place,
    render,
    task,
)
from podtemplate.dispatch import build_plugin_manager
from podtemplate.testing import assert_valid_pod_template, container, env_of

GPU = """
apiVersion: v1
kind: PodTemplate
metadata: {name: gpu}
template:
  metadata:
    labels: {pool: gpu}
  spec:
    nodeSelector: {gpu: a100, zone: a}
    containers:
      - name: primary
        env: [{name: FROM, value: named}, {name: NAMED_ONLY, value: "1"}]
"""


class Pair(ConfigModel):
    task_type: ClassVar[str] = "pair"
    worker: Role | None = None


class PairPlugin:
    @hookimpl
    def podtemplate_add_task_types(self) -> Sequence[TaskType]:
        return [TaskType(name="pair", distribution="pair-test", kind="Pair")]

    @hookimpl
    def podtemplate_define_roles(self, task, context):  # type: ignore[no-untyped-def]
        if task.task_type != "pair":
            return None
        return [RoleSpec(name="lead", template_path="spec.lead.template", container_name="main"),
                RoleSpec(name="worker", template_path="spec.worker.template",
                         container_name="main", role=task.task_config.worker)]

    @hookimpl
    def podtemplate_build_manifests(self, task, roles, pods, context):  # type: ignore[no-untyped-def]
        if task.task_type != "pair":
            return None
        manifest: dict[str, Any] = {"apiVersion": "test/v1", "kind": "Pair",
                                    "metadata": object_metadata(task, context)}
        for role in roles:
            place(manifest, role.template_path, pods[role.name])
        return [manifest]


@pytest.fixture
def platform(templates_dir) -> Platform:  # type: ignore[no-untyped-def]
    return Platform(templates=templates_dir({"gpu.yaml": GPU}), fallbackNamespace="platform",
                    defaultImage="python:3.11")


def render_pair(job, platform: Platform) -> dict[str, dict[str, Any]]:  # type: ignore[no-untyped-def]
    (manifest,) = render(job, platform=platform,
                         plugin_manager=build_plugin_manager([PairPlugin()]))
    pods = {name: manifest["spec"][name]["template"] for name in ("lead", "worker")}
    for pod in pods.values():
        assert_valid_pod_template(pod)
    return pods


def test_named_role_template_sits_between_task_and_role_template(platform) -> None:  # type: ignore[no-untyped-def]
    worker = Role(pod_template_name="gpu",
                  pod_template=PodTemplate({"nodeSelector": {"zone": "b"}}))

    @task(task_config=Pair(worker=worker), env={"FROM": "task"},
          pod_template=PodTemplate({"nodeSelector": {"disk": "ssd", "gpu": "none"}}))
    def job() -> None: ...

    pods = render_pair(job, platform)
    worker_pod, lead = pods["worker"], pods["lead"]
    assert worker_pod["spec"]["nodeSelector"] == {"disk": "ssd", "gpu": "a100", "zone": "b"}
    assert env_of(container(worker_pod, "main")) == {"FROM": "named", "NAMED_ONLY": "1"}
    assert worker_pod["metadata"]["labels"]["pool"] == "gpu"
    assert lead["spec"]["nodeSelector"] == {"disk": "ssd", "gpu": "none"}
    assert env_of(container(lead, "main")) == {"FROM": "task"}
    assert "pool" not in lead["metadata"]["labels"]


def test_missing_named_role_template_is_an_error(platform) -> None:  # type: ignore[no-untyped-def]
    @task(task_config=Pair(worker=Role(pod_template_name="h200")))
    def job() -> None: ...

    with pytest.raises(TemplateNotFoundError) as error:
        render_pair(job, platform)
    assert (error.value.task, error.value.role) == ("job", "worker")
    assert error.value.field == "task_config.worker.pod_template_name"
    assert "platform/gpu" in str(error.value)


def test_blank_name_is_rejected_at_definition() -> None:
    with pytest.raises(DefinitionError, match="must not be empty"):
        Role(pod_template_name=" ")

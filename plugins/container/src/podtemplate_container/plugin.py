"""Hook implementations of the ``container`` task type: one role, one ``v1 Pod``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from podtemplate import (
    PodTemplate,
    RenderContext,
    RoleSpec,
    Task,
    TaskType,
    hookimpl,
    pod_manifest,
)
from podtemplate.plugin import POD_ROLE, single_pod_role

from .inputs import ContainerInputsTask, fill_placeholders, input_values
from .task import TASK_TYPE_NAME, ContainerTask

TASK_TYPE = TaskType(name=TASK_TYPE_NAME, distribution="podtemplate-container",
                     description="any image, command and args in one v1 Pod")


@hookimpl
def podtemplate_add_task_types() -> Sequence[TaskType]:
    return [TASK_TYPE]


@hookimpl
def podtemplate_define_roles(task: Task, context: RenderContext) -> list[RoleSpec]:
    # Nothing is operator-owned: image, command and args come from the task settings
    # layer, so a run override may still replace them.
    return [single_pod_role("container")]


@hookimpl
def podtemplate_build_manifests(task: Task, roles: Sequence[RoleSpec],
                                pods: Mapping[str, dict[str, Any]],
                                context: RenderContext) -> list[dict[str, Any]]:
    pod = pods[POD_ROLE]
    if isinstance(task, ContainerInputsTask) and task.inputs:
        fill_placeholders(task, pod["spec"]["containers"][0], input_values(task, context))
    return [pod_manifest(task, pod, context)]


@hookimpl
def podtemplate_make_sample_task(task_type: str, pod_template: PodTemplate | None,
                                 pod_template_name: str | None,
                                 role_templates: Mapping[str, PodTemplate]) -> Task:
    return ContainerTask(name="sample-container", image="busybox:1.36",
                         command=["sh", "-c"], args=["echo sample"],
                         pod_template=pod_template, pod_template_name=pod_template_name)

"""The ``container`` task type: one role, one ``v1 Pod``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from podtemplate import PodTemplate, RenderContext, RoleSpec, Task, TaskType, pod_manifest
from podtemplate.plugin import POD_ROLE, TaskTypePlugin, single_pod_role

from .inputs import ContainerInputsTask, fill_placeholders, input_values
from .task import TASK_TYPE_NAME, ContainerTask


class ContainerType(TaskTypePlugin):
    task_type = TaskType(name=TASK_TYPE_NAME, distribution="podtemplate-container",
                         description="any image, command and args in one v1 Pod")

    def define_roles(self, task: Task, context: RenderContext) -> list[RoleSpec]:
        # Nothing is operator-owned: image, command and args come from the task settings
        # layer, so a run override may still replace them.
        return [single_pod_role("container")]

    def build(self, task: Task, roles: Sequence[RoleSpec], pods: Mapping[str, dict[str, Any]],
              context: RenderContext) -> list[dict[str, Any]]:
        pod = pods[POD_ROLE]
        if isinstance(task, ContainerInputsTask) and task.inputs:
            fill_placeholders(task, pod["spec"]["containers"][0], input_values(task, context))
        return [pod_manifest(task, pod, context)]

    def sample(self, pod_template: PodTemplate | None, pod_template_name: str | None,
               role_templates: Mapping[str, PodTemplate]) -> Task:
        return ContainerTask(name="sample-container", image="busybox:1.36",
                             command=["sh", "-c"], args=["echo sample"],
                             pod_template=pod_template, pod_template_name=pod_template_name)

"""Built-in task type ``python``: a function task as one ``v1 Pod``. A plugin like every
other task type's, registered first (``dispatch.BUILTIN_PLUGINS``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .context import RenderContext
from .manifest import pod_manifest
from .model.roles import POD_ROLE, FieldDecl, RoleSpec, TaskType, single_pod_role
from .model.task import Task, sample_function_task
from .model.tasktype import TaskTypePlugin
from .model.templates import PodTemplate
from .runtime import function_entrypoint

ENTRYPOINT = (
    FieldDecl("spec.containers[primary].command", "runs the task function via the executor"),
    FieldDecl("spec.containers[primary].args", "names the task function and its inputs"),
)


class PythonType(TaskTypePlugin):
    task_type = TaskType(name="python", distribution="podtemplate",
                         description="a Python function in one v1 Pod")

    def define_roles(self, task: Task, context: RenderContext) -> list[RoleSpec]:
        operator = {"spec": {"containers": [function_entrypoint(task, context)]}}
        return [single_pod_role("Python", operator_layer=operator, owned=ENTRYPOINT)]

    def build(self, task: Task, roles: Sequence[RoleSpec], pods: Mapping[str, dict[str, Any]],
              context: RenderContext) -> list[dict[str, Any]]:
        return [pod_manifest(task, pods[POD_ROLE], context)]

    def sample(self, pod_template: PodTemplate | None, pod_template_name: str | None,
               role_templates: Mapping[str, PodTemplate]) -> Task:
        return sample_function_task("python", image="python:3.11-slim",
                                    pod_template=pod_template,
                                    pod_template_name=pod_template_name)

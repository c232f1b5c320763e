"""Built-in task type ``python``: a function task as one ``v1 Pod``. A plugin on the same
hooks as every other task type, registered first (``dispatch.BUILTIN_PLUGINS``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .context import RenderContext
from .hookspecs import hookimpl
from .manifest import pod_manifest
from .model.roles import POD_ROLE, FieldDecl, RoleSpec, TaskType, single_pod_role
from .model.task import Task, sample_function_task
from .model.templates import PodTemplate
from .runtime import function_entrypoint

TASK_TYPE = TaskType(name="python", distribution="podtemplate",
                     description="a Python function in one v1 Pod")
ENTRYPOINT = (
    FieldDecl("spec.containers[primary].command", "runs the task function via the executor"),
    FieldDecl("spec.containers[primary].args", "names the task function and its inputs"),
)


@hookimpl
def podtemplate_add_task_types() -> Sequence[TaskType]:
    return [TASK_TYPE]


@hookimpl
def podtemplate_define_roles(task: Task, context: RenderContext) -> list[RoleSpec]:
    operator = {"spec": {"containers": [function_entrypoint(task, context)]}}
    return [single_pod_role("Python", operator_layer=operator, owned=ENTRYPOINT)]


@hookimpl
def podtemplate_make_sample_task(task_type: str, pod_template: PodTemplate | None,
                                 pod_template_name: str | None,
                                 role_templates: Mapping[str, PodTemplate]) -> Task:
    return sample_function_task(task_type, image="python:3.11-slim", pod_template=pod_template,
                                pod_template_name=pod_template_name)


@hookimpl
def podtemplate_build_manifests(task: Task, roles: Sequence[RoleSpec],
                                pods: Mapping[str, dict[str, Any]],
                                context: RenderContext) -> list[dict[str, Any]]:
    return [pod_manifest(task, pods[POD_ROLE], context)]

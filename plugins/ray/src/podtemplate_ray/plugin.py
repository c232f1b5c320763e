"""Hook implementations of the ``ray`` task type (registered by entry point)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from podtemplate import PodTemplate, RenderContext, RoleSpec, Task, TaskType, hookimpl

from .build import API_VERSION, KIND, build_rayjob
from .config import Ray
from .roles import ray_roles
from .sample import sample_task

TASK_TYPE = TaskType(name=Ray.task_type, distribution="podtemplate-ray", kind=KIND,
                     api_version=API_VERSION, crd_file="ray.io_rayjobs.yaml",
                     description="a Python function as the entrypoint of a KubeRay RayJob")


@hookimpl
def podtemplate_add_task_types() -> Sequence[TaskType]:
    return [TASK_TYPE]


@hookimpl
def podtemplate_define_roles(task: Task, context: RenderContext) -> list[RoleSpec] | None:
    if task.task_type != TASK_TYPE.name:
        return None
    return ray_roles(task, _config(task), context)


@hookimpl
def podtemplate_build_manifests(task: Task, roles: Sequence[RoleSpec],
                                pods: Mapping[str, dict[str, Any]],
                                context: RenderContext) -> list[dict[str, Any]] | None:
    if task.task_type != TASK_TYPE.name:
        return None
    return [build_rayjob(task, _config(task), pods, context)]


@hookimpl
def podtemplate_make_sample_task(task_type: str, pod_template: PodTemplate | None,
                                 pod_template_name: str | None,
                                 role_templates: Mapping[str, PodTemplate]) -> Task | None:
    if task_type != TASK_TYPE.name:
        return None
    return sample_task(task_type, pod_template, pod_template_name, role_templates)


def _config(task: Task) -> Ray:
    """The task's Ray config; a Ray task built without one gets the defaults."""
    config = task.task_config
    return config if isinstance(config, Ray) else Ray()

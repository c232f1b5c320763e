"""Hook implementations of the ``ray`` task type (registered by entry point)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from podtemplate import PodTemplate, RenderContext, RoleSpec, Task, TaskType, hookimpl
from podtemplate.plugin import config_of

from .build import API_VERSION, KIND, build_rayjob
from .config import Ray
from .roles import ray_roles
from .sample import sample_task

TASK_TYPE = TaskType(name=Ray.task_type, distribution="podtemplate-ray", kind=KIND,
                     api_version=API_VERSION, config=Ray,
                     crds=("podtemplate_ray:crds/ray.io_rayjobs.json",),
                     description="a Python function as the entrypoint of a KubeRay RayJob")


@hookimpl
def podtemplate_add_task_types() -> Sequence[TaskType]:
    return [TASK_TYPE]


@hookimpl
def podtemplate_define_roles(task: Task, context: RenderContext) -> list[RoleSpec]:
    return ray_roles(task, config_of(task, Ray), context)


@hookimpl
def podtemplate_build_manifests(task: Task, roles: Sequence[RoleSpec],
                                pods: Mapping[str, dict[str, Any]],
                                context: RenderContext) -> list[dict[str, Any]]:
    return [build_rayjob(task, config_of(task, Ray), pods, context)]


@hookimpl
def podtemplate_make_sample_task(task_type: str, pod_template: PodTemplate | None,
                                 pod_template_name: str | None,
                                 role_templates: Mapping[str, PodTemplate]) -> Task:
    return sample_task(task_type, pod_template, pod_template_name, role_templates)


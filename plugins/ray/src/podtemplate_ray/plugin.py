"""The ``ray`` task type (entry point ``podtemplate: ray``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from podtemplate import PodTemplate, RenderContext, RoleSpec, Task, TaskType
from podtemplate.plugin import TaskTypePlugin, config_of

from .build import API_VERSION, KIND, build_rayjob
from .config import Ray
from .roles import ray_roles
from .sample import sample_task

TASK_TYPE = TaskType(name=Ray.task_type, distribution="podtemplate-ray", kind=KIND,
                     api_version=API_VERSION, config=Ray,
                     crds=("podtemplate_ray:crds/ray.io_rayjobs.json",),
                     description="a Python function as the entrypoint of a KubeRay RayJob")


class RayType(TaskTypePlugin):
    task_type = TASK_TYPE

    def define_roles(self, task: Task, context: RenderContext) -> list[RoleSpec]:
        return ray_roles(task, config_of(task, Ray), context)

    def build(self, task: Task, roles: Sequence[RoleSpec], pods: Mapping[str, dict[str, Any]],
              context: RenderContext) -> list[dict[str, Any]]:
        return [build_rayjob(task, config_of(task, Ray), pods, context)]

    def sample(self, pod_template: PodTemplate | None, pod_template_name: str | None,
               role_templates: Mapping[str, PodTemplate]) -> Task:
        return sample_task(Ray.task_type, pod_template, pod_template_name, role_templates)

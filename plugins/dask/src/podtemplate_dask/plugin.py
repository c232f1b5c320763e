"""The ``dask`` task type (thin: the work is in the modules)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from podtemplate import PodTemplate, RenderContext, Role, RoleSpec, Task, TaskType
from podtemplate.plugin import TaskTypePlugin, config_of, sample_function_task

from .build import API_VERSION, KIND, build_daskjob
from .config import Dask
from .roles import define_roles

TASK_TYPE = TaskType(
    name=Dask.task_type, distribution="podtemplate-dask", kind=KIND, api_version=API_VERSION,
    crds=("podtemplate_dask:crds/kubernetes.dask.org_daskjobs.json",), config=Dask,
    description="a Dask cluster and a job runner as a dask-kubernetes DaskJob")


class DaskType(TaskTypePlugin):
    task_type = TASK_TYPE

    def define_roles(self, task: Task, context: RenderContext) -> list[RoleSpec]:
        return define_roles(task, context)

    def build(self, task: Task, roles: Sequence[RoleSpec], pods: Mapping[str, dict[str, Any]],
              context: RenderContext) -> list[dict[str, Any]]:
        return [build_daskjob(task, config_of(task, Dask), roles, pods, context)]

    def sample(self, pod_template: PodTemplate | None, pod_template_name: str | None,
               role_templates: Mapping[str, PodTemplate]) -> Task:
        config = Dask(
            job_runner=Role(pod_template=role_templates.get("job-runner")),
            scheduler=Role(pod_template=role_templates.get("scheduler")),
            workers=Role(pod_template=role_templates.get("worker"), replicas=2),
        )
        return sample_function_task(Dask.task_type, image="ghcr.io/dask/dask:2024.12.1",
                                    pod_template=pod_template,
                                    pod_template_name=pod_template_name, task_config=config)

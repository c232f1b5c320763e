"""Hook implementations of the ``pytorch`` task type (entry point ``podtemplate``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from podtemplate import PodTemplate, RenderContext, Role, RoleSpec, Task, TaskType, hookimpl
from podtemplate.plugin import sample_function_task

from .build import API_VERSION, KIND, build_job
from .config import PyTorch
from .roles import define_roles

TASK_TYPE = TaskType(
    name=PyTorch.task_type, distribution="podtemplate-pytorch", kind=KIND,
    api_version=API_VERSION, config=PyTorch,
    crds=("podtemplate_pytorch:crds/kubeflow.org_pytorchjobs.json",),
    description="distributed PyTorch as a Kubeflow PyTorchJob (master and workers)")


@hookimpl
def podtemplate_add_task_types() -> Sequence[TaskType]:
    return [TASK_TYPE]


@hookimpl
def podtemplate_define_roles(task: Task, context: RenderContext) -> list[RoleSpec]:
    return define_roles(task, context)


@hookimpl
def podtemplate_build_manifests(task: Task, roles: Sequence[RoleSpec],
                                pods: Mapping[str, dict[str, Any]],
                                context: RenderContext) -> list[dict[str, Any]]:
    return [build_job(task, roles, pods, context)]


@hookimpl
def podtemplate_make_sample_task(task_type: str, pod_template: PodTemplate | None,
                                 pod_template_name: str | None,
                                 role_templates: Mapping[str, PodTemplate]) -> Task:
    config = PyTorch(master=Role(pod_template=role_templates.get("master")),
                     worker=Role(pod_template=role_templates.get("worker"), replicas=2),
                     shm_size="1Gi")
    return sample_function_task(task_type,
                                image="pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime",
                                pod_template=pod_template, pod_template_name=pod_template_name,
                                task_config=config)

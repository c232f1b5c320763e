"""The ``pytorch`` task type (entry point ``podtemplate: pytorch``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from podtemplate import PodTemplate, RenderContext, Role, RoleSpec, Task, TaskType
from podtemplate.plugin import TaskTypePlugin, sample_function_task

from .build import API_VERSION, KIND, build_job
from .config import PyTorch
from .roles import define_roles
from .settings import TRAINER, PyTorchSettings, operator_of
from .trainer import NODE, build_trainer, node_roles

TASK_TYPE = TaskType(
    name=PyTorch.task_type, distribution="podtemplate-pytorch", kind=KIND,
    api_version=API_VERSION, config=PyTorch,
    crds=("podtemplate_pytorch:crds/kubeflow.org_pytorchjobs.json",
          "podtemplate_pytorch:crds/trainer.kubeflow.org_trainingruntimes.json",
          "podtemplate_pytorch:crds/trainer.kubeflow.org_trainjobs.json"),
    settings=PyTorchSettings, variants={TRAINER: {"operator": TRAINER}},
    description="distributed PyTorch as a Kubeflow PyTorchJob (master and workers), or as "
    "a Kubeflow Trainer v2 TrainJob with its TrainingRuntime (taskTypes.pytorch.operator)")


class PyTorchType(TaskTypePlugin):
    task_type = TASK_TYPE

    def define_roles(self, task: Task, context: RenderContext) -> list[RoleSpec]:
        if operator_of(context) == TRAINER:
            return node_roles(task, context)
        return define_roles(task, context)

    def build(self, task: Task, roles: Sequence[RoleSpec], pods: Mapping[str, dict[str, Any]],
              context: RenderContext) -> list[dict[str, Any]]:
        if operator_of(context) == TRAINER:
            return build_trainer(task, roles, pods, context)
        return [build_job(task, roles, pods, context)]

    def sample(self, pod_template: PodTemplate | None, pod_template_name: str | None,
               role_templates: Mapping[str, PodTemplate]) -> Task:
        # Trainer v2's one role, node, is made from the worker role.
        worker = role_templates.get("worker") or role_templates.get(NODE)
        config = PyTorch(master=Role(pod_template=role_templates.get("master")),
                         worker=Role(pod_template=worker, replicas=2), shm_size="1Gi")
        return sample_function_task(PyTorch.task_type,
                                    image="pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime",
                                    pod_template=pod_template,
                                    pod_template_name=pod_template_name, task_config=config)

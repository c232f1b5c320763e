"""The sample Ray task of the conformance kit and ``podtemplate coverage``."""

from __future__ import annotations

from collections.abc import Mapping

from podtemplate import PodTemplate, Resources, Role, Task
from podtemplate.plugin import sample_function_task

from .config import Head, Ray, WorkerGroup
from .roles import HEAD, SUBMITTER

__all__ = ["SAMPLE_GROUPS", "sample_task"]

SAMPLE_IMAGE = "rayproject/ray:2.41.0-py311"
# Two groups, so a value that reaches one group and not the other shows up.
SAMPLE_GROUPS = ("cpu", "gpu")


def sample_task(task_type: str, pod_template: PodTemplate | None,
                pod_template_name: str | None,
                role_templates: Mapping[str, PodTemplate]) -> Task:
    groups = [
        WorkerGroup(name="cpu", replicas=2, pod_template=role_templates.get("worker:cpu")),
        WorkerGroup(name="gpu", replicas=1, requests=Resources(gpu="1"),
                    pod_template=role_templates.get("worker:gpu")),
    ]
    config = Ray(head=Head(pod_template=role_templates.get(HEAD)), worker_groups=groups,
                 submitter=Role(pod_template=role_templates.get(SUBMITTER)))
    return sample_function_task(task_type, image=SAMPLE_IMAGE, pod_template=pod_template,
                                pod_template_name=pod_template_name, task_config=config)

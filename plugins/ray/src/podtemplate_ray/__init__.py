"""podtemplate-ray: the ``ray`` task type, a Python function as a KubeRay ``RayJob``.

Roles: ``head``, ``worker:<group>`` for each worker group, and ``submitter``::

    from podtemplate import Resources, task
    from podtemplate_ray import Ray, WorkerGroup

    @task(image="rayproject/ray:2.41.0-py311",
          task_config=Ray(worker_groups=[WorkerGroup(name="cpu", replicas=2)]))
    def train() -> None: ...
"""

from __future__ import annotations

from podtemplate.plugin import flytekit_names

from .autoscaler import AutoscalerOptions
from .config import Head, Ray, RayStartValue, WorkerGroup
from .flytekit import HeadNodeConfig, RayJobConfig, WorkerNodeConfig
from .roles import (
    HEAD,
    HEAD_CONTAINER,
    HEAD_PORTS,
    SUBMITTER,
    SUBMITTER_CONTAINER,
    WORKER_CONTAINER,
    worker_role_name,
)

__all__ = [
    "AutoscalerOptions",
    "HeadNodeConfig",
    "RayJobConfig",
    "WorkerNodeConfig",
    "HEAD",
    "HEAD_CONTAINER",
    "HEAD_PORTS",
    "SUBMITTER",
    "SUBMITTER_CONTAINER",
    "WORKER_CONTAINER",
    "Head",
    "Ray",
    "RayStartValue",
    "WorkerGroup",
    "worker_role_name",
]

# flytekitplugins-ray names with no class here: what to write instead.
__getattr__ = flytekit_names(__name__, {
    "AutoscalerOptionsConfig": "write Ray(autoscaler_options=AutoscalerOptions("
    "idle_timeout_seconds=, upscaling_mode=, image=, env=, requests=, limits=))",
})

"""podtemplate-dask: Dask tasks as dask-kubernetes ``kubernetes.dask.org/v1 DaskJob``.

::

    from podtemplate import Role, Resources, task
    from podtemplate_dask import Dask

    @task(image="ghcr.io/dask/dask:2024.12.1",
          task_config=Dask(workers=Role(replicas=4, limits=Resources(cpu="2", memory="8Gi"))))
    def crunch() -> int: ...
"""

from __future__ import annotations

from .build import API_VERSION, KIND, build_daskjob, scheduler_service
from .config import COMM_PORT, CONTAINER_NAMES, DASHBOARD_PORT, Dask
from .crd_schema import strip_unknown_fields
from .flytekit import Scheduler, WorkerGroup
from .plugin import TASK_TYPE
from .roles import ROLE_PATHS, define_roles, worker_flags

__all__ = [
    "API_VERSION",
    "COMM_PORT",
    "CONTAINER_NAMES",
    "DASHBOARD_PORT",
    "KIND",
    "ROLE_PATHS",
    "TASK_TYPE",
    "Dask",
    "Scheduler",
    "WorkerGroup",
    "build_daskjob",
    "define_roles",
    "scheduler_service",
    "strip_unknown_fields",
    "worker_flags",
]

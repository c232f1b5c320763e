"""The ``task_config`` of a Dask task: ``Dask``.

What the dask-kubernetes operator would reject, or silently change, is rejected here when
the task is defined; what depends on templates found at render time is checked in
:mod:`podtemplate_dask.roles`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

from podtemplate import ConfigModel, DefinitionError, PodTemplate, Role
from podtemplate.plugin import (
    MAX_OBJECT_NAME,
    PRIMARY_CONTAINER,
    check_dns1035_label,
    check_one_primary,
)
from pydantic import field_validator, model_validator

__all__ = [
    "IDLE_TIMEOUT_REFUSED",
    "RUNNER_RESTART_POLICY",
    "runner_restart_policy",
    "COMM_PORT",
    "CONTAINER_NAMES",
    "DASHBOARD_PORT",
    "ROLE_PATHS",
    "SCHEDULER_PORTS",
    "Dask",
    "check_role_template",
    "scheduler_port_conflicts",
]

# Where each role's PodTemplateSpec sits in the DaskJob.
ROLE_PATHS = {
    "job-runner": "spec.job",
    "scheduler": "spec.cluster.spec.scheduler",
    "worker": "spec.cluster.spec.worker",
}
# The container name of each role, as the dask-kubernetes operator's docs and examples
# name them; the operator adds DASK_SCHEDULER_ADDRESS / DASK_WORKER_NAME to these pods.
CONTAINER_NAMES = {"job-runner": "job", "scheduler": "scheduler", "worker": "worker"}
COMM_PORT = 8786
DASHBOARD_PORT = 8787
# (name, containerPort) of the scheduler's ports; the scheduler Service targets the names.
SCHEDULER_PORTS = (("tcp-comm", COMM_PORT), ("http-dashboard", DASHBOARD_PORT))
# dask-kubernetes 2025.4.3, dask_kubernetes/operator/controller/controller.py
# (daskjob_create_components, build_scheduler_service_spec): the DaskCluster is named after
# the DaskJob and its scheduler Service "<name>-scheduler", which must be a DNS-1035 label.
_SERVICE_SUFFIX = "-scheduler"
# dask-kubernetes 2025.4.3, controller.py: daskjob_create_components builds the DaskCluster
# with build_cluster_spec, which copies only the worker and scheduler specs; the idle check
# (daskcluster_autoshutdown) reads the DaskCluster's spec.idleTimeout, never the DaskJob's.
# The job runner's restartPolicy unless a template says otherwise: Never, as Flyte's dask
# plugin sets it (flyteplugins k8s/dask/dask.go createJobSpec); the DaskJob CRD's own
# default would be OnFailure.
RUNNER_RESTART_POLICY = "Never"
IDLE_TIMEOUT_REFUSED = (
    "idle_timeout would be ignored: the dask-kubernetes operator does not copy a DaskJob's "
    "spec.cluster.spec.idleTimeout into the DaskCluster it creates (dask-kubernetes issue "
    "#882), so an idle or hung cluster would never be deleted")
IDLE_TIMEOUT_FIX = (
    "drop idle_timeout; to bound a hung job, give the job runner a deadline: "
    "job_runner=Role(pod_template=PodTemplate({'activeDeadlineSeconds': 3600})) - when the "
    "runner pod fails, the operator deletes the cluster")


# The roles of one pod each, and the fix of replicas set on one.
_ONE_POD_ROLES = (
    ("scheduler", "drop replicas from the scheduler role; scale with workers=Role(replicas=N)"),
    ("job_runner", "drop replicas from the job_runner role"),
)


class Dask(ConfigModel):
    """A Dask cluster plus a job runner, as a dask-kubernetes ``DaskJob``.

    The job runner pod runs the task function (``dask.distributed.Client()`` inside it
    finds the scheduler through ``DASK_SCHEDULER_ADDRESS``, which the operator sets).

    - ``scheduler``: the scheduler pod's :class:`podtemplate.Role` (one pod: replicas 1).
    - ``workers``: the worker pods' role; ``workers.replicas`` is the worker count
      (default 1). Thread count and memory limit of ``dask worker`` follow the worker
      container's resolved CPU and memory limits.
    - ``job_runner``: the job runner pod's role, for resources or a template of its own.
    - ``idle_timeout`` is refused: the operator does not pass a DaskJob's
      ``idleTimeout`` on to the DaskCluster it creates (dask-kubernetes issue #882), so it
      would be silently ignored. Bound a hung job with the job runner's
      ``activeDeadlineSeconds`` instead (see :data:`IDLE_TIMEOUT_REFUSED`).

    Each role's pod is resolved on its own over the task's template and settings; a
    role's requests/limits are merged key by key over the task's.
    """

    task_type: ClassVar[str] = "dask"
    # the operator names the scheduler Service <name>-scheduler: a DNS-1035 label
    object_name_limit: ClassVar[int] = MAX_OBJECT_NAME - len(_SERVICE_SUFFIX)

    scheduler: Role | None = None
    workers: Role | None = None
    job_runner: Role | None = None
    idle_timeout: Any = None

    @field_validator("idle_timeout")
    @classmethod
    def _no_idle_timeout(cls, value: Any) -> None:
        if value is not None:
            raise DefinitionError(IDLE_TIMEOUT_REFUSED, field="task_config.idle_timeout",
                                  fix=IDLE_TIMEOUT_FIX)
        return None

    @model_validator(mode="after")
    def _consistent(self) -> Dask:
        for attribute, fix in _ONE_POD_ROLES:
            role = getattr(self, attribute)
            if role is not None and role.replicas not in (None, 1):
                raise DefinitionError(
                    f"the {attribute.replace('_', ' ')} is one pod, got replicas={role.replicas}",
                    field=f"task_config.{attribute}.replicas", fix=fix)
        for attribute, role_name in (("scheduler", "scheduler"), ("workers", "worker"),
                                     ("job_runner", "job-runner")):
            role = getattr(self, attribute)
            if role is not None and role.pod_template is not None:
                field = f"task_config.{attribute}.pod_template"
                check_role_template(role.pod_template, role_name, field)
                if role_name == "job-runner":
                    runner_restart_policy(role.pod_template.pod_spec.get("restartPolicy"),
                                          field=f"{field}.restartPolicy")
                if role_name == "scheduler":
                    template = role.pod_template
                    _raise_port_conflicts(template.pod_spec, template.primary_container_name,
                                          field)
        return self

    def check_task_name(self, name: str) -> None:
        check_dns1035_label(
            name, what="Dask task name", max_length=self.object_name_limit,
            why=f"the operator names the scheduler Service '{name}{_SERVICE_SUFFIX}', "
            "a DNS-1035 label")

    def worker_replicas(self) -> int:
        """How many workers the cluster starts."""
        if self.workers is not None and self.workers.replicas is not None:
            return self.workers.replicas
        return 1


def check_role_template(template: PodTemplate, role: str, field: str) -> None:
    """Reject a role template that renames the operator's container of ``role``.

    A role template is written for one role, so its primary container must be the
    operator's: named ``primary`` (the alias) or the operator's name itself, and never
    both (two containers that would become one).
    """
    operator_name = CONTAINER_NAMES[role]
    alias = template.primary_container_name
    if alias not in (PRIMARY_CONTAINER, operator_name):
        raise DefinitionError(
            f"the {role} role template names its primary container {alias!r}, but the "
            f"operator's {role} container is {operator_name!r}",
            field=f"{field}.primary_container_name",
            fix=f"set primary_container_name={operator_name!r} (or name the container "
            "'primary')")
    check_one_primary(template, operator_name, field)


def scheduler_port_conflicts(pod_spec: Mapping[str, Any], primary_alias: str | None
                             ) -> Iterator[tuple[str, str]]:
    """``(field path, problem)`` for every port of ``pod_spec`` that collides with the
    scheduler's ports: the same containerPort on any container (they share the pod's
    network), or the same port name on another port (names are unique in a pod). Init
    containers are left out: they run before the scheduler starts."""
    by_port = {port: name for name, port in SCHEDULER_PORTS}
    by_name = dict(SCHEDULER_PORTS)
    for container in pod_spec.get("containers") or ():
        name = container.get("name")
        label = PRIMARY_CONTAINER if name == primary_alias else name
        for index, port in enumerate(container.get("ports") or ()):
            where = f"spec.containers[{label}].ports[{index}]"
            number, port_name = port.get("containerPort"), port.get("name")
            if number in by_port:
                yield (f"{where}.containerPort",
                       f"containerPort {number} is the scheduler's {by_port[number]} port")
            elif port_name in by_name:
                yield (f"{where}.name",
                       f"port name {port_name!r} is the scheduler's port {by_name[port_name]}")


def _raise_port_conflicts(pod_spec: Mapping[str, Any], primary_alias: str | None,
                          field: str) -> None:
    for path, problem in scheduler_port_conflicts(pod_spec, primary_alias):
        raise DefinitionError(
            problem, field=f"{field}.{path.removeprefix('spec.')}",
            fix=f"use another port: the dask scheduler owns {COMM_PORT} (tcp-comm) and "
            f"{DASHBOARD_PORT} (http-dashboard)")


def runner_restart_policy(policy: str | None, *, task: str | None = None,
                          field: str = "spec.restartPolicy") -> str:
    """The job runner's restartPolicy: ``Never`` (as on Flyte) unless a template says
    ``OnFailure`` (the DaskJob CRD's own default, which retries the runner while the
    scheduler comes up). dask-kubernetes 2025.4.3, controller.py
    (handle_runner_status_change_succeeded / _failed) deletes the cluster only when the
    runner pod reaches Succeeded or Failed, which a pod with ``Always`` never does."""
    if policy == "Always":
        raise DefinitionError(
            "the job runner's restartPolicy is Always: its pod would never reach Succeeded "
            "or Failed, and the dask-kubernetes operator deletes the cluster only then",
            task=task, role="job-runner", field=field,
            fix="use Never (the default) or OnFailure in the job runner's template")
    return policy or RUNNER_RESTART_POLICY

"""The three pod roles of a DaskJob and what the operator owns in each.

- ``job-runner`` (``spec.job``): runs the task function through the core executor.
- ``scheduler`` (``spec.cluster.spec.scheduler``): ``dask scheduler`` with its two ports.
- ``worker`` (``spec.cluster.spec.worker``): ``dask worker``, ``replicas`` of them.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import Any

from podtemplate import Role, Task
from podtemplate.plugin import (
    DefinitionError,
    FieldDecl,
    RenderContext,
    RoleSpec,
    config_of,
    function_entrypoint,
    parse_quantity,
    template_layers,
)

from .config import (
    COMM_PORT,
    CONTAINER_NAMES,
    DASHBOARD_PORT,
    ROLE_PATHS,
    SCHEDULER_PORTS,
    Dask,
    scheduler_port_conflicts,
)
from .crd_schema import SIDECAR_ONLY_FIELDS, newer_fields

__all__ = [
    "ROLE_PATHS",
    "OPERATOR_ENV",
    "OPERATOR_ENV_HARM",
    "add_worker_flags",
    "CRD_SCHEMA_REASON",
    "define_roles",
    "worker_flags",
]

# Env vars the operator adds to every container of a role's pod that does not set them.
OPERATOR_ENV = {
    "job-runner": ("DASK_SCHEDULER_ADDRESS",),
    "scheduler": (),
    "worker": ("DASK_SCHEDULER_ADDRESS", "DASK_WORKER_NAME"),
}
OPERATOR_ENV_HARM = {
    "DASK_SCHEDULER_ADDRESS": "the pods would join another scheduler than their cluster's",
    "DASK_WORKER_NAME": "every worker would carry one fixed name, which breaks scale-down",
}
CRD_SCHEMA_REASON = "CRD schema"

_NAME = "spec.containers[primary].name"
_COMMAND = "spec.containers[primary].command"
_ARGS = "spec.containers[primary].args"
_RESTART = "spec.restartPolicy"
_DEPLOYMENT = "the operator runs this pod through a Deployment, which only accepts Always"


def _env_decls(role: str) -> tuple[FieldDecl, ...]:
    return tuple(FieldDecl(f"spec.containers[*].env[{name}]",
                           "runtime: set by the dask-kubernetes operator on every container "
                           "when absent; a template's value is removed, since the operator "
                           "would keep it")
                 for name in OPERATOR_ENV[role])


def _owned(role: str) -> tuple[FieldDecl, ...]:
    name = CONTAINER_NAMES[role]
    decls = [FieldDecl(_NAME, f"dask-kubernetes names the {role} container {name!r}")]
    if role == "job-runner":
        decls += [FieldDecl(_COMMAND, "runs the task function via the podtemplate executor"),
                  FieldDecl(_ARGS, "names the task function and its inputs")]
    elif role == "scheduler":
        decls += [
            FieldDecl(_COMMAND, "the operator's scheduler entrypoint: dask scheduler"),
            FieldDecl(_ARGS, f"the scheduler listens on {COMM_PORT} with its dashboard on "
                      f"{DASHBOARD_PORT}, the ports its Service targets"),
            *(FieldDecl(f"spec.containers[primary].ports[{port_name}]",
                        f"runtime: port {number} is exposed by the scheduler Service the "
                        "operator creates") for port_name, number in SCHEDULER_PORTS),
            FieldDecl(_RESTART, _DEPLOYMENT)]
    else:
        decls += [
            FieldDecl(_COMMAND, "the operator's worker entrypoint: dask worker"),
            FieldDecl(_ARGS, "--name $(DASK_WORKER_NAME) as the operator requires; "
                      "--nthreads/--memory-limit follow the container's CPU/memory limits"),
            FieldDecl(_RESTART, _DEPLOYMENT)]
    return (*decls, *_env_decls(role))


@functools.cache
def _unsupported(role: str) -> tuple[FieldDecl, ...]:
    """The current PodSpec fields the CRD's old pod schema would prune, as declarations
    (``[*]``: on every container, volume... of the pod)."""
    newer = newer_fields(role)
    pruned = tuple(FieldDecl(path, CRD_SCHEMA_REASON) for path in newer)
    if "spec.initContainers[*].restartPolicy" not in newer:
        return pruned
    return (*pruned, *(FieldDecl(f"spec.initContainers[*].{key}", _NOT_A_SIDECAR)
                       for key in SIDECAR_ONLY_FIELDS))


_NOT_A_SIDECAR = ("lost with spec.initContainers[*].restartPolicy: the CRD prunes an init "
                  "container's restartPolicy, so it is no sidecar, and the API server "
                  "refuses hooks and probes on other init containers")


OWNED = {role: _owned(role) for role in ROLE_PATHS}



def define_roles(task: Task, context: RenderContext) -> list[RoleSpec]:
    """The job runner, scheduler and worker roles of ``task``, in manifest order."""
    config = config_of(task, Dask)
    if task.task_config is None:  # a task built without a config: the defaults' rule
        config.check_task_name(task.object_name)
    _check_no_command(task)
    job = _role_spec("job-runner", config.job_runner, _operator_layer(
        function_entrypoint(task, context, CONTAINER_NAMES["job-runner"])))
    scheduler = _role_spec("scheduler", config.scheduler, _SCHEDULER_LAYER)
    _check_scheduler_ports(task, scheduler, context)
    # The worker's flags follow its container's final resources: add_worker_flags puts
    # them on the resolved pod (they touch no resource).
    worker = _role_spec("worker", config.workers, _WORKER_LAYER)
    return [job, scheduler, worker]


def _operator_layer(container: Mapping[str, Any], *, restart_policy: str | None = None
                    ) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [dict(container)]}
    if restart_policy is not None:
        spec["restartPolicy"] = restart_policy
    return {"spec": spec}


def _role_spec(role: str, config: Role | None, operator_layer: dict[str, Any]) -> RoleSpec:
    return RoleSpec(name=role, template_path=ROLE_PATHS[role],
                    container_name=CONTAINER_NAMES[role], role=config,
                    operator_layer=operator_layer, owned=OWNED[role],
                    unsupported=_unsupported(role),
                    replicas_path=f"{ROLE_PATHS[role]}.replicas" if role == "worker" else None,
                    # As on Flyte (flyteplugins dask.go): a task's interruptible=True puts
                    # the workers on interruptible nodes, never the scheduler or the job
                    # runner, whose loss fails the job; Role(interruptible=True) opts in.
                    task_interruptible=role == "worker")


# Built once: the same for every task, and read only, like every layer.
_SCHEDULER_LAYER = _operator_layer({
    "name": CONTAINER_NAMES["scheduler"],
    "command": ["dask", "scheduler"],
    "args": ["--port", str(COMM_PORT), "--dashboard-address", f":{DASHBOARD_PORT}"],
    "ports": [{"name": name, "containerPort": number, "protocol": "TCP"}
              for name, number in SCHEDULER_PORTS],
}, restart_policy="Always")
_WORKER_LAYER = _operator_layer({
    "name": CONTAINER_NAMES["worker"], "command": ["dask", "worker"],
    "args": ["--name", "$(DASK_WORKER_NAME)"]}, restart_policy="Always")


def add_worker_flags(pod: dict[str, Any]) -> None:
    """Append ``--nthreads``/``--memory-limit`` to the resolved worker pod's ``dask
    worker`` args (the operator layer set them, atomically, to the ``--name`` flags)."""
    container = pod["spec"]["containers"][0]
    container["args"] = [*container["args"], *worker_flags(container.get("resources") or {})]


def worker_flags(resources: Mapping[str, Mapping[str, str]]) -> list[str]:
    """``dask worker`` flags from a container's resources.

    ``--nthreads``: the CPU limit (else the request) rounded up, as dask itself counts a
    cgroup CPU quota; at least 1. ``--memory-limit``: the memory limit in bytes, where the
    kernel would kill the container; without a limit dask keeps its own default.
    """
    limits, requests = resources.get("limits") or {}, resources.get("requests") or {}
    flags: list[str] = []
    cpu = limits.get("cpu") or requests.get("cpu")
    if cpu:
        flags += ["--nthreads", str(max(1, math.ceil(parse_quantity(cpu))))]
    memory = limits.get("memory")
    if memory:
        flags += ["--memory-limit", str(int(parse_quantity(memory)))]
    return flags


def _check_no_command(task: Task) -> None:
    if task.command is not None or task.args is not None:
        raise DefinitionError(
            "a dask task runs its function in the job runner and dask scheduler/worker in "
            "the cluster: command is not used", task=task.name, field="command",
            fix="drop command=; put the work in the task function")


def _check_scheduler_ports(task: Task, scheduler: RoleSpec, context: RenderContext) -> None:
    """Every layer under the operator's, checked for ports that the merge would otherwise
    fold silently into the scheduler's own."""
    for layer in template_layers(task, scheduler, context):
        for path, problem in scheduler_port_conflicts(layer.spec, layer.primary):
            raise DefinitionError(
                f"{layer.label}: {problem}", task=task.name, role="scheduler", field=path,
                fix=f"use another port: the dask scheduler owns {COMM_PORT} (tcp-comm) and "
                f"{DASHBOARD_PORT} (http-dashboard)")

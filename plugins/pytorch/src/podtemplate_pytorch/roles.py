"""The pod roles of a PyTorch task and what the operator owns in each of them."""

from __future__ import annotations

from typing import Any

from podtemplate import (
    DefinitionError,
    FieldDecl,
    PluginError,
    RenderContext,
    RoleSpec,
    Task,
    function_entrypoint,
)
from podtemplate.plugin import config_of, single_pod_role

from .config import CONTAINER_NAME, Elastic, PyTorch, check_primary_name

__all__ = [
    "SHM_DECLS",
    "PORT",
    "PORT_NAME",
    "REPLICA_TYPES",
    "SHM_PATH",
    "SHM_VOLUME",
    "check_task",
    "define_roles",
    "operator_layer",
    "replica_path",
    "standalone_role",
]

# The operator reads the master's rendezvous port from the port of this name on the
# pytorch container; 23456 is its default.
PORT_NAME = "pytorchjob-port"
PORT = 23456
SHM_VOLUME = "dshm"
SHM_PATH = "/dev/shm"
# Role name -> replica type, the key under spec.pytorchReplicaSpecs.
REPLICA_TYPES = {"master": "Master", "worker": "Worker"}

_ENTRYPOINT = (
    FieldDecl("spec.containers[primary].name",
              f"the Training Operator finds the training container by the name "
              f"'{CONTAINER_NAME}' and rejects a replica without it"),
    FieldDecl("spec.containers[primary].command",
              "runs the task function through the podtemplate executor (under torchrun "
              "for elastic jobs)"),
    FieldDecl("spec.containers[primary].args", "names the task function and its inputs"),
    FieldDecl(f"spec.containers[primary].ports[{PORT},TCP]",
              f"the operator takes the master's port from the port named '{PORT_NAME}'"),
)
_STANDALONE_ENTRYPOINT = (
    FieldDecl("spec.containers[primary].command",
              "runs the task function under torchrun, standalone (one node)"),
    FieldDecl("spec.containers[primary].args",
              "torchrun's launch settings, then the task function and its inputs"),
)
SHM_DECLS = _SHM = (
    FieldDecl(f"spec.volumes[{SHM_VOLUME}]",
              "shm_size: a memory-backed emptyDir of that size replaces the /dev/shm volume"),
    FieldDecl(f"spec.containers[primary].volumeMounts[{SHM_PATH}]",
              "shm_size: the shared-memory volume is mounted at /dev/shm"),
)



def define_roles(task: Task, context: RenderContext) -> list[RoleSpec]:
    """``master`` (unless elastic) and ``worker`` of a PyTorchJob, in manifest order; the
    one pod of a standalone elastic job."""
    config = config_of(task, PyTorch)
    check_task(task, config)
    if config.elastic is not None and config.elastic.standalone:
        return [standalone_role(task, context, config, config.elastic)]
    port = {"name": PORT_NAME, "containerPort": PORT, "protocol": "TCP"}
    layer = operator_layer(task, context, config, CONTAINER_NAME, port,
                           torchrun=config.elastic is not None)
    owned = _ENTRYPOINT + (_SHM if config.shm_size else ())
    roles = [] if config.elastic is not None else [("master", config.master)]
    roles.append(("worker", config.worker))
    return [
        RoleSpec(name=name, template_path=f"{replica_path(name)}.template",
                 container_name=CONTAINER_NAME, role=role, operator_layer=layer,
                 owned=(*owned, _restart_policy(name)),
                 replicas_path=f"{replica_path(name)}.replicas" if name == "worker" else None)
        for name, role in roles
    ]


def standalone_role(task: Task, context: RenderContext, config: PyTorch,
                    elastic: Elastic) -> RoleSpec:
    """The one pod of flytekit's ``Elastic(nnodes=1)``: the function under torchrun with
    a local rendezvous, with the launch settings flytekit's launcher gives torch
    (``LaunchConfig``: one node, ``c10d`` at ``localhost:0``, its restarts and
    rendezvous settings)."""
    container = function_entrypoint(task, context)
    interpreter, *rest = container["command"]
    if interpreter != "python":
        raise PluginError(f"cannot start {container['command']} under torchrun",
                          task=task.name, fix="report this podtemplate-pytorch bug")
    flags = ["--nnodes=1", f"--nproc_per_node={elastic.nproc_per_node or 1}",
             f"--rdzv_backend={elastic.rdzv_backend}", "--rdzv_endpoint=localhost:0",
             f"--max_restarts={elastic.max_restarts or 0}"]
    if elastic.rdzv_configs:
        flags.append("--rdzv_conf=" + ",".join(f"{key}={value}" for key, value
                                                in elastic.rdzv_configs.items()))
    container = {**container, "command": ["torchrun"],
                 "args": [*flags, *rest, *container["args"]]}
    spec: dict[str, Any] = {"containers": [container]}
    if config.shm_size:
        container["volumeMounts"] = [{"name": SHM_VOLUME, "mountPath": SHM_PATH}]
        spec["volumes"] = [{"name": SHM_VOLUME,
                            "emptyDir": {"medium": "Memory", "sizeLimit": config.shm_size}}]
    return single_pod_role("standalone elastic PyTorch", operator_layer={"spec": spec},
                           owned=_STANDALONE_ENTRYPOINT + (_SHM if config.shm_size else ()))


def replica_path(role: str) -> str:
    """Where a role's replica spec sits in the PyTorchJob."""
    return f"spec.pytorchReplicaSpecs.{REPLICA_TYPES[role]}"


def _restart_policy(role: str) -> FieldDecl:
    # Training Operator v1.9.4 pkg/controller.v1/common/pod.go (createNewPod): a pod
    # template's restartPolicy is overwritten by the replica's (core.SetRestartPolicy), with
    # a warning event per pod; so the template's value is moved to the replica spec.
    return FieldDecl("spec.restartPolicy",
                     f"native: {replica_path(role)}.restartPolicy (the operator sets each "
                     "pod's restartPolicy from its replica spec)")


def check_task(task: Task, config: PyTorch) -> None:
    """What every operator refuses in the task itself."""
    if task.command is not None:
        raise DefinitionError("command is not used by PyTorch tasks", task=task.name,
                              field="command",
                              fix="drop command; the function runs in every replica")
    if task.pod_template is not None:
        check_primary_name(task.pod_template, "pod_template")
    if task.task_config is None:  # a task built without a config: the defaults' rule
        config.check_task_name(task.object_name)


def operator_layer(task: Task, context: RenderContext, config: PyTorch, container_name: str,
                   port: dict[str, Any], *, torchrun: bool) -> dict[str, Any]:
    """The operator-owned layer of a training pod: the entrypoint in ``container_name``,
    the operator's rendezvous ``port`` and, with ``shm_size``, the /dev/shm volume."""
    container = _entrypoint(task, context, container_name, torchrun=torchrun)
    container["ports"] = [port]
    spec: dict[str, Any] = {"containers": [container]}
    if config.shm_size:
        container["volumeMounts"] = [{"name": SHM_VOLUME, "mountPath": SHM_PATH}]
        spec["volumes"] = [{"name": SHM_VOLUME,
                            "emptyDir": {"medium": "Memory", "sizeLimit": config.shm_size}}]
    return {"spec": spec}


def _entrypoint(task: Task, context: RenderContext, container_name: str, *,
                torchrun: bool) -> dict[str, Any]:
    """The executor command; elastic workers and Trainer v2 nodes start it with torchrun,
    which takes the interpreter's place and reads the rendezvous settings the operator
    sets (PET_*)."""
    container = function_entrypoint(task, context, container_name)
    if not torchrun:
        return container
    interpreter, *rest = container["command"]
    if interpreter != "python":
        raise PluginError(f"cannot start {container['command']} under torchrun",
                          task=task.name, fix="report this podtemplate-pytorch bug")
    return {**container, "command": ["torchrun"], "args": [*rest, *container["args"]]}

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
from podtemplate.plugin import config_of

from .config import CONTAINER_NAME, PyTorch, check_primary_name

__all__ = [
    "PORT",
    "PORT_NAME",
    "REPLICA_TYPES",
    "SHM_PATH",
    "SHM_VOLUME",
    "define_roles",
]

# The operator reads the master's rendezvous port from the port of this name on the
# pytorch container; 23456 is its default.
PORT_NAME = "pytorchjob-port"
PORT = 23456
SHM_VOLUME = "dshm"
SHM_PATH = "/dev/shm"
# Role name -> replica type, the key under spec.pytorchReplicaSpecs.
REPLICA_TYPES = {"master": "Master", "worker": "Worker"}

# Services and pods are named <job>-<replica type>-<index>: each a DNS-1035 label, a
# letter first and at most 63 characters.
_MAX_NAME = 63

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
_SHM = (
    FieldDecl(f"spec.volumes[{SHM_VOLUME}]",
              "shm_size: a memory-backed emptyDir of that size replaces the /dev/shm volume"),
    FieldDecl(f"spec.containers[primary].volumeMounts[{SHM_PATH}]",
              "shm_size: the shared-memory volume is mounted at /dev/shm"),
)



def define_roles(task: Task, context: RenderContext) -> list[RoleSpec]:
    """``master`` (unless elastic) and ``worker``, in manifest order."""
    config = config_of(task, PyTorch)
    _check_task(task, config)
    layer = _operator_layer(task, context, config)
    owned = _ENTRYPOINT + (_SHM if config.shm_size else ())
    roles = [] if config.elastic is not None else [("master", config.master)]
    roles.append(("worker", config.worker))
    return [
        RoleSpec(name=name, template_path=f"spec.pytorchReplicaSpecs.{REPLICA_TYPES[name]}"
                 ".template", container_name=CONTAINER_NAME, role=role,
                 operator_layer=layer, owned=owned,
                 replicas_path=f"spec.pytorchReplicaSpecs.{REPLICA_TYPES[name]}.replicas"
                 if name == "worker" else None)
        for name, role in roles
    ]


def _check_task(task: Task, config: PyTorch) -> None:
    if task.command is not None:
        raise DefinitionError("command is not used by PyTorch tasks", task=task.name,
                              field="command",
                              fix="drop command; the function runs in every replica")
    if task.pod_template is not None:
        check_primary_name(task.pod_template, "pod_template")
    _check_name(task.name, config)


def _check_name(name: str, config: PyTorch) -> None:
    if not name[:1].isalpha():
        raise DefinitionError(
            f"a PyTorchJob name must start with a letter, got {name!r}", field="name",
            fix="rename the task, e.g. @task(name='train-...'): the operator names "
            "Services after the job (DNS-1035)")
    longest = f"{name}-{REPLICA_TYPES['worker'].lower()}-{config.max_workers() - 1}"
    if len(longest) > _MAX_NAME:
        raise DefinitionError(
            f"the job's pods would be named like {longest!r}, longer than {_MAX_NAME} "
            "characters", field="name",
            fix=f"shorten the task name to at most {_MAX_NAME - len(longest) + len(name)} "
            "characters (@task(name=...))")


def _operator_layer(task: Task, context: RenderContext, config: PyTorch) -> dict[str, Any]:
    container = _entrypoint(task, context, elastic=config.elastic is not None)
    container["ports"] = [{"name": PORT_NAME, "containerPort": PORT, "protocol": "TCP"}]
    spec: dict[str, Any] = {"containers": [container]}
    if config.shm_size:
        container["volumeMounts"] = [{"name": SHM_VOLUME, "mountPath": SHM_PATH}]
        spec["volumes"] = [{"name": SHM_VOLUME,
                            "emptyDir": {"medium": "Memory", "sizeLimit": config.shm_size}}]
    return {"spec": spec}


def _entrypoint(task: Task, context: RenderContext, *, elastic: bool) -> dict[str, Any]:
    """The executor command; elastic workers start it with torchrun, which takes the
    interpreter's place and reads the rendezvous settings the operator sets (PET_*)."""
    container = function_entrypoint(task, context, CONTAINER_NAME)
    if not elastic:
        return container
    interpreter, *rest = container["command"]
    if interpreter != "python":
        raise PluginError(f"cannot start {container['command']} under torchrun",
                          task=task.name, fix="report this podtemplate-pytorch bug")
    return {**container, "command": ["torchrun"], "args": [*rest, *container["args"]]}

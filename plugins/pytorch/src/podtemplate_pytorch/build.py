"""Assemble the ``kubeflow.org/v1 PyTorchJob`` from the resolved role pods."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from podtemplate import (
    DefinitionError,
    RenderContext,
    RoleSpec,
    Task,
    object_metadata,
    place,
    pod_manifest,
)
from podtemplate.plugin import config_of

from .config import CONTAINER_NAME, PyTorch
from .flytekit import replica_restart_policy
from .roles import PORT, PORT_NAME, SHM_PATH, SHM_VOLUME, replica_path

__all__ = ["API_VERSION", "DEFAULT_RESTART_POLICY", "KIND", "add_default_shm", "build_job",
           "check_shm_volume"]

API_VERSION = "kubeflow.org/v1"
KIND = "PyTorchJob"
# A replica's restartPolicy when neither the config nor a template gives one: Never, as
# Flyte's kfoperators plugins set it (flyteidl's RestartPolicy defaults to
# RESTART_POLICY_NEVER); the operator's own default would be OnFailure.
DEFAULT_RESTART_POLICY = "Never"


def build_job(task: Task, roles: Sequence[RoleSpec], pods: Mapping[str, dict[str, Any]],
              context: RenderContext) -> dict[str, Any]:
    """One PyTorchJob holding every role's pod as it was resolved; a standalone elastic
    job's one pod as a ``v1 Pod`` (restartPolicy ``Never`` unless a template says
    otherwise, as Flyte's python-task pods)."""
    config = config_of(task, PyTorch)
    if config.elastic is not None and config.elastic.standalone:
        (role,) = roles
        pod = pods[role.name]
        if config.shm_size is None:
            add_default_shm(pod)
        return pod_manifest(task, pod, context)
    manifest: dict[str, Any] = {"apiVersion": API_VERSION, "kind": KIND,
                                "metadata": object_metadata(task, context), "spec": {}}
    for role in roles:
        pod = pods[role.name]
        _check_operator_fields(pod, config, role.name)
        place(manifest, replica_path(role.name),
              _replica(pod, _replicas(config, role.name), config,
                       replica_restart_policy(getattr(config, role.name))))
    spec = manifest["spec"]
    if config.run_policy is not None:
        spec["runPolicy"] = config.run_policy.to_k8s()
    if config.elastic is not None:
        spec["elasticPolicy"] = config.elastic.to_k8s()
        if config.elastic.nproc_per_node is not None:
            spec["nprocPerNode"] = str(config.elastic.nproc_per_node)
    return manifest


def _replicas(config: PyTorch, role: str) -> int:
    return config.worker_replicas() if role == "worker" else 1


def _replica(pod: dict[str, Any], replicas: int, config: PyTorch, own: str | None
             ) -> dict[str, Any]:
    """A replica spec. The operator sets each pod's restartPolicy from the replica's and
    warns (an event per pod) when the pod template has one, so a template's
    restartPolicy moves to the replica spec, below ``PyTorch(restart_policy=...)``, itself
    below the replica's own (``own``: flytekit's ``Worker(restart_policy=...)``)."""
    from_template = pod["spec"].pop("restartPolicy", None)
    restart = own or config.restart_policy or from_template or DEFAULT_RESTART_POLICY
    return {"replicas": replicas, "restartPolicy": restart, "template": pod}


def _check_operator_fields(pod: dict[str, Any], config: PyTorch, role: str) -> None:
    """What a merge cannot settle: two items under different keys that the operator or
    Kubernetes would take as one."""
    container = next(c for c in pod["spec"]["containers"] if c["name"] == CONTAINER_NAME)
    named = [p for p in container.get("ports") or () if p.get("name") == PORT_NAME]
    if len(named) > 1:
        other = next(p for p in named if (p["containerPort"], p.get("protocol", "TCP"))
                     != (PORT, "TCP"))
        key = f"{other['containerPort']},{other.get('protocol', 'TCP')}"
        raise DefinitionError(
            f"a template names port {key} {PORT_NAME!r}, but that name belongs to the "
            f"operator's port {PORT},TCP", role=role,
            field=f"spec.containers[{CONTAINER_NAME}].ports[{key}].name",
            fix="remove that port or give it another name")
    check_shm_volume(pod, config, role)


def check_shm_volume(pod: dict[str, Any], config: PyTorch, role: str) -> None:
    """Without ``shm_size``, the default /dev/shm (see :func:`add_default_shm`); with it,
    the pod's /dev/shm volume must be the plugin's emptyDir: a template's volume of that
    name in another form would have merged into it."""
    if config.shm_size is None:
        add_default_shm(pod)
    elif config.shm_size:
        volume = next(v for v in pod["spec"]["volumes"] if v["name"] == SHM_VOLUME)
        if set(volume) != {"name", "emptyDir"}:
            raise DefinitionError(
                f"volume {SHM_VOLUME!r} from a template is not an emptyDir, but shm_size "
                f"mounts a memory-backed emptyDir named {SHM_VOLUME!r} at {SHM_PATH}",
                role=role, field=f"spec.volumes[{SHM_VOLUME}]",
                fix=f"rename that volume, or drop shm_size and mount your own at {SHM_PATH}")


def add_default_shm(pod: dict[str, Any]) -> None:
    """A memory-backed, unsized /dev/shm on the training container, as flytekit gives
    PyTorch tasks by default - unless a layer already mounts something at /dev/shm (a
    GPU template's sized one, ``@task(shared_memory=...)``) or has a volume of its name."""
    spec = pod["spec"]
    container = spec["containers"][0]
    mounts = container.get("volumeMounts") or []
    if any(m.get("mountPath") == SHM_PATH for m in mounts) or any(
            v.get("name") == SHM_VOLUME for v in spec.get("volumes") or ()):
        return
    spec["volumes"] = [*(spec.get("volumes") or ()),
                       {"name": SHM_VOLUME, "emptyDir": {"medium": "Memory"}}]
    container["volumeMounts"] = [*mounts, {"name": SHM_VOLUME, "mountPath": SHM_PATH}]

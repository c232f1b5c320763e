"""Assemble a ``kubernetes.dask.org/v1 DaskJob`` from the resolved role pods."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from podtemplate import RenderContext, RoleSpec, Task, object_metadata
from podtemplate.plugin import task_layers

from .config import CONTAINER_NAMES, SCHEDULER_PORTS, Dask
from .crd_schema import layers_known, strip_unknown_fields
from .roles import OPERATOR_ENV, add_worker_flags

__all__ = ["API_VERSION", "KIND", "build_daskjob", "scheduler_service"]

API_VERSION = "kubernetes.dask.org/v1"
KIND = "DaskJob"
_CRD_MESSAGE = (
    "not in the DaskJob CRD's pod schema (Kubernetes 1.21): the API server would prune it, "
    "so it is left out of the manifest (fix: drop it from this task's templates, or "
    "regenerate podtemplate_dask/_crd_fields.py from a newer dask-kubernetes CRD)")


def build_daskjob(task: Task, config: Dask, roles: Sequence[RoleSpec],
                  pods: Mapping[str, dict[str, Any]], context: RenderContext
                  ) -> dict[str, Any]:
    """The DaskJob; the pods are placed as they are (the plugin owns them)."""
    for role_spec in roles:
        role = role_spec.name
        _report_crd_unknown(task, role_spec, pods[role], context)
        _warn_operator_env(task, role, pods[role], context)
    add_worker_flags(pods["worker"])
    job = pods["job-runner"]
    # The task runs once unless its template says so (the CRD's default is OnFailure).
    job["spec"].setdefault("restartPolicy", "Never")
    scheduler = {**pods["scheduler"], "service": scheduler_service(task.name)}
    worker = {"replicas": config.worker_replicas(), **pods["worker"]}
    cluster: dict[str, Any] = {}
    if config.idle_timeout is not None:
        cluster["idleTimeout"] = config.idle_timeout
    cluster.update(scheduler=scheduler, worker=worker)
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "metadata": object_metadata(task, context),
        "spec": {"job": job, "cluster": {"spec": cluster}},
    }


def scheduler_service(cluster_name: str) -> dict[str, Any]:
    """The scheduler Service spec: both scheduler ports, selected by the labels the
    operator puts on the scheduler pod of the cluster it names after the DaskJob."""
    return {
        "type": "ClusterIP",
        "selector": {"dask.org/cluster-name": cluster_name, "dask.org/component": "scheduler"},
        "ports": [{"name": name, "protocol": "TCP", "port": number, "targetPort": name}
                  for name, number in SCHEDULER_PORTS],
    }


def _report_crd_unknown(task: Task, role_spec: RoleSpec, pod: dict[str, Any],
                        context: RenderContext) -> None:
    role = role_spec.name
    layers = task_layers(task, role_spec, context, CONTAINER_NAMES[role])
    if layers_known(layers, role_spec.operator_layer, role, context):
        return
    for path in strip_unknown_fields(pod, role):
        context.warn(_CRD_MESSAGE, task=task.name, role=role, field=path)


def _warn_operator_env(task: Task, role: str, pod: dict[str, Any],
                       context: RenderContext) -> None:
    """The operator appends its own value of these env vars, which wins over a template's."""
    owned = OPERATOR_ENV[role]
    for container in pod["spec"]["containers"]:
        for entry in container.get("env") or ():
            if entry.get("name") in owned:
                context.warn(f"{entry['name']} is set by the dask-kubernetes operator; this "
                             "value is replaced when the pod is created", task=task.name,
                             role=role, field=f"spec.containers[{container['name']}].env"
                             f"[{entry['name']}]")

"""Assemble a ``kubernetes.dask.org/v1 DaskJob`` from the resolved role pods."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from podtemplate import DefinitionError, RenderContext, RoleSpec, Task, object_metadata
from podtemplate.plugin import object_name

from .config import SCHEDULER_PORTS, Dask, runner_restart_policy
from .crd_schema import strip_unknown_fields
from .roles import OPERATOR_ENV, OPERATOR_ENV_HARM, add_worker_flags

__all__ = ["API_VERSION", "KIND", "build_daskjob", "scheduler_service"]

API_VERSION = "kubernetes.dask.org/v1"
KIND = "DaskJob"
_CRD_MESSAGE = (
    "not in the DaskJob CRD's pod schema (Kubernetes 1.21): the API server would prune it, "
    "so it is left out of the manifest (fix: drop it from this task's templates, or "
    "ship a newer dask-kubernetes CRD in podtemplate_dask/crds with podtemplate crd slim)")


def build_daskjob(task: Task, config: Dask, roles: Sequence[RoleSpec],
                  pods: Mapping[str, dict[str, Any]], context: RenderContext
                  ) -> dict[str, Any]:
    """The DaskJob; the pods are placed as they are (the plugin owns them)."""
    for role_spec in roles:
        role = role_spec.name
        _report_crd_unknown(task, role, pods[role], context)
        _strip_operator_env(task, role, pods[role], context)
    add_worker_flags(pods["worker"])
    job = pods["job-runner"]
    job["spec"]["restartPolicy"] = runner_restart_policy(job["spec"].get("restartPolicy"),
                                                         task=task.name)
    scheduler = {**pods["scheduler"], "service": scheduler_service(object_name(task, context))}
    worker = {"replicas": config.worker_replicas(), **pods["worker"]}
    cluster: dict[str, Any] = {"scheduler": scheduler, "worker": worker}
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


def _report_crd_unknown(task: Task, role: str, pod: dict[str, Any],
                        context: RenderContext) -> None:
    stripped = strip_unknown_fields(pod, role)
    for volume in (pod.get("spec") or {}).get("volumes") or ():
        # A volume left without a source would become an emptyDir (the API server
        # defaults one before it validates): the data it named would silently be lost.
        name = volume.get("name")
        if list(volume) == ["name"] and any(p.startswith(f"spec.volumes[{name}].")
                                            for p in stripped):
            raise DefinitionError(
                f"the DaskJob CRD's pod schema (Kubernetes 1.21) prunes the only source of "
                f"volume {name!r}: the API server would make it an empty emptyDir",
                task=task.name, role=role, field=f"spec.volumes[{name}]",
                fix="use a volume source Kubernetes 1.21 has (a persistentVolumeClaim, "
                "a configMap...) for Dask tasks")
    for path in stripped:
        context.warn(_CRD_MESSAGE, task=task.name, role=role, field=path)


def _strip_operator_env(task: Task, role: str, pod: dict[str, Any],
                        context: RenderContext) -> None:
    """Remove the operator's env vars from every container of the pod, with a warning.

    dask-kubernetes 2025.4.3, controller.py (build_worker_deployment_spec,
    build_job_pod_spec) adds DASK_SCHEDULER_ADDRESS / DASK_WORKER_NAME to a container only
    when the container does not set them: a template's value would win."""
    owned = OPERATOR_ENV[role]
    for index, container in enumerate(pod["spec"]["containers"]):
        env = container.get("env")
        if not env or not any(entry.get("name") in owned for entry in env):
            continue
        for entry in env:
            if entry.get("name") in owned:
                context.warn(f"{entry['name']} is removed: the dask-kubernetes operator sets "
                             "it only where a container does not, so this value would win "
                             f"({OPERATOR_ENV_HARM[entry['name']]})", task=task.name,
                             role=role, field=f"spec.containers[{container['name']}].env"
                             f"[{entry['name']}]")
        kept = [entry for entry in env if entry.get("name") not in owned]
        container = pod["spec"]["containers"][index]  # the build owns the pods it gets
        if kept:
            container["env"] = kept
        else:
            del container["env"]

"""Assemble the ``ray.io/v1 RayJob`` from the resolved role pods."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from podtemplate import RenderContext, Task, object_metadata

from .config import Head, Ray, WorkerGroup, ray_start_params
from .entrypoint import ray_entrypoint, runtime_env_yaml
from .roles import HEAD, SUBMITTER, worker_role_name

__all__ = ["API_VERSION", "KIND", "build_rayjob"]

API_VERSION = "ray.io/v1"
KIND = "RayJob"
# The submitter pod template only applies when KubeRay submits through a Kubernetes Job.
SUBMISSION_MODE = "K8sJobMode"
# The submitter reaches the dashboard from another pod: the head must listen on all
# interfaces. A user's own value wins.
HEAD_DEFAULT_PARAMS = {"dashboard-host": "0.0.0.0"}


def build_rayjob(task: Task, config: Ray, pods: Mapping[str, dict[str, Any]],
                 context: RenderContext) -> dict[str, Any]:
    """The RayJob; the role pods are placed as they are (core hands them over)."""
    spec: dict[str, Any] = {"entrypoint": ray_entrypoint(task, context)}
    if config.runtime_env:
        spec["runtimeEnvYAML"] = runtime_env_yaml(config.runtime_env)
    spec["shutdownAfterJobFinishes"] = config.shutdown_after_job_finishes
    if config.ttl_seconds_after_finished is not None:
        spec["ttlSecondsAfterFinished"] = config.ttl_seconds_after_finished
    spec["submissionMode"] = SUBMISSION_MODE
    spec["rayClusterSpec"] = _cluster_spec(config, pods)
    spec["submitterPodTemplate"] = pods[SUBMITTER]
    return {"apiVersion": API_VERSION, "kind": KIND,
            "metadata": object_metadata(task, context), "spec": spec}


def _cluster_spec(config: Ray, pods: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
    cluster: dict[str, Any] = {}
    if config.ray_version is not None:
        cluster["rayVersion"] = config.ray_version
    cluster["enableInTreeAutoscaling"] = config.enable_autoscaling
    if config.autoscaler_options is not None:
        cluster["autoscalerOptions"] = config.autoscaler_options.to_k8s()
    cluster["headGroupSpec"] = {"rayStartParams": _head_params(config), "template": pods[HEAD]}
    cluster["workerGroupSpecs"] = [_worker_group(config, group, pods[worker_role_name(group)])
                                   for group in config.groups]
    return cluster


def _common_params(config: Ray) -> dict[str, str]:
    return ray_start_params(config.ray_start_params, field="task_config.ray_start_params")


def _head_params(config: Ray) -> dict[str, str]:
    own = config.head.ray_start_params if isinstance(config.head, Head) else None
    return {**HEAD_DEFAULT_PARAMS, **_common_params(config),
            **ray_start_params(own, field="task_config.head.ray_start_params")}


def _worker_group(config: Ray, group: WorkerGroup, pod: dict[str, Any]) -> dict[str, Any]:
    field = f"task_config.worker_groups[{group.name}].ray_start_params"
    return {
        "groupName": group.group_name,
        "replicas": group.effective_replicas,
        "minReplicas": group.effective_min,
        "maxReplicas": group.effective_max,
        "rayStartParams": {**_common_params(config),
                           **ray_start_params(group.ray_start_params, field=field)},
        "template": pod,
    }

"""flytekitplugins-ray's spellings, kept for ported code (docs/from-flytekit.md):
``RayJobConfig``, ``HeadNodeConfig`` and ``WorkerNodeConfig`` build :class:`Ray`,
:class:`Head` and :class:`WorkerGroup`, each with a one-time warning naming ours."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from podtemplate import DefinitionError, PodTemplate, Resources, Role
from podtemplate.plugin import warn_alias

from .config import Head, Ray, RayStartValue, WorkerGroup

__all__ = ["HeadNodeConfig", "RayJobConfig", "WorkerNodeConfig"]


def HeadNodeConfig(ray_start_params: dict[str, RayStartValue] | None = None,
                   pod_template: PodTemplate | None = None, requests: Resources | None = None,
                   limits: Resources | None = None) -> Head:
    """flytekit's head config: a :class:`Head` role."""
    warn_alias("HeadNodeConfig(...)", "Head(...)")
    return Head(ray_start_params=ray_start_params, pod_template=pod_template,
                requests=requests, limits=limits)


def WorkerNodeConfig(group_name: str, replicas: int, min_replicas: int | None = None,
                     max_replicas: int | None = None,
                     ray_start_params: dict[str, RayStartValue] | None = None,
                     pod_template: PodTemplate | None = None,
                     requests: Resources | None = None,
                     limits: Resources | None = None) -> WorkerGroup:
    """flytekit's worker group config: a :class:`WorkerGroup` named ``group_name``."""
    warn_alias("WorkerNodeConfig(group_name=...)", "WorkerGroup(name=...)")
    return WorkerGroup(name=group_name, replicas=replicas, min_replicas=min_replicas,
                       max_replicas=max_replicas, ray_start_params=ray_start_params,
                       pod_template=pod_template, requests=requests, limits=limits)


def RayJobConfig(worker_node_config: Sequence[WorkerGroup] | WorkerGroup | None = None,
                 head_node_config: Head | Role | None = None, *, address: str | None = None,
                 **same: Any) -> Ray:
    """flytekit's job config: :class:`Ray` with ``head`` and ``worker_groups``;
    ``enable_autoscaling``, ``runtime_env``, ``shutdown_after_job_finishes`` and
    ``ttl_seconds_after_finished`` mean the same and pass as they are. ``address`` (an
    existing cluster to join) has no equivalent: a RayJob always brings its cluster."""
    warn_alias("RayJobConfig(...)", "Ray(head=..., worker_groups=[...])")
    if address is not None:
        raise DefinitionError(
            "RayJobConfig(address=...) joins an existing Ray cluster; a RayJob brings its "
            "own", field="task_config.address",
            fix="drop address=; to run on a long-lived cluster, submit to it with "
            "`ray job submit` instead of rendering a RayJob")
    groups = ([worker_node_config] if isinstance(worker_node_config, WorkerGroup)
              else list(worker_node_config or ()))
    return Ray(head=head_node_config, worker_groups=groups, **same)

"""The Ray task config: ``Ray(...)`` with its head, worker groups and submitter.

Everything is checked here, when the config is built, so a bad config fails at definition
time (import of the task module), never half way through a render.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from podtemplate import ConfigModel, DefinitionError, Role
from podtemplate.plugin import (
    MAX_OBJECT_NAME,
    Int32,
    check_dns1035_label,
    check_task_name,
    derive_object_name,
    scalar_text,
)
from pydantic import field_validator, model_validator

from .autoscaler import AutoscalerOptions

__all__ = ["Head", "MAX_RAYJOB_NAME", "Ray", "RayStartValue", "WORKER_LABEL_PREFIX",
           "WorkerGroup", "ray_start_params"]

RayStartValue = str | int | float | bool
# KubeRay v1.7.0, ray-operator/controllers/ray/utils/validation.go (ValidateRayJobMetadata):
# a RayJob name is a DNS-1035 label of at most MaxRayJobNameLength (47) characters, room for
# the suffix of the RayCluster it is named after.
MAX_RAYJOB_NAME = 47
# A group's pods carry the role label "worker-<group name>" (core's role_label_value of
# "worker:<group name>"): a label value has at most 63 characters.
WORKER_LABEL_PREFIX = "worker-"
_MAX_GROUP_NAME = MAX_OBJECT_NAME - len(WORKER_LABEL_PREFIX)


def ray_start_params(params: Mapping[str, RayStartValue] | None, *, field: str
                     ) -> dict[str, str]:
    """``rayStartParams`` as KubeRay takes them: a map of strings, keys without ``--``.
    Booleans become ``"true"``/``"false"``."""
    if params is not None and not isinstance(params, Mapping):
        raise DefinitionError(f"ray start parameters must be a dict, not {type(params).__name__}",
                              field=field, fix="write them as {'num-cpus': '4', ...}")
    out: dict[str, str] = {}
    for key, value in (params or {}).items():
        where = f"{field}.{key}"
        if not isinstance(key, str) or not key or key.startswith("-") or any(
                c.isspace() for c in key):
            raise DefinitionError(
                f"ray start parameter name {key!r} is not valid", field=where,
                fix="write the flag name without leading dashes, e.g. {'num-cpus': '4'}")
        text = scalar_text(value)
        if text is None:
            raise DefinitionError(
                f"ray start parameter {key!r} must be a string, number or boolean, "
                f"not {type(value).__name__}", field=where,
                fix="give the value as it would follow the flag on the command line")
        out[key] = text
    return out


def _checks_start_params(field: str) -> Any:
    """The validator of a model's ``ray_start_params``, checked as given (``field`` names
    them in an error); the model keeps them as given and ``ray_start_params`` turns them
    into KubeRay's strings when the manifest is built."""

    def check(cls: type, value: Any) -> Any:
        ray_start_params(value, field=field)
        return value

    return field_validator("ray_start_params", mode="before")(check)


class Head(Role):
    """The Ray head pod: a :class:`~podtemplate.Role` plus its own ``ray start``
    parameters (merged over :attr:`Ray.ray_start_params`). ``replicas`` must stay unset:
    a Ray cluster has exactly one head."""

    ray_start_params: dict[str, RayStartValue] | None = None

    _params = _checks_start_params("task_config.head.ray_start_params")


class WorkerGroup(Role):
    """One Ray worker group: ``workerGroupSpecs[]`` of the RayJob, role ``worker:<name>``.

    ``replicas`` is the starting size (default: ``min_replicas``, else 1);
    ``min_replicas``/``max_replicas`` bound it and are the autoscaler's range when
    ``Ray(enable_autoscaling=True)``; a bound left unset follows ``replicas`` (so a group
    with neither has a fixed size). ``name`` must be
    a DNS-1123 label of at most 56 characters: KubeRay puts it into pod names and the
    ``ray.io/group`` label, and the group's pods carry ``podtemplate.io/role:
    worker-<name>`` (the role is still called ``worker:<name>`` everywhere else).
    """

    name: str
    replicas: Int32 | None = None
    min_replicas: Int32 | None = None
    max_replicas: Int32 | None = None
    ray_start_params: dict[str, RayStartValue] | None = None

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        try:
            check_task_name(value)
        except DefinitionError:
            raise DefinitionError(
                f"worker group name {value!r} is not valid",
                field="task_config.worker_groups[].name",
                fix="use letters, digits, '_', '.' and '-' (test_group will do)") from None
        return value

    @property
    def group_name(self) -> str:
        """The ``groupName`` KubeRay gets: the name by the object-name rule (``test_group``
        → ``test-group``; KubeRay puts it into pod names), short enough that the group's
        pods' role label ``worker-<group>`` stays within 63 characters."""
        return derive_object_name(self.name, _MAX_GROUP_NAME)

    _params = _checks_start_params("task_config.worker_groups[].ray_start_params")

    @model_validator(mode="after")
    def _replicas(self) -> WorkerGroup:  # replaces Role's check: a Ray group may be empty
        where = f"task_config.worker_groups[{self.name}]"
        for label in ("replicas", "min_replicas", "max_replicas"):
            value = getattr(self, label)
            if value is not None and value < 0:
                raise DefinitionError(f"worker group {self.name!r}: {label} must not be "
                                      f"negative, got {value}", field=f"{where}.{label}",
                                      fix=f"set {label} >= 0")
        low, high, start = self.effective_min, self.effective_max, self.effective_replicas
        if low > high:  # both given: a missing bound follows replicas
            raise DefinitionError(
                f"worker group {self.name!r}: min_replicas {low} is greater than "
                f"max_replicas {high}", field=f"{where}.min_replicas",
                fix="set min_replicas <= max_replicas")
        if not low <= start <= high:
            raise DefinitionError(
                f"worker group {self.name!r}: replicas {start} is outside "
                f"[min_replicas {low}, max_replicas {high}]", field=f"{where}.replicas",
                fix="set min_replicas <= replicas <= max_replicas")
        return self

    @property
    def effective_replicas(self) -> int:
        if self.replicas is not None:
            return self.replicas
        return self.min_replicas if self.min_replicas is not None else 1

    @property
    def effective_min(self) -> int:
        if self.min_replicas is not None:
            return self.min_replicas
        start = self.effective_replicas
        return start if self.max_replicas is None else min(start, self.max_replicas)

    @property
    def effective_max(self) -> int:
        if self.max_replicas is not None:
            return self.max_replicas
        return max(self.effective_replicas, self.min_replicas or 0)


class Ray(ConfigModel):
    """``task_config`` of a Ray task: the function runs as the entrypoint of a
    ``ray.io/v1 RayJob`` (KubeRay), on a Ray cluster of one head and the worker groups.

    - ``head``: the head pod's role (a :class:`Head` or a plain :class:`~podtemplate.Role`).
    - ``worker_groups``: one :class:`WorkerGroup` per ``workerGroupSpecs[]`` entry; none
      runs everything on the head.
    - ``submitter``: the role of the pod that runs ``ray job submit``. It takes only the
      task's scheduling fields, never its resources (see the plugin README).
    - ``runtime_env``: Ray's runtime environment, emitted as ``runtimeEnvYAML``.
    - ``ray_start_params``: ``ray start`` parameters of every Ray node (head and workers);
      a head's or group's own parameters win.
    - ``enable_autoscaling``: KubeRay's in-tree autoscaler within each group's range;
      ``autoscaler_options``: its :class:`AutoscalerOptions` (idle timeout, upscaling
      mode, image, env, resources).
    - ``shutdown_after_job_finishes`` / ``ttl_seconds_after_finished``: when KubeRay
      deletes the cluster after the job.
    - ``ray_version``: ``rayClusterSpec.rayVersion`` (the autoscaler image), if set.
    """

    task_type: ClassVar[str] = "ray"
    object_name_limit: ClassVar[int] = MAX_RAYJOB_NAME

    head: Role | None = None
    worker_groups: list[WorkerGroup] | None = None
    submitter: Role | None = None
    runtime_env: dict[str, Any] | None = None
    ray_start_params: dict[str, RayStartValue] | None = None
    enable_autoscaling: bool = False
    autoscaler_options: AutoscalerOptions | None = None
    shutdown_after_job_finishes: bool = True
    ttl_seconds_after_finished: Int32 | None = None
    ray_version: str | None = None

    _params = _checks_start_params("task_config.ray_start_params")

    @model_validator(mode="after")
    def _check(self) -> Ray:
        for label, role in (("head", self.head), ("submitter", self.submitter)):
            if role is not None and role.replicas is not None:
                raise DefinitionError(
                    f"the {label} is one pod; replicas={role.replicas} cannot be set",
                    field=f"task_config.{label}.replicas", fix="drop replicas")
        self._check_groups()
        if self.autoscaler_options is not None and not self.enable_autoscaling:
            raise DefinitionError(
                "autoscaler_options without enable_autoscaling=True: KubeRay runs no "
                "autoscaler to take them", field="task_config.autoscaler_options",
                fix="add enable_autoscaling=True, or drop autoscaler_options")
        self._check_runtime_env()
        self._check_cleanup()
        if self.ray_version is not None and not self.ray_version.strip():
            raise DefinitionError("ray_version is empty", field="task_config.ray_version",
                                  fix="give the Ray version of the image, e.g. '2.41.0'")
        return self

    def _check_groups(self) -> None:
        seen: set[str] = set()
        for group in self.worker_groups or ():
            if group.group_name in seen:
                raise DefinitionError(
                    f"two worker groups are named {group.group_name!r} (as KubeRay gets "
                    "their names)", field=f"task_config.worker_groups[{group.name}].name",
                    fix="give every worker group its own name")
            seen.add(group.group_name)

    def _check_runtime_env(self) -> None:
        try:
            json.dumps(self.runtime_env, allow_nan=False)
        except (TypeError, ValueError) as error:
            raise DefinitionError(
                f"runtime_env is not plain data: {error}", field="task_config.runtime_env",
                fix="use only dicts with string keys, lists, strings, numbers and booleans"
            ) from None

    def _check_cleanup(self) -> None:
        ttl = self.ttl_seconds_after_finished
        field = "task_config.ttl_seconds_after_finished"
        if ttl is not None and ttl < 0:
            raise DefinitionError(f"ttl_seconds_after_finished must not be negative, got {ttl}",
                                  field=field, fix="set ttl_seconds_after_finished >= 0")
        if ttl and not self.shutdown_after_job_finishes:
            raise DefinitionError(
                "ttl_seconds_after_finished needs shutdown_after_job_finishes=True "
                "(KubeRay rejects a TTL for a cluster it does not shut down)", field=field,
                fix="drop ttl_seconds_after_finished or set shutdown_after_job_finishes=True")

    def check_task_name(self, name: str) -> None:
        check_dns1035_label(name, what="Ray task name", max_length=MAX_RAYJOB_NAME,
                            why="KubeRay's RayJob name rule")

    @property
    def groups(self) -> tuple[WorkerGroup, ...]:
        return tuple(self.worker_groups or ())

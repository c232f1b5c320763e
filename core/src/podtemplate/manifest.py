"""Helpers for plugins assembling manifests from resolved pods."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .context import RenderContext
from .model.task import Task

__all__ = [
    "DEFAULT_CONTAINER_ANNOTATION",
    "ROLE_LABEL",
    "role_label_value",
    "SYSTEM_LABELS",
    "TASK_LABEL",
    "TASK_TYPE_LABEL",
    "get_path",
    "object_metadata",
    "place",
    "pod_manifest",
]

# The labels podtemplate puts on every object and pod it renders, spelled here only.
TASK_LABEL = "podtemplate.io/task"
TASK_TYPE_LABEL = "podtemplate.io/task-type"
ROLE_LABEL = "podtemplate.io/role"  # on pods only
SYSTEM_LABELS = (TASK_LABEL, TASK_TYPE_LABEL, ROLE_LABEL)
_NOT_IN_LABEL_VALUE = re.compile(r"[^A-Za-z0-9_.-]")


def role_label_value(role: str) -> str:
    """A role name as the value of ``ROLE_LABEL``: the API server refuses a label value
    holding anything but alphanumerics, ``-``, ``_`` and ``.``, so Ray's ``worker:cpu``
    is labelled ``worker-cpu`` (the role keeps its name everywhere else)."""
    return _NOT_IN_LABEL_VALUE.sub("-", role)
DEFAULT_CONTAINER_ANNOTATION = "kubectl.kubernetes.io/default-container"


def object_metadata(task: Task, context: RenderContext, *, name: str | None = None,
                    labels: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``metadata`` of a task's object: its DNS-1123 name, namespace and task labels."""
    metadata: dict[str, Any] = {"name": name or task.name}
    if context.namespace:
        metadata["namespace"] = context.namespace
    metadata["labels"] = {
        **dict(labels or {}),
        TASK_LABEL: task.name,
        TASK_TYPE_LABEL: task.task_type,
    }
    return metadata


def pod_manifest(task: Task, pod: dict[str, Any], context: RenderContext, *,
                 name: str | None = None) -> dict[str, Any]:
    """A ``v1 Pod`` from a resolved PodTemplateSpec (reused, not copied)."""
    metadata = {**object_metadata(task, context, name=name), **pod.get("metadata", {})}
    metadata["name"] = name or task.name
    if context.namespace:
        metadata["namespace"] = context.namespace
    spec = pod["spec"]
    spec.setdefault("restartPolicy", "Never")  # a task runs once unless its template says so
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


def place(manifest: dict[str, Any], path: str, value: Any) -> None:
    """Set ``value`` at a dotted ``path`` inside ``manifest``, creating maps on the way."""
    node = manifest
    *parents, last = path.split(".")
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = value


def get_path(manifest: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted ``path`` (``""`` is the manifest itself), or None. A part may
    index a list, for roles kept in one (KubeRay's
    ``spec.rayClusterSpec.workerGroupSpecs[1].template``)."""
    node: Any = manifest
    for part in filter(None, path.split(".")):
        key, *indexes = part.split("[")
        if key:
            if not isinstance(node, Mapping):
                return None
            node = node.get(key)
        for index in indexes:
            digits = index.removesuffix("]")
            if not digits.isdigit() or not isinstance(node, list) or int(digits) >= len(node):
                return None
            node = node[int(digits)]
    return node

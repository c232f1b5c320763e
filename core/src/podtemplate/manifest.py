"""Helpers for plugins assembling manifests from resolved pods."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .context import RenderContext
from .errors import PluginError
from .model.naming import object_name_limit, with_run_id
from .model.task import Task

if TYPE_CHECKING:
    from .model.roles import RoleSpec

__all__ = [
    "DEFAULT_CONTAINER_ANNOTATION",
    "ROLE_LABEL",
    "role_label_value",
    "system_labels",
    "SYSTEM_LABELS",
    "TASK_LABEL",
    "TASK_TYPE_LABEL",
    "RUN_LABEL",
    "add_system_metadata",
    "TASK_NAME_ANNOTATION",
    "copy_path",
    "get_path",
    "object_metadata",
    "object_name",
    "system_annotations",
    "place",
    "pod_manifest",
    "primary_container",
]

# The labels podtemplate puts on every object and pod it renders, spelled here only.
TASK_LABEL = "podtemplate.io/task"
TASK_TYPE_LABEL = "podtemplate.io/task-type"
ROLE_LABEL = "podtemplate.io/role"  # on pods only
RUN_LABEL = "podtemplate.io/run"  # on objects and pods of a render given a run id
# The task name as written (``task_1``), on objects and pods whose object name differs.
TASK_NAME_ANNOTATION = "podtemplate.io/task-name"
SYSTEM_LABELS = (TASK_LABEL, TASK_TYPE_LABEL, ROLE_LABEL)
_NOT_IN_LABEL_VALUE = re.compile(r"[^A-Za-z0-9_.-]")


@functools.lru_cache(maxsize=256)
def role_label_value(role: str) -> str:
    """A role name as the value of ``ROLE_LABEL``: the API server refuses a label value
    holding anything but alphanumerics, ``-``, ``_`` and ``.``, so Ray's ``worker:cpu``
    is labelled ``worker-cpu`` (the role keeps its name everywhere else)."""
    return _NOT_IN_LABEL_VALUE.sub("-", role)
DEFAULT_CONTAINER_ANNOTATION = "kubectl.kubernetes.io/default-container"


def object_name(task: Task, context: RenderContext, suffix: str = "") -> str:
    """The name of a task's main object: its object name, with ``-<run id>`` when the
    render has one. A further object of the task is named with ``suffix``
    (``<object name>-<suffix>-<run id>``): the run id always ends the name."""
    base = f"{task.object_name}-{suffix}" if suffix else task.object_name
    return with_run_id(base, context.run_id, object_name_limit(task.task_config))


def system_labels(task: Task, context: RenderContext) -> dict[str, str]:
    """The labels podtemplate puts on every object and pod of a task (not the role)."""
    labels = {TASK_LABEL: task.object_name, TASK_TYPE_LABEL: task.task_type}
    if context.run_id:
        labels[RUN_LABEL] = context.run_id
    return labels


def system_annotations(task: Task) -> dict[str, str]:
    """The task name as written, where the object name differs from it."""
    return {} if task.name == task.object_name else {TASK_NAME_ANNOTATION: task.name}


def add_system_metadata(pod: dict[str, Any], task: Task, role: str, primary: str,
                        context: RenderContext) -> None:
    """The system labels and annotations of a role's resolved pod (``pod``: a
    PodTemplateSpec, changed in place)."""
    metadata = pod["metadata"]
    # New dicts: a resolved pod's labels and annotations may be a template's (copy-on-write).
    labels = metadata["labels"] = {**(metadata.get("labels") or {}),
                                   **system_labels(task, context)}
    labels[ROLE_LABEL] = role_label_value(role)
    annotations = metadata["annotations"] = dict(metadata.get("annotations") or {})
    annotations[DEFAULT_CONTAINER_ANNOTATION] = primary
    annotations.update(system_annotations(task))


def copy_path(root: dict[str, Any], *path: str | int) -> Any:
    """The object at ``path`` inside ``root``, made safe to change: each dict or list on
    the way (``root`` itself excepted) is replaced in its parent by a shallow copy. For
    resolution's plain fold, whose pods share subtrees with their layers until they are
    handed over (plugins get pods of their own and need no such copy)."""
    node: Any = root
    for key in path:
        child = node[key]
        if isinstance(child, dict):
            child = dict(child)
        elif isinstance(child, list):
            child = list(child)
        else:
            raise TypeError(f"copy_path: {key!r} holds {type(child).__name__}, not an "
                            "object or a list")
        node[key] = child
        node = child
    return node


def object_metadata(task: Task, context: RenderContext, *, name: str | None = None,
                    labels: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``metadata`` of a task's object: its name (:func:`object_name` unless given),
    namespace, the task's labels and annotations."""
    metadata: dict[str, Any] = {"name": name or object_name(task, context)}
    if context.namespace:
        metadata["namespace"] = context.namespace
    metadata["labels"] = {**dict(labels or {}), **system_labels(task, context)}
    annotations = system_annotations(task)
    if annotations:
        metadata["annotations"] = annotations
    return metadata


def pod_manifest(task: Task, pod: dict[str, Any], context: RenderContext, *,
                 name: str | None = None) -> dict[str, Any]:
    """A ``v1 Pod`` from a resolved PodTemplateSpec (reused, not copied)."""
    metadata = {**object_metadata(task, context, name=name), **pod.get("metadata", {})}
    metadata["name"] = name or object_name(task, context)
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
    for key in _segments(path):
        if type(key) is str:
            if not isinstance(node, Mapping):
                return None
            node = node.get(key)
        elif type(key) is int and isinstance(node, list) and key < len(node):
            node = node[key]
        else:
            return None
    return node


@functools.lru_cache(maxsize=256)
def _segments(path: str) -> tuple[str | int | None, ...]:
    """A dotted path's keys and list indexes (None for an index that is not a number)."""
    segments: list[str | int | None] = []
    for part in filter(None, path.split(".")):
        key, *indexes = part.split("[")
        if key:
            segments.append(key)
        for index in indexes:
            digits = index.removesuffix("]")
            segments.append(int(digits) if digits.isdigit() else None)
    return tuple(segments)


def primary_container(pod: Mapping[str, Any], role: RoleSpec | None = None) -> dict[str, Any]:
    """The primary container of a role's resolved pod (a ``v1 Pod`` or a PodTemplateSpec):
    the one named ``role.container_name`` (``pytorch`` on a PyTorchJob's pods), else the
    one the pod's ``kubectl.kubernetes.io/default-container`` annotation names (core sets
    it on every pod it resolves), else the first container. A :class:`PluginError` when
    the pod has no such container."""
    spec = pod.get("spec") or {}
    containers = spec.get("containers") or []
    name = (role.container_name if role is not None else None) or (
        (pod.get("metadata") or {}).get("annotations") or {}).get(DEFAULT_CONTAINER_ANNOTATION)
    if name is None and containers:
        first: dict[str, Any] = containers[0]
        return first
    for container in containers:
        if container.get("name") == name:
            found: dict[str, Any] = container
            return found
    raise PluginError(f"the pod has no primary container {name!r}" if name else
                      "the pod has no container",
                      role=role.name if role is not None else None, field="spec.containers",
                      fix="pass the pod found at the role's template_path, as resolved")

"""What passes between core and a task type's build: the resolved pods handed over as the
plugin's own, and the pods found in the manifests it returns, with what it changed in
them (so that the checks judge what is written, however the build made it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .manifest import ROLE_LABEL, get_path, role_label_value
from .model.apiserver import check_fragment
from .model.podspec import check_pod_spec, raise_api_problems
from .model.roles import RoleSpec

__all__ = ["BuiltPod", "built_pods", "check_changes", "independent"]

_POD_PARTS = ("metadata", "spec")  # what a PodTemplateSpec holds (a Pod also has more)
_ABSENT = object()


def independent(value: Any) -> Any:
    """A copy of ``value`` sharing no dict or list with it, nor within itself: what a
    plugin is handed is its own to change (strings and numbers, immutable, are shared).
    The one place where the ownership rule costs time."""
    if type(value) is dict:
        copy = value.copy()
        for key, item in copy.items():
            if type(item) is dict or type(item) is list:
                copy[key] = independent(item)
        return copy
    if type(value) is list:
        items = value.copy()
        for index, item in enumerate(items):
            if type(item) is dict or type(item) is list:
                items[index] = independent(item)
        return items
    return value


@dataclass(frozen=True)
class BuiltPod:
    """A role's pod as the build left it, and what the build changed in it.

    ``pod`` is found in a manifest at the role's ``template_path`` (``placed``), else it
    is the pod handed to the build. ``changes`` holds the ``metadata`` and ``spec``
    members that differ from the resolved pod: an object some of whose members differ
    holds only those, any other value is taken whole (a list that differs, with every
    item)."""

    role: str
    pod: dict[str, Any]
    changes: dict[str, Any]
    placed: bool


def built_pods(roles: Sequence[RoleSpec], manifests: Sequence[dict[str, Any]],
               resolved: Mapping[str, dict[str, Any]], handed: Mapping[str, dict[str, Any]]
               ) -> list[BuiltPod]:
    """Every role's pod in ``manifests`` (a role may have one in several), in role order:
    what sits at the role's ``template_path``, unless its role label names another role;
    for a role found in none, the pod handed to the build."""
    found: list[BuiltPod] = []
    for role in roles:
        before = resolved[role.name]
        label = role_label_value(role.name)
        placed = [pod for manifest in manifests
                  if type(pod := get_path(manifest, role.template_path)) is dict
                  and type(pod.get("spec")) is dict and _of_role(pod, label)]
        for pod in placed or [handed[role.name]]:
            changes = _changes({key: pod[key] for key in _POD_PARTS if key in pod}, before)
            found.append(BuiltPod(role.name, pod, changes, bool(placed)))
    return found


def _of_role(pod: Mapping[str, Any], label: str) -> bool:
    """Whether ``pod`` may be the role's: the role label, if the pod has one, names it
    (roles whose pods sit at one path, each its own ``v1 Pod``, are told apart by it)."""
    metadata = pod.get("metadata")
    labels = metadata.get("labels") if isinstance(metadata, Mapping) else None
    return not isinstance(labels, Mapping) or labels.get(ROLE_LABEL, label) == label


def _changes(new: Mapping[str, Any], old: Any) -> dict[str, Any]:
    """The members of ``new`` that differ from ``old``'s (compared with ``==``)."""
    if type(old) is not dict:
        return dict(new)
    changed: dict[str, Any] = {}
    for key, value in new.items():
        before = old.get(key, _ABSENT)
        if value is before or (type(value) is type(before) and value == before):
            continue
        if type(value) is dict and type(before) is dict:
            changed[key] = _changes(value, before)
        else:
            changed[key] = value
    return changed


def check_changes(changes: Mapping[str, Any] | None) -> None:
    """What the build changed in a pod, judged as a template layer is: field names and
    types, enumerations, ranges, names, and no key given twice in one list (the rules
    relating the whole pod are :func:`check_final_pods`\'s)."""
    if not changes:
        return
    check_pod_spec(changes.get("spec") or {})
    problems = check_fragment(changes)
    if problems:
        raise_api_problems(problems)

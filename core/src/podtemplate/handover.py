"""What passes between core and a task type's build: the resolved pods handed over as the
plugin's own, and the pods found in the manifests it returns, with what it changed in
them (so that the checks judge what is written, however the build made it)."""

from __future__ import annotations

import marshal
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from .errors import ApiRuleError
from .manifest import ROLE_LABEL, get_path, role_label_value
from .model.apiserver import check_fragment, check_object
from .model.podspec import check_pod_spec, raise_api_problems
from .model.roles import RoleSpec

__all__ = ["BuiltPod", "built_pods", "check_changes", "check_objects", "independent"]

_POD_PARTS = ("metadata", "spec")  # what a PodTemplateSpec holds (a Pod also has more)
_ABSENT = object()
_CHANGES = "build changes"  # the tag of their images in the table of parts found valid


def independent(value: Any) -> Any:
    """A copy of ``value`` sharing no dict or list with it, nor within itself: what a
    plugin is handed is its own to change (strings and numbers, immutable, are shared).
    The one place where the ownership rule costs time; of the forms measured this plain
    walk is the cheapest (``marshal``, ``pickle`` and JSON round trips make every string
    again, ``copy.deepcopy`` keeps a memo; one function per container type or a copy of
    flat dicts whole saved nothing measurable)."""
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


class BuiltPod(NamedTuple):
    """A role's pod as the build left it, and what the build changed in it.

    ``pod`` is found in a manifest at the role's ``template_path`` (``placed``), else it
    is the pod handed to the build. ``changes`` holds the ``metadata`` and ``spec``
    members that differ from the resolved pod, as a fragment of a template: what the
    build added, replaced or changed, each item of a named list kept by its name."""

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
            changes = {}
            for part in _POD_PARTS:
                value = pod.get(part, _ABSENT)
                if value is not _ABSENT:
                    changed = _changed(value, before.get(part, _ABSENT))
                    if changed is not _ABSENT:
                        changes[part] = changed
            found.append(BuiltPod(role.name, pod, changes, bool(placed)))
    return found


def _of_role(pod: Mapping[str, Any], label: str) -> bool:
    """Whether ``pod`` may be the role's: the role label, if the pod has one, names it
    (roles whose pods sit at one path, each its own ``v1 Pod``, are told apart by it)."""
    metadata = pod.get("metadata")
    labels = metadata.get("labels") if isinstance(metadata, Mapping) else None
    return not isinstance(labels, Mapping) or labels.get(ROLE_LABEL, label) == label


def _changed(new: Any, old: Any) -> Any:
    """What of ``new`` differs from ``old`` (compared with ``==``; ``_ABSENT`` when
    nothing does): an object holds its members that differ; a list of named objects,
    name for name as before, holds each item's changes under its name (an unchanged item
    as its name alone, so that positions, names and duplicates stay as they are); any
    other value is taken whole."""
    if new is old or (type(new) is type(old) and new == old):
        return _ABSENT
    if type(new) is dict and type(old) is dict:
        changes = {}
        for key, value in new.items():
            changed = _changed(value, old.get(key, _ABSENT))
            if changed is not _ABSENT:
                changes[key] = changed
        return changes
    if type(new) is list and type(old) is list and _same_names(new, old):
        items = []
        for item, before in zip(new, old, strict=True):
            changed = _changed(item, before)
            items.append({"name": item["name"]} if changed is _ABSENT
                         else {"name": item["name"], **changed})
        return items
    return new


def _same_names(new: list[Any], old: list[Any]) -> bool:
    """Both lists of objects with the same string names, in the same order."""
    if len(new) != len(old) or not new:
        return False
    for item, before in zip(new, old, strict=True):
        if type(item) is not dict or type(before) is not dict:
            return False
        name = item.get("name")
        if type(name) is not str or before.get("name") != name:
            return False
    return True


def check_changes(changes: Mapping[str, Any] | None, known: dict[Any, bool] | None = None
                  ) -> None:
    """What the build changed in a pod, judged as a template layer is: field names and
    types, enumerations, ranges, names, and no key given twice in one list (the rules
    relating the whole pod are :func:`check_final_pods`\'s).

    ``known`` is the render's table of parts found valid (the one the API rules keep,
    :data:`~podtemplate.model.podspec.API_RULES_MEMO`): changes found valid are kept
    there by their ``marshal`` image, so the same change to the next task's pod (a
    build that sets the same field to the same value for every task) is not judged
    again. Only a verdict of valid is kept; a refusal is raised every time."""
    if not changes:
        return
    image = None
    if known is not None:
        try:
            tagged: Any = (_CHANGES, changes)  # JSON-shaped: dicts, lists and scalars
            image = marshal.dumps(tagged, 2)
        except ValueError:  # a value marshal cannot write: judged every time
            image = None
        if image is not None and image in known:
            return
    spec = changes.get("spec")
    if type(spec) is dict and any(type(value) is list or type(value) is dict
                                  for value in spec.values()):
        check_pod_spec(spec)
    problems = check_fragment(changes)
    if problems:
        raise_api_problems(problems)
    if image is not None and known is not None:
        known[image] = True


def check_objects(manifests: Sequence[Any], built: Sequence[BuiltPod], task: str) -> None:
    """Every object the build returned, as the API server checks it beyond the roles'
    pods (judged already): its type meta and own metadata, a ``v1 Pod`` that is no
    role's whole, a ``v1 ConfigMap``'s data. The first problem is raised, naming the
    object (what ``podtemplate validate`` would refuse in the same output)."""
    judged = {id(pod.pod) for pod in built if pod.placed}
    for manifest in manifests:
        problems = check_object(manifest, pod_judged=id(manifest) in judged)
        if problems:
            first, more = problems[0], len(problems) - 1
            metadata = manifest.get("metadata") if isinstance(manifest, Mapping) else None
            name = metadata.get("name") if isinstance(metadata, Mapping) else None
            what = " ".join(str(part) for part in (
                manifest.get("kind") if isinstance(manifest, Mapping) else None, name)
                if part) or f"a {type(manifest).__name__}"
            message = f"{first.message} (in {what}); rule: {first.rule}"
            if more:
                message += f" (and {more} more problem{'s' if more > 1 else ''})"
            raise ApiRuleError(message, fix=first.fix, field=first.path or None, task=task)

"""What ``podtemplate new-plugin`` reads from an operator's CRD: where each role's
PodTemplateSpec sits, and the required fields outside the pods (with placeholder
values the author replaces)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..errors import ScaffoldError

__all__ = ["pod_template_paths", "replicas_path", "restart_path", "role_paths", "skeleton",
           "storage_schema"]

_MAP, _LIST = "*", "[]"


def storage_schema(crd: Mapping[str, Any]) -> Mapping[str, Any]:
    """The ``openAPIV3Schema`` of the CRD's (one, slimmed) version."""
    schema: Mapping[str, Any] = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    return schema


def _is_pod_template(node: Mapping[str, Any]) -> bool:
    spec = (node.get("properties") or {}).get("spec")
    return isinstance(spec, Mapping) and "containers" in (spec.get("properties") or {})


def pod_template_paths(schema: Mapping[str, Any], path: tuple[str, ...] = ()
                       ) -> Iterator[tuple[str, ...]]:
    """Every path to a PodTemplateSpec in ``schema``: ``*`` for a map's values, ``[]``
    for a list's items."""
    if not isinstance(schema, Mapping):
        return
    if path and _is_pod_template(schema):
        yield path
        return
    for name, child in (schema.get("properties") or {}).items():
        yield from pod_template_paths(child, (*path, name))
    extra = schema.get("additionalProperties")
    if isinstance(extra, Mapping):
        yield from pod_template_paths(extra, (*path, _MAP))
    items = schema.get("items")
    if isinstance(items, Mapping):
        yield from pod_template_paths(items, (*path, _LIST))


def _squash(text: str) -> str:
    return text.lower().replace("-", "").replace("_", "")


def map_key(role: str) -> str:
    """The key a replica map gives a role, as Kubeflow's do: ``worker`` -> ``Worker``,
    ``job-runner`` -> ``JobRunner``."""
    return "".join(part[:1].upper() + part[1:] for part in role.split("-"))


def _matches(given: str, found: tuple[str, ...]) -> bool:
    """Whether the path ``given`` names the pod template at ``found`` (``*`` a map key)."""
    parts = given.split(".")
    return len(parts) == len(found) and all(
        want in (part, _MAP) for part, want in zip(parts, found, strict=True))


def role_paths(schema: Mapping[str, Any], roles: Sequence[tuple[str, str | None]]
               ) -> tuple[dict[str, str], dict[str, str]]:
    """Each role's template path: the one given (``role=PATH``), else the one the CRD
    shows: a replica map's entry named after the role (``spec.mpiReplicaSpecs.Worker
    .template``), or the one pod template whose path names the role. Second, the map
    keys so guessed, by role: the CRD does not list a map's keys, so the operator must
    be asked whether it knows them."""
    found = [p for p in pod_template_paths(schema) if _LIST not in p]
    maps = [p for p in found if _MAP in p]
    fixed = [p for p in found if _MAP not in p]
    shown = ", ".join(".".join(p) for p in found) or "none"
    paths, keyed = {}, {}
    for role, given in roles:
        if given:
            if not any(_matches(given, p) for p in found):
                raise ScaffoldError(
                    f"{given} is not a pod template in the CRD (pod templates found: "
                    f"{shown})", field="--roles",
                    fix=f"name one of them: --roles {role}=spec.PATH.template")
            paths[role] = given
            continue
        named = [p for p in fixed if any(_squash(role) in _squash(part) for part in p)]
        if len(named) == 1:
            paths[role] = ".".join(named[0])
        elif len(maps) == 1 and not named:
            keyed[role] = map_key(role)
            paths[role] = ".".join(keyed[role] if part == _MAP else part
                                   for part in maps[0])
        else:
            raise ScaffoldError(
                f"cannot tell where role '{role}' has its pod template in the CRD (pod "
                f"templates found: {shown})", field="--roles",
                fix=f"name its path: --roles {role}=spec.PATH.template")
    return paths, keyed


def _sibling(schema: Mapping[str, Any], template_path: str, name: str, kind: str
             ) -> str | None:
    """The path of property ``name`` of type ``kind`` beside a role's template, when the
    CRD has one there."""
    *parents, _ = template_path.split(".")
    node: Any = schema
    for part in parents:
        if not isinstance(node, Mapping):
            return None
        properties = node.get("properties") or {}
        node = properties.get(part, node.get("additionalProperties"))
    if not isinstance(node, Mapping):
        return None
    found = (node.get("properties") or {}).get(name)
    if isinstance(found, Mapping) and found.get("type") == kind:
        return ".".join([*parents, name])
    return None


def replicas_path(schema: Mapping[str, Any], template_path: str) -> str | None:
    """The ``replicas`` beside a role's template (``spec.mpiReplicaSpecs.Worker
    .replicas``) when the CRD has an integer there, else None."""
    return _sibling(schema, template_path, "replicas", "integer")


def restart_path(schema: Mapping[str, Any], template_path: str) -> str | None:
    """The ``restartPolicy`` beside a role's template (a Kubeflow replica spec's, which
    its operator sets on every pod of the role over the template's), else None."""
    return _sibling(schema, template_path, "restartPolicy", "string")


def skeleton(schema: Mapping[str, Any], leave_out: set[str]) -> dict[str, Any]:
    """The required properties of an object schema, each with a placeholder value of
    its type (an enum's first value, a minimum, ``"TODO"``), except ``leave_out``."""
    values: dict[str, Any] = {}
    properties = schema.get("properties") or {}
    for name in schema.get("required") or ():
        if name not in leave_out and isinstance(properties.get(name), Mapping):
            values[name] = _placeholder(properties[name])
    return values


def _placeholder(schema: Mapping[str, Any]) -> Any:
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        return skeleton(schema, set())
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return False
    return "TODO"

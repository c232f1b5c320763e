"""The kit's own reference merge: what a correct merge of two pod layers gives.

Written for the kit, apart from :mod:`podtemplate.merge`, so that a defect in the product's
merge cannot also change what the kit expects. It is meant to be read, not to be fast: no
index, no cache, no in-place update; every call builds new values.

The rules (the README's "Merge rules"): maps merge key by key, a higher value wins, falsy
ones included, ``None`` removes; keyed lists merge item by item on the keys below (the
Kubernetes schema's ``x-kubernetes-list-map-keys``, plus ``readinessGates`` and
``sysctls``), new items appended in order; ``tolerations``, ``envFrom`` and set lists are
unions without exact duplicates; every other list is replaced; ``$patch`` directives
(``delete``, ``replace``, ``merge``) act as in strategic merge patch and never survive.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["KEYED", "UNIONS", "reference_merge"]

# Dotted field paths with list indices left out; "container." stands for any container.
KEYED: dict[str, tuple[str, ...]] = {
    "spec.containers": ("name",),
    "spec.initContainers": ("name",),
    "spec.ephemeralContainers": ("name",),
    "container.env": ("name",),
    "container.ports": ("containerPort", "protocol"),
    "container.volumeMounts": ("mountPath",),
    "container.volumeDevices": ("devicePath",),
    "container.resources.claims": ("name",),
    "spec.volumes": ("name",),
    "spec.imagePullSecrets": ("name",),
    "spec.hostAliases": ("ip",),
    "spec.schedulingGates": ("name",),
    "spec.resourceClaims": ("name",),
    "spec.resources.claims": ("name",),
    "spec.topologySpreadConstraints": ("topologyKey", "whenUnsatisfiable"),
    "spec.readinessGates": ("conditionType",),
    "spec.securityContext.sysctls": ("name",),
    "metadata.ownerReferences": ("uid",),
}
UNIONS = frozenset({"spec.tolerations", "container.envFrom", "metadata.finalizers",
                    "container.restartPolicyRules.exitCodes.values"})
_KEY_DEFAULTS = {"protocol": "TCP"}  # a port without protocol is a TCP port
_CONTAINER_LISTS = ("spec.containers", "spec.initContainers", "spec.ephemeralContainers")
PATCH = "$patch"
_ABSENT = object()


def reference_merge(lower: Mapping[str, Any], higher: Mapping[str, Any], *,
                    root: str = "spec") -> dict[str, Any]:
    """``higher`` over ``lower``, both at ``root`` of a PodTemplateSpec (``"spec"``, ``""``
    for a whole PodTemplateSpec, ``"container"`` for one container)."""
    base = _merge(_ABSENT, lower, root)
    merged = _merge(base, higher, root)
    return merged if isinstance(merged, dict) else {}


def _merge(old: Any, new: Any, path: str) -> Any:
    if new is None:
        return _ABSENT
    if isinstance(new, Mapping):
        if new.get(PATCH) == "delete":
            return _ABSENT
        keep = isinstance(old, Mapping) and new.get(PATCH) != "replace"
        out = dict(old) if keep else {}
        for key, value in new.items():
            if key == PATCH:
                continue
            merged = _merge(out.get(key, _ABSENT), value, _join(path, key))
            if merged is _ABSENT:
                out.pop(key, None)
            else:
                out[key] = merged
        return out
    if isinstance(new, (list, tuple)):
        return _merge_list(old if isinstance(old, list) else [], list(new), path)
    return new


def _merge_list(old: list[Any], new: list[Any], path: str) -> Any:
    items = [item for item in new if item is not None]
    if items and items[0] == {PATCH: "replace"}:
        old, items = [], items[1:]
    at = "container" if path in _CONTAINER_LISTS else path
    if _rule(path) in KEYED:
        out = _merge_keyed(old, items, KEYED[_rule(path)], at)
    elif _rule(path) in UNIONS:
        out = _merge_union(old, items, at)
    else:  # atomic: replaced; a delete item has nothing to delete
        out = [_merge(_ABSENT, item, at) for item in items if not _is_delete(item)]
    if not out and new:
        return _ABSENT  # the layer gave only directives and nothing is left: no empty list
    return out


def _merge_keyed(old: list[Any], items: list[Any], keys: Sequence[str], at: str) -> list[Any]:
    out = list(old)
    for item in items:
        found = [pos for pos, existing in enumerate(out) if _key(existing, keys) == _key(item,
                                                                                         keys)]
        if _is_delete(item):
            out = [existing for pos, existing in enumerate(out) if pos not in found]
        elif found:
            out[found[0]] = _merge(out[found[0]], item, at)
        else:
            out.append(_merge(_ABSENT, item, at))
    return out


def _merge_union(old: list[Any], items: list[Any], at: str) -> list[Any]:
    out = list(old)
    for item in items:
        if _is_delete(item):
            wanted = {k: v for k, v in item.items() if k != PATCH}
            out = [existing for existing in out if not (
                isinstance(existing, Mapping)
                and all(existing.get(k) == v for k, v in wanted.items()))]
            continue
        value = _merge(_ABSENT, item, at)
        if _identity(value) not in {_identity(existing) for existing in out}:
            out.append(value)
    return out


def _key(item: Mapping[str, Any], keys: Sequence[str]) -> tuple[str, ...]:
    return tuple(_identity(item.get(key, _KEY_DEFAULTS.get(key))) for key in keys)


def _identity(value: Any) -> str:
    """Exact equality that tells ``1``, ``1.0``, ``True`` and ``"1"`` apart."""
    return json.dumps(value, sort_keys=True)


def _is_delete(item: Any) -> bool:
    return isinstance(item, Mapping) and item.get(PATCH) == "delete"


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _rule(path: str) -> str:
    """The table entry of ``path``: an ephemeral volume's claim template is ObjectMeta."""
    return path.rsplit(".volumeClaimTemplate.", 1)[-1]

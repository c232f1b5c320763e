"""Magic container names inside one template layer (docs/design.md, "The merge").

``default`` applies to every container, ``default-init`` to every init container, and the
layer's primary name (``primary`` in a cluster template) to the task's primary container.
Expansion rewrites the layer into ordinary named containers before it is merged.

Two entries of one layer that target the same container (``default`` beneath ``main``, or
the primary alias over a literal entry) are *composed*: the result is one fragment that,
merged over any lower layer, gives what merging the two fragments one after the other
would give. Directives therefore survive composition; they are resolved by the merge.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .rules import DELETE, EMPTY, MAP, MERGE, PATCH, REPLACE, SET, UNION, Node, key_of

# The magic container names, spelled here only.
PRIMARY_CONTAINER = "primary"  # a cluster template's primary; the default primary name
DEFAULT_CONTAINER = "default"  # every container of the pod
DEFAULT_INIT_CONTAINER = "default-init"  # every init container of the pod
MAGIC_CONTAINER_NAMES = frozenset({DEFAULT_CONTAINER, DEFAULT_INIT_CONTAINER})

def copy_json(value: Any) -> Any:
    """Deep copy of JSON-shaped data, keeping nulls and directives."""
    if isinstance(value, Mapping):
        return {key: copy_json(sub) for key, sub in value.items()}
    if isinstance(value, (list, tuple)):
        return [copy_json(item) for item in value]
    return value


def _as_replace(value: Any) -> Any:
    """What ``value`` must become when a lower fragment of the same layer deleted the field:
    applied fresh, not merged over what the layers beneath hold."""
    if isinstance(value, Mapping) and value.get(PATCH) in (None, MERGE):
        return {**copy_json(value), PATCH: REPLACE}
    if isinstance(value, (list, tuple)):
        items = copy_json(value)
        starts_replace = items and items[0] == {PATCH: REPLACE}
        return items if starts_replace else [{PATCH: REPLACE}, *items]
    return copy_json(value)


def compose(lower: Mapping[str, Any], higher: Mapping[str, Any], node: Node) -> dict[str, Any]:
    """One fragment equivalent to merging ``lower`` and then ``higher``."""
    if higher.get(PATCH) in (REPLACE, DELETE):
        return dict(copy_json(higher))
    if lower.get(PATCH) == DELETE:
        return dict(_as_replace({k: v for k, v in higher.items() if k != PATCH}))
    out: dict[str, Any] = copy_json(lower)
    for key, value in higher.items():
        if key == PATCH:
            continue
        child = node.fields.get(key, node.fallback)
        old = out.get(key)
        if key in out and old is None and value is not None:
            out[key] = _as_replace(value)
        elif isinstance(old, Mapping) and isinstance(value, Mapping):
            out[key] = compose(old, value, child)
        elif isinstance(old, list) and isinstance(value, (list, tuple)):
            out[key] = _compose_lists(old, value, child)
        else:
            out[key] = copy_json(value)
    return out


def _compose_lists(lower: list[Any], higher: Sequence[Any], node: Node) -> list[Any]:
    fresh: list[Any] = copy_json(higher)
    if (higher and higher[0] == {PATCH: REPLACE}) or node.kind not in (MAP, UNION, SET):
        return fresh  # replaces whatever lower said
    if node.kind in (UNION, SET):
        # The merge applies union items one by one, so concatenation is sequential merging.
        return [*lower, *fresh]
    out = list(lower)
    index = {key_of(item, node): pos for pos, item in enumerate(out)
             if isinstance(item, Mapping)}
    for item in higher:
        if not isinstance(item, Mapping):
            out.append(copy_json(item))
            continue
        key = key_of(item, node)
        pos = index.get(key)
        if pos is None:
            index[key] = len(out)
            out.append(copy_json(item))
        elif out[pos].get(PATCH) == DELETE and item.get(PATCH) != DELETE:
            out[pos] = _as_replace(item)
        else:
            out[pos] = compose(out[pos], item, node.item or EMPTY)
    return out


def _name(container: Any) -> Any:
    return container.get("name") if isinstance(container, Mapping) else None


def _rename_primary(containers: list[Any], primary: str, alias: str | None,
                    node: Node) -> list[Any]:
    """Fold the alias entries (and a literal ``primary`` entry beneath them) into one."""
    if alias is None or alias == primary:
        return containers
    literal = [c for c in containers if _name(c) == primary]
    aliased = [{**c, "name": primary} for c in containers if _name(c) == alias]
    if not aliased:
        return containers
    entries = literal + aliased
    merged = entries[0]
    for entry in entries[1:]:
        merged = compose(merged, entry, node)
    out: list[Any] = []
    for container in containers:
        if _name(container) in (primary, alias):
            if merged is not None:
                out.append(merged)
                merged = None
        else:
            out.append(container)
    return out


def _apply_default(containers: list[Any], magic: str, names: Sequence[str],
                   node: Node) -> list[Any]:
    """Merge the ``magic`` entry beneath every named container, creating missing ones."""
    defaults = [c for c in containers if _name(c) == magic]
    if not defaults:
        return containers
    base = defaults[0]
    for entry in defaults[1:]:
        base = compose(base, entry, node)
    targets = [name for name in dict.fromkeys(names) if name not in MAGIC_CONTAINER_NAMES]
    wanted = set(targets)
    out: list[Any] = []
    present: set[Any] = set()
    for container in containers:
        name = _name(container)
        if name == magic:
            continue
        if name in wanted:
            present.add(name)
            container = compose({**base, "name": name}, container, node)
        out.append(container)
    out.extend(copy_json({**base, "name": name}) for name in targets if name not in present)
    return out


def expand(spec: Mapping[str, Any], *, primary_name: str, layer_primary_name: str | None,
           container_names: Sequence[str], init_container_names: Sequence[str],
           containers_node: Node, init_node: Node) -> dict[str, Any]:
    """The layer with its magic container names resolved (a new dict; input untouched)."""
    out: dict[str, Any] = copy_json(spec)
    containers = out.get("containers")
    if isinstance(containers, list):
        containers = _rename_primary(containers, primary_name, layer_primary_name,
                                     containers_node)
        out["containers"] = _apply_default(containers, DEFAULT_CONTAINER, container_names,
                                           containers_node)
    init = out.get("initContainers")
    if isinstance(init, list):
        out["initContainers"] = _apply_default(init, DEFAULT_INIT_CONTAINER, init_container_names,
                                               init_node)
    return out

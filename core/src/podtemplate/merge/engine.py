"""The one merge of podtemplate (docs/design.md, "The merge").

Every layer of a pod - cluster template, task template, settings, overrides, roles - is
folded with :func:`merge_into`; nothing else in the code base merges pod data.

- Objects and maps merge key by key. A key present in the higher layer wins, including
  ``False``, ``0`` and ``""``; an explicit ``None`` removes the key.
- Lists follow the rules Kubernetes publishes in its OpenAPI schema (generated into
  :mod:`podtemplate.merge._list_rules`): keyed lists merge item by item, set lists are unions,
  every other list is atomic and replaced - plus the deviations below.
- Strategic-merge-patch directives (``$patch: delete|replace|merge``) are applied and
  never reach the output.

Keyed and union lists merge in linear time: the lower list is indexed once. Field paths
are only built when provenance is recorded, or when an error unwinds.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import MergeError
from . import aliases as _merge_aliases
from ._fast import PLAIN, SEARCHED, Cow, is_flat, plain_values, union_position
from ._list_rules import LIST_RULES
from .items import ident as _ident
from .items import union_delete
from .record import Record, drop, forget, record_leaf, take_origins
from .rules import (
    DELETE,
    EMPTY,
    MAP,
    MERGE,
    PATCH,
    REPLACE,
    SET,
    UNION,
    Malformed,
    Node,
    build_tree,
    descend,
    find_duplicates,
    is_complete,
    join,
    key_of,
    render_key,
)

__all__ = [
    "ENV_FROM_UNION",
    "KEYED_DEVIATIONS",
    "TOLERATIONS_UNION",
    "clean",
    "duplicate_keys",
    "expand_container_aliases",
    "merge",
    "merge_into",
    "rules_at",
]

# Kubernetes declares tolerations atomic, so a task adding one toleration would drop the
# platform's (spot, GPU taints) and the pod would never schedule. They are a union.
TOLERATIONS_UNION = ("spec.tolerations[]",)

# envFrom is atomic in the schema too; a task adding its own ConfigMap must not lose the
# platform's secret references. A union, like tolerations.
ENV_FROM_UNION = (
    "spec.containers[].envFrom[]",
    "spec.initContainers[].envFrom[]",
    "spec.ephemeralContainers[].envFrom[]",
)

# Atomic in the schema although each item is named: a layer adding one readiness gate or
# one sysctl should extend, and may override by name, what the lower layers set.
KEYED_DEVIATIONS: dict[str, tuple[str, ...]] = {
    "spec.readinessGates[]": ("conditionType",),
    "spec.securityContext.sysctls[]": ("name",),
}

_DIRECTIVES = (REPLACE, DELETE, MERGE)
_UNKNOWN_FIX = "use $patch: replace, delete or merge"
_GONE = object()  # marks a deleted slot of a keyed list until the list is compacted


@functools.cache
def _tree() -> Node:
    return build_tree(LIST_RULES, union_lists=TOLERATIONS_UNION + ENV_FROM_UNION,
                      keyed_lists=KEYED_DEVIATIONS)


@functools.lru_cache(maxsize=64)
def _rules_at(root: str) -> Node:
    return descend(_tree(), root)


def rules_at(root: str) -> Node:
    """The list rules at ``root`` of a PodTemplateSpec (``""`` is the whole of it), for
    code that walks merged pods the way the merge does (``explain``)."""
    return _rules_at(root)


# ----------------------------------------------------------------------------- public API


def merge(lower: Mapping[str, Any], higher: Mapping[str, Any], *, root: str = "spec",
          layer: str = "", provenance: dict[str, str] | None = None) -> dict[str, Any]:
    """``higher`` merged over ``lower``: a new dict sharing nothing with either input.

    ``root`` is where both objects sit in a PodTemplateSpec (``"spec"`` for a PodSpec,
    ``""`` for a whole PodTemplateSpec, ``"spec.containers[]"`` for one container).
    With ``provenance``, every value ``higher`` sets is recorded under ``layer``.
    """
    result: dict[str, Any] = {}
    merge_into(result, lower, root=root)  # a clean, de-duplicated copy of lower
    return merge_into(result, higher, root=root, layer=layer, provenance=provenance)


def merge_into(target: dict[str, Any], higher: Mapping[str, Any], *, root: str = "spec",
               layer: str = "", provenance: dict[str, str] | None = None,
               cow: Cow | None = None) -> dict[str, Any]:
    """Merge ``higher`` into ``target`` in place and return ``target``.

    ``target`` must be owned by the caller (``{}`` or an earlier result); whatever is taken
    from ``higher`` is copied. Folding layers: ``acc = {}``, then ``merge_into`` each layer.
    On :class:`MergeError` ``target`` is left partly merged: discard it.

    ``cow`` folds copy-on-write (see :class:`~podtemplate.merge._fast.Cow`): only the root
    of ``target`` is owned, what the fold took by reference is copied before it changes,
    and, when ``cow.share`` says ``higher`` is clean and immutable, subtrees of ``higher``
    are taken by reference instead of copied. Not with ``provenance``.
    """
    record = None if provenance is None else Record(provenance, layer)
    if record is not None:
        cow = None
    try:
        _merge_dict(target, higher, _rules_at(root), None if record is None else root, record,
                    cow)
    except Malformed as err:
        raise MergeError(err.message, fix=err.fix, field=err.field(root)) from None
    return target


def clean(value: Any) -> Any:
    """A deep copy of ``value`` without directives and without null-valued keys.

    Unlike a merge it knows no list rules: every list is copied item by item.
    """
    try:
        return _fresh(value, EMPTY)
    except Malformed as err:
        raise MergeError(err.message, fix=err.fix, field=err.field("")) from None


def duplicate_keys(obj: Mapping[str, Any], *, root: str = "spec") -> list[str]:
    """Paths of keyed-list items whose key occurs twice, e.g. ``spec.containers[0].env[FOO]``."""
    found: list[str] = []
    find_duplicates(obj, _rules_at(root), root, found)
    return found


def expand_container_aliases(spec: Mapping[str, Any], *, primary_name: str,
                             layer_primary_name: str | None, container_names: Sequence[str],
                             init_container_names: Sequence[str]) -> dict[str, Any]:
    """Resolve the magic container names of ONE template layer; returns a new dict.

    ``layer_primary_name`` (the layer's own primary name; ``"primary"`` for a cluster
    template) is renamed to ``primary_name``; ``default`` is merged beneath every name in
    ``container_names`` and ``default-init`` beneath every name in ``init_container_names``.
    """
    spec_node = _rules_at("spec")
    try:
        return _merge_aliases.expand(
            spec, primary_name=primary_name, layer_primary_name=layer_primary_name,
            container_names=container_names, init_container_names=init_container_names,
            containers_node=descend(spec_node, "containers[]"),
            init_node=descend(spec_node, "initContainers[]"))
    except Malformed as err:
        raise MergeError(err.message, fix=err.fix, field=err.field("spec")) from None


# ------------------------------------------------------------------------------- objects


def _merge_dict(target: dict[str, Any], higher: Mapping[str, Any], node: Node,
                path: str | None, record: Record | None, cow: Cow | None = None) -> None:
    """Merge ``higher`` into ``target`` key by key. ``path`` is None unless recording."""
    items: Any = higher.items()
    if PATCH in higher:
        items = _dict_directive(target, higher, node, path, record)
    fields, fallback = node.fields, node.fallback
    for key, value in items:
        try:
            if type(value) in PLAIN:  # most values: tested first, and exactly
                if path is not None and record is not None:
                    record_leaf(target, key, fields.get(key, fallback), path, record)
                target[key] = value
            elif value is None:
                if key in target:
                    drop(target, key, fields.get(key, fallback), path, record)
            elif isinstance(value, dict):
                _merge_child_dict(target, key, value, fields.get(key, fallback), path, record,
                                  cow)
            elif isinstance(value, (list, tuple)):
                _merge_child_list(target, key, value, fields.get(key, fallback), path, record,
                                  cow)
            else:
                if path is not None and record is not None:
                    record_leaf(target, key, fields.get(key, fallback), path, record)
                target[key] = value
        except Malformed as err:
            err.parts.append(f".{key}")
            raise


def _merge_child_dict(target: dict[str, Any], key: str, value: Mapping[str, Any], node: Node,
                      path: str | None, record: Record | None, cow: Cow | None) -> None:
    if value.get(PATCH) == DELETE:
        if key in target:
            drop(target, key, node, path, record)
        return
    cpath = None if path is None else join(path, key)
    old = target.get(key)
    if isinstance(old, dict):
        if cow is not None and id(old) in cow.borrowed:
            old = target[key] = cow.own(old)
        _merge_dict(old, value, node, cpath, record, cow)
    else:
        if old is not None and record is not None and cpath is not None:
            forget(record, cpath, old, node)
        if cow is not None and cow.share:
            target[key] = cow.take(value)  # clean: merged over nothing, it is itself
            return
        old = target[key] = {}
        _merge_dict(old, value, node, cpath, record, cow)
    if record is not None and cpath is not None:
        # An empty object is a value too (emptyDir: {}); a filled one is not a leaf.
        if old:
            record.paths.pop(cpath, None)
        else:
            record.paths[cpath] = record.layer


def _merge_child_list(target: dict[str, Any], key: str, value: Sequence[Any], node: Node,
                      path: str | None, record: Record | None, cow: Cow | None) -> None:
    if isinstance(key, str) and key.startswith("$"):
        # $retainKeys, $setElementOrder/..., $deleteFromPrimitiveList/... are not supported;
        # silently copying them would put them into the manifest.
        raise Malformed(f"unsupported directive {key!r}",
                        fix="only $patch directives are supported; remove it")
    cpath = None if path is None else join(path, key)
    old = target.get(key)
    if not isinstance(old, list):
        if old is not None and record is not None and cpath is not None:
            forget(record, cpath, old, node)
        old = None
    if old is None and cow is not None and cow.share:
        target[key] = cow.take(value)  # clean: merged over nothing, it is itself
        return
    merged = _merge_list(old, value, node, cpath, record, cow)
    if merged or not value:
        target[key] = cow.take(merged) if cow is not None and merged is value else merged
        return
    # The layer gave only directives ($patch: delete, a lone replace marker) and nothing is
    # left: drop the field, as if deleted, rather than emit an empty list.
    target.pop(key, None)
    if record is not None and cpath is not None:
        record.paths.pop(cpath, None)


def _dict_directive(target: dict[str, Any], higher: Mapping[str, Any], node: Node,
                    path: str | None, record: Record | None) -> list[tuple[str, Any]]:
    """Apply a dict-level ``$patch`` to ``target``; return the other fields of ``higher``."""
    patch = higher[PATCH]
    if patch is not None and patch not in _DIRECTIVES:
        raise Malformed(f"unknown directive $patch: {patch!r}", fix=_UNKNOWN_FIX)
    if patch in (REPLACE, DELETE):
        if record is not None and path is not None:
            forget(record, path, target, node)
        target.clear()
        if patch == DELETE:
            return []
    return [(key, value) for key, value in higher.items() if key != PATCH]


def _fresh(value: Any, node: Node) -> Any:
    """``value`` merged over nothing: a clean, rule-conforming copy."""
    if is_flat(value):
        return {**value}  # a toleration, a label selector term...
    if isinstance(value, dict):
        new: dict[str, Any] = {}
        _merge_dict(new, value, node, None, None)
        return new
    if isinstance(value, (list, tuple)):
        return _merge_list(None, value, node, None, None)
    return value


# --------------------------------------------------------------------------------- lists


def _merge_list(old: list[Any] | None, items: Sequence[Any], node: Node, path: str | None,
                record: Record | None, cow: Cow | None = None) -> list[Any]:
    """Merge list ``items`` over ``old`` (owned or borrowed by ``cow``, may be reused)
    by the rule at ``node``."""
    if items and _is_replace_marker(items[0]):
        if old and record is not None and path is not None:
            forget(record, path, old, node)
        old, items = None, items[1:]
    kind = node.kind
    if kind in (MAP, UNION, SET):
        if old is not None and cow is not None and id(old) in cow.borrowed:
            old = cow.own_list(old)
        if kind == MAP:
            return _merge_keyed(old, items, node, path, record, cow)
        return _merge_union(old, items, node, path, record, cow)
    if record is not None and path is not None:
        if old is not None:
            forget(record, path, old, node)
        record.paths[path] = record.layer  # an atomic list is one value
    if cow is not None and cow.share and type(items) is list:
        return items  # clean: the list replaces what it inherits, as it is
    if plain_values(items):  # command, args, values...: copied whole
        return list(items)
    return _copy_items(items, node.item or EMPTY)


def _is_replace_marker(item: Any) -> bool:
    return isinstance(item, dict) and len(item) == 1 and item.get(PATCH) == REPLACE


def _check_item_directive(item: Mapping[str, Any], patch: Any) -> None:
    """Reject item directives that are unknown or misplaced."""
    if patch not in _DIRECTIVES:
        raise Malformed(f"unknown directive $patch: {patch!r}", fix=_UNKNOWN_FIX)
    if patch == REPLACE and len(item) == 1:
        raise Malformed("{$patch: replace} must be the first item of the list",
                        fix="move it to the front of the list")


def _copy_items(items: Sequence[Any], item_node: Node) -> list[Any]:
    """The items of an atomic list, cleaned. Delete items have nothing to delete here:
    the list replaces what it inherits anyway."""
    out: list[Any] = []
    for index, item in enumerate(items):
        try:
            if isinstance(item, dict):
                patch = item.get(PATCH)
                if patch is not None:
                    _check_item_directive(item, patch)
                    if patch == DELETE:
                        continue
                out.append(_fresh(item, item_node))
            elif isinstance(item, (list, tuple)):
                out.append(_fresh(item, item_node))
            elif item is not None:
                out.append(item)
        except Malformed as err:
            err.parts.append(f"[{index}]")
            raise
    return out


def _merge_keyed(old: list[Any] | None, items: Sequence[Any], node: Node, path: str | None,
                 record: Record | None, cow: Cow | None) -> list[Any]:
    out = old if old is not None else []
    # ``out`` holds merge results only, whose keys were checked when they were merged in.
    single = node.keys[0] if node.single else None
    if single is not None:
        index = {existing.get(single): pos for pos, existing in enumerate(out)}
    else:
        index = {key_of(existing, node): pos for pos, existing in enumerate(out)}
    item_node = node.item or EMPTY
    deleted = False
    for position, item in enumerate(items):
        key = None
        try:
            if item is None:
                continue
            if type(item) is not dict and not isinstance(item, dict):
                raise Malformed(f"list item is not an object (items are keyed by "
                                f"{'/'.join(node.keys)})", fix="give each item as an object")
            if single is None:
                key = key_of(item, node)
            else:
                key = item.get(single)
                if key is not None and type(key) not in PLAIN:
                    key = key_of(item, node)  # raises if the key is not a plain value
            patch = item.get(PATCH)
            if patch is not None:
                _check_item_directive(item, patch)
                if patch == DELETE:
                    deleted = _delete_keyed(out, index, item, key, node, path, record) or deleted
                    continue
            pos = index.get(key)
            if pos is not None and cow is not None and id(out[pos]) in cow.borrowed:
                out[pos] = cow.own(out[pos])
            if pos is None and cow is not None and cow.share:
                index[key] = len(out)
                out.append(cow.take(item))  # clean: merged over nothing, it is itself
                continue
            if record is None and is_flat(item):
                # An env var, a port, a mount...: the key-by-key merge below would set
                # each value as it is, which dict operations do in C.
                if pos is None:
                    index[key] = len(out)
                    out.append({**item})
                else:
                    out[pos].update(item)
                continue
            ipath = None if path is None else f"{path}[{render_key(key)}]"
            if pos is None:
                new: dict[str, Any] = {}
                _merge_dict(new, item, item_node, ipath, record, cow)
                index[key] = len(out)
                out.append(new)
            else:
                _merge_dict(out[pos], item, item_node, ipath, record, cow)
        except Malformed as err:
            err.parts.append(f"[{render_key(key)}]" if is_complete(key) else f"[{position}]")
            raise
    if deleted:
        out[:] = [item for item in out if item is not _GONE]
    return out


def _delete_keyed(out: list[Any], index: dict[Any, int], item: Mapping[str, Any], key: Any,
                  node: Node, path: str | None, record: Record | None) -> bool:
    """Remove the item with ``key``; its slot is compacted after the whole list."""
    missing = [name for name in node.required if item.get(name) is None]
    if missing:
        raise Malformed(f"$patch: delete item does not name its {'/'.join(missing)}",
                        fix=f"give the {'/'.join(node.keys)} of the item to delete")
    pos = index.pop(key, None)
    if pos is None:
        return False  # deleting what nothing inherited is fine, as in Kubernetes
    if record is not None and path is not None:
        forget(record, f"{path}[{render_key(key)}]", out[pos], node.item or EMPTY)
    out[pos] = _GONE
    return True


def _merge_union(old: list[Any] | None, items: Sequence[Any], node: Node, path: str | None,
                 record: Record | None, cow: Cow | None) -> list[Any]:
    out = old if old is not None else []
    # Provenance of union items is by index; it is popped now and rewritten at the end,
    # because deletions shift indices.
    origins = take_origins(record, path, len(out))
    layer = None if record is None else record.layer
    # Short lists (tolerations, envFrom) are searched; long ones indexed once, so that
    # the merge stays linear.
    seen = None if len(out) + len(items) <= SEARCHED else _union_index(out)
    item_node = node.item or EMPTY
    for position, item in enumerate(items):
        try:
            if item is None:
                continue
            if isinstance(item, dict) and item.get(PATCH) is not None:
                _check_item_directive(item, item[PATCH])
                if item[PATCH] == DELETE:
                    origins = union_delete(out, origins, item, node)
                    seen = None if seen is None else _union_index(out)
                    continue
            new = cow.take(item) if cow is not None and cow.share else _fresh(item, item_node)
            if seen is None:
                pos = union_position(out, new, _ident)
            else:
                ident = _ident(new)
                pos = seen.get(ident)
                if pos is None:
                    seen[ident] = len(out)
            if pos is None:
                pos = len(out)
                out.append(new)
                if origins is not None:
                    origins.append(None)
            if origins is not None:
                origins[pos] = layer
        except Malformed as err:
            err.parts.append(f"[{position}]")
            raise
    if origins is not None and path is not None and record is not None:
        for pos, origin in enumerate(origins):
            if origin is not None:
                record.paths[f"{path}[{pos}]"] = origin
    return out


def _union_index(out: list[Any]) -> dict[Any, int]:
    return {_ident(existing): pos for pos, existing in enumerate(out)}

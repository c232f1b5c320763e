"""The rule tree the merge walks alongside the data.

The generated table (:mod:`podtemplate.merge._list_rules`) is keyed by path strings; building
paths on every step of a merge would be slow, so the table is turned once into a tree of
:class:`Node` objects that mirrors the shape of a PodTemplateSpec. Positions the table does
not mention share :data:`EMPTY`: plain maps merged key by key, atomic lists.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

ATOMIC = "atomic"  # the higher layer's list replaces the lower one
PLAIN = frozenset({str, int, bool, float})  # leaf types, set as they are
SET = "set"  # union of plain values, order kept, duplicates dropped
MAP = "map"  # items matched by key fields and merged recursively
UNION = "union"  # union of whole items, exact duplicates dropped

# The merge directive of a layer (`$patch: replace|delete|merge`), spelled here only.
PATCH = "$patch"
REPLACE = "replace"
DELETE = "delete"
MERGE = "merge"

_TOKEN = re.compile(r"[^.\[\]{}]+|\[\]|\{\}")


class Node:
    """One position in a PodTemplateSpec: its object fields and, if a list, its rule."""

    __slots__ = ("defaults", "fallback", "fields", "item", "keys", "kind", "other",
                 "required", "single")

    def __init__(self) -> None:
        self.fields: dict[str, Node] = {}
        self.other: Node | None = None  # the value node of a map ('{}')
        self.fallback: Node = self  # replaced by freeze(); the node for unnamed keys
        self.kind = ATOMIC
        self.keys: tuple[str, ...] = ()
        # One default per key field; None where a missing field stays missing.
        self.defaults: tuple[Any, ...] = ()
        # Key fields without a default: a `$patch: delete` item must name them.
        self.required: tuple[str, ...] = ()
        self.single = False  # one key field without default: the common, fast case
        self.item: Node | None = None

    def set_keys(self, keys: Iterable[str], defaults: Mapping[str, Any]) -> None:
        self.kind = MAP
        self.keys = tuple(keys)
        self.defaults = tuple(defaults.get(key) for key in self.keys)
        self.required = tuple(key for key in self.keys if key not in defaults)
        self.single = len(self.keys) == 1 and not defaults


EMPTY = Node()
EMPTY.item = EMPTY


def tokens(path: str) -> list[str]:
    """``"spec.containers[].env[]"`` -> ``["spec", "containers", "[]", "env", "[]"]``."""
    return _TOKEN.findall(path)


def _step(node: Node, token: str) -> Node:
    """The child of ``node`` for one path token, created if missing (build time only)."""
    if token == "[]":
        if node.item is None:
            node.item = Node()
        return node.item
    if token == "{}":
        if node.other is None:
            node.other = Node()
        return node.other
    return node.fields.setdefault(token, Node())


def _list_node(root: Node, path: str) -> Node:
    parts = tokens(path)
    if not parts or parts[-1] != "[]":
        raise ValueError(f"list rule path must end in '[]': {path!r}")
    node = root
    for token in parts[:-1]:
        node = _step(node, token)
    _step(node, "[]")
    return node


def _freeze(node: Node) -> None:
    node.fallback = node.other if node.other is not None else EMPTY
    children = [*node.fields.values(), node.other, node.item]
    if node.item is None:
        node.item = EMPTY
    for child in children:
        if child is not None and child is not EMPTY:
            _freeze(child)


def build_tree(
    table: Mapping[str, Mapping[str, Any]],
    *,
    union_lists: Iterable[str] = (),
    keyed_lists: Mapping[str, tuple[str, ...]] | None = None,
) -> Node:
    """Turn the generated table plus podtemplate's deliberate deviations into a tree.

    ``union_lists`` and ``keyed_lists`` override the schema's rule for their paths.
    """
    root = Node()
    for path, rule in table.items():
        node = _list_node(root, path)
        if rule["strategy"] == MAP:
            node.set_keys(rule["keys"], rule.get("key_defaults", {}))
        elif rule["strategy"] == SET:
            node.kind = SET
    for path in union_lists:
        node = _list_node(root, path)
        node.kind = UNION
        node.keys = ()
    for path, keys in (keyed_lists or {}).items():
        _list_node(root, path).set_keys(keys, {})
    _freeze(root)
    return root


def descend(root: Node, path: str) -> Node:
    """The node at ``path`` (``""`` is the root); unknown positions are :data:`EMPTY`."""
    node = root
    for token in tokens(path):
        if token == "[]":
            node = node.item if node.item is not None else EMPTY
        elif token == "{}":
            node = node.fallback
        else:
            node = node.fields.get(token, node.fallback)
    return node


# ------------------------------------------------------------------ keys and field paths


class Malformed(Exception):
    """A malformed directive or key; ``parts`` collects the field path while unwinding,
    so the hot path never builds path strings."""

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix
        self.parts: list[str] = []

    def field(self, root: str) -> str | None:
        return (root + "".join(reversed(self.parts))).lstrip(".") or None


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def render_key(key: Any) -> str:
    """A key as it appears in a field path: ``env[FOO]``, ``ports[8080,TCP]``."""
    if isinstance(key, tuple):
        return ",".join(str(part) for part in key)
    return str(key)


def key_of(item: Mapping[str, Any], node: Node) -> Any:
    """The merge key of a keyed-list item: one value, or a tuple for several key fields."""
    if node.single:
        value = item.get(node.keys[0])
        if isinstance(value, (dict, list)):
            raise _not_plain(node)
        return value
    values = []
    for name, default in zip(node.keys, node.defaults, strict=True):
        value = item.get(name)
        if value is None:
            value = default
        elif isinstance(value, (dict, list)):
            raise _not_plain(node)
        values.append(value)
    return tuple(values) if len(values) > 1 else values[0]


def _not_plain(node: Node) -> Malformed:
    return Malformed(f"key field {'/'.join(node.keys)} must be a plain value",
                     fix="give the key as a string or number")


def is_complete(key: Any) -> bool:
    return key is not None and not (isinstance(key, tuple) and None in key)


def find_duplicates(value: Any, node: Node, path: str, found: list[str]) -> None:
    """Append to ``found`` the path of every keyed-list key that occurs twice.

    Enclosing list items are named by index (their own keys may be the duplicates);
    items carrying a ``$patch`` are not counted (delete, then re-add is legitimate).
    """
    if isinstance(value, Mapping):
        for key, sub in value.items():
            if isinstance(sub, (Mapping, list)):
                find_duplicates(sub, node.fields.get(key, node.fallback), join(path, key),
                                found)
        return
    if not isinstance(value, list):
        return
    if node.kind == MAP:
        found.extend(f"{path}[{render_key(key)}]" for key in _repeated_keys(value, node))
    item_node = node.item or EMPTY
    for pos, item in enumerate(value):
        if isinstance(item, (Mapping, list)):
            find_duplicates(item, item_node, f"{path}[{pos}]", found)


def _repeated_keys(items: list[Any], node: Node) -> list[Any]:
    counts: dict[Any, int] = {}
    for item in items:
        if not isinstance(item, Mapping) or PATCH in item:
            continue
        try:
            key = key_of(item, node)
        except Malformed:
            continue
        if is_complete(key):  # a missing key is a validation error of its own
            counts[key] = counts.get(key, 0) + 1
    return [key for key, count in counts.items() if count > 1]

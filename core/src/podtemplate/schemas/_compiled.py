"""A structural schema compiled into checking nodes.

Each schema node becomes a :class:`Node` holding what checking a value needs, worked out
once: the Python types of its ``type``, its enum, bounds and compiled pattern, its
required members, and its children - compiled on first use, so a CRD of thousands of
schema nodes costs only the nodes manifests actually reach. Checking a value is then a
walk of the value alone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["Node", "Problems", "Walk", "compile_schema", "flatten", "type_ok"]

Segment = str | int
# A path while walking: () at the root, else (parent path, segment) - a pair per step
# rather than a growing tuple; see flatten().
At = tuple[Any, ...]
# (path, message, pruned)
Problems = list[tuple[At, str, bool]]
Schema = Mapping[str, Any]

_IMPLICIT = frozenset(("apiVersion", "kind", "metadata"))  # ObjectMeta is the server's own
_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict, Mapping), "array": (list, tuple), "string": (str,), "integer": (int,),
    "number": (int, float), "boolean": (bool,),
}
_BOUNDS = (("minimum", True), ("maximum", False), ("minLength", True), ("maxLength", False),
           ("minItems", True), ("maxItems", False), ("minProperties", True),
           ("maxProperties", False))
PRUNED = "unknown field: the API server prunes it"


class Walk:
    """One check: where problems go, the ids of objects to leave out (pods proven
    otherwise), and whether a fragment is checked (``partial``: members it lacks and
    duplicates among its items are left to the merge that completes it)."""

    __slots__ = ("out", "partial", "skip")

    def __init__(self, out: Problems, skip: frozenset[int] = frozenset(),
                 partial: bool = False) -> None:
        self.out = out
        self.skip = skip
        self.partial = partial


def flatten(at: At) -> tuple[Segment, ...]:
    """A walk's path as segments from the root."""
    segments: list[Segment] = []
    while at:
        at, segment = at
        segments.append(segment)
    return tuple(reversed(segments))


# Compiled nodes by schema object, so that a schema object shared by several places (see
# crd.intern: a CRD repeats the pod schema for every role) is compiled once and what is
# remembered about a node (a template's verdict) holds for all of them.
_NODES: dict[int, tuple[Node, Schema]] = {}


def compile_schema(schema: Schema, *, root: bool = False) -> Node:
    """The checking node of ``schema``; ``root`` for a resource's top-level schema."""
    return Node(schema, root=True) if root else _node_of(schema)


def _node_of(schema: Schema) -> Node:
    found = _NODES.get(id(schema))
    if found is None:
        found = _NODES[id(schema)] = (Node(schema), schema)  # keeps the id its own
    return found[0]


class Node:
    """One compiled schema node. ``check`` appends ``(path, message, pruned)`` for every
    problem of a value to ``out``."""

    __slots__ = ("_extra", "_items", "_properties", "bounds", "children", "enum", "implicit",
                 "int_or_string", "kind", "list_keys", "list_type", "nullable", "open",
                 "pattern", "plain_object", "required", "simple", "string_only", "types")

    def __init__(self, schema: Schema, *, root: bool = False) -> None:
        self.nullable = bool(schema.get("nullable"))
        self.int_or_string = bool(schema.get("x-kubernetes-int-or-string"))
        kind = schema.get("type")
        if kind is None and ("properties" in schema or "additionalProperties" in schema):
            kind = "object"
        self.kind: str | None = kind
        self.types: tuple[type, ...] = _TYPES.get(kind, ()) if kind else ()
        self.enum: tuple[Any, ...] | None = tuple(schema["enum"]) if "enum" in schema else None
        self.bounds = tuple((keyword, lower, schema[keyword]) for keyword, lower in _BOUNDS
                            if schema.get(keyword) is not None)
        self.pattern = _compile_pattern(schema.get("pattern"))
        self._properties: Mapping[str, Schema] = schema.get("properties") or {}
        self.children: dict[str, Node] = {}  # compiled so far; see child()
        extra = schema.get("additionalProperties")
        self._extra: Schema | None = extra if isinstance(extra, Mapping) else None
        self.open = extra is True or schema.get("x-kubernetes-preserve-unknown-fields") is True
        embedded = root or schema.get("x-kubernetes-embedded-resource") is True
        self.implicit = _IMPLICIT if embedded else frozenset()
        self.required = tuple(schema.get("required") or ())
        items = schema.get("items")
        self._items: Schema | Node | None = items if isinstance(items, Mapping) else None
        self.list_type = schema.get("x-kubernetes-list-type")
        self.list_keys = tuple(schema.get("x-kubernetes-list-map-keys") or ())
        # A plain typed leaf: its check is one type test.
        self.simple = (kind in ("string", "integer", "number", "boolean") and not self.nullable
                       and not self.int_or_string and self.enum is None and not self.bounds
                       and self.pattern is None)
        # An object with nothing to check but its members: walked without the checks above.
        self.plain_object = (kind == "object" and not self.nullable and not self.int_or_string
                             and self.enum is None and not self.bounds)
        # CRDs resolved from an old swagger type IntOrString as a plain string; the API
        # server then rejects a number there (dask/dask-kubernetes#778).
        self.string_only = kind == "string" and schema.get("format") == "int-or-string"

    # -- children, compiled on first use -------------------------------------------------

    def child(self, key: str) -> Node | None:
        """The node of member ``key``, or None when the schema does not declare it."""
        node = self.children.get(key)
        if node is None:
            schema = self._properties.get(key)
            if schema is None:
                schema = self._extra
                if schema is None:
                    return None
            node = self.children[key] = _node_of(schema)
        return node

    def item(self) -> Node | None:
        items = self._items
        if items is None or isinstance(items, Node):
            return items
        node = self._items = _node_of(items)
        return node

    def is_map(self) -> bool:
        """Whether any key is declared here (a map such as labels or resource limits)."""
        return self._extra is not None or self.open

    def descend(self, segments: tuple[Segment, ...]) -> Node | None:
        """The node at ``segments`` (keys and list indexes) below this one, or None."""
        node: Node | None = self
        for segment in segments:
            if node is None:
                return None
            node = node.item() if isinstance(segment, int) else node.child(segment)
        return node

    # -- checking ------------------------------------------------------------------------

    def fits(self, fragment: Any) -> bool:
        """Whether a fragment (a template layer) holds only what this schema declares,
        with the types, values and bounds it allows; required members are not asked for."""
        out: Problems = []
        self.check(fragment, (), Walk(out, partial=True))
        return not out

    def check(self, value: Any, at: At, walk: Walk) -> None:
        out = walk.out
        if self.simple:
            if type(value) in self.types or type_ok(value, self.types):
                return
            out.append((at, self._type_message(value), False))
            return
        if value is None:  # in a fragment (a layer), null removes what lower layers set
            if not (self.nullable or walk.partial):
                out.append((at, "null is not allowed here", False))
            return
        if self.int_or_string:
            if isinstance(value, bool) or not isinstance(value, int | str):
                out.append((at, f"must be an integer or a string, got {_short(value)}", False))
            return
        if self.types and not type_ok(value, self.types):
            out.append((at, self._type_message(value), False))
            return
        if self.enum is not None and value not in self.enum:
            out.append((at, f"{value!r} is not one of {list(self.enum)}", False))
        if self.bounds:
            _check_bounds(value, self.bounds, at, out)
        if self.pattern is not None and type(value) is str and not self.pattern.search(value):
            out.append((at, f"{value!r} does not match pattern {self.pattern.pattern!r}", False))
        if self.kind == "object":
            self._object(value, at, walk)
        elif self.kind == "array":
            self._array(value, at, walk)

    def _type_message(self, value: Any) -> str:
        if self.string_only and isinstance(value, int):
            return (f"must be a string, got the number {value}: this CRD types the "
                    "int-or-string field as a string only, so the API server rejects a number "
                    "here (name the port in the container's ports and use the name)")
        return f"must be of type {self.kind}, got {_describe(value)}"

    def _object(self, value: Mapping[str, Any], at: At, walk: Walk) -> None:
        out = walk.out
        if not walk.partial:
            for name in self.required:
                if name not in value:
                    out.append(((at, name), "required field is missing", False))
        implicit, children, skip = self.implicit, self.children, walk.skip
        for key, sub in value.items():
            node = children.get(key) or (None if key in implicit else self.child(key))
            if node is not None:
                if node.simple and type(sub) in node.types:
                    continue  # most leaves: no call
                if skip and id(sub) in skip:
                    continue
                if node.plain_object and type(sub) is dict:
                    node._object(sub, (at, key), walk)
                else:
                    node.check(sub, (at, key), walk)
            elif not (self.open or key in implicit):
                out.append(((at, key), PRUNED, True))

    def _array(self, value: list[Any], at: At, walk: Walk) -> None:
        item, out = self.item(), walk.out
        if item is not None:
            simple, types = item.simple, item.types
            for index, entry in enumerate(value):
                if not (simple and type(entry) in types):
                    item.check(entry, (at, index), walk)
        if not walk.partial:
            out.extend(((at, index), message, False) for index, message in self.duplicates(value))

    def duplicates(self, value: Sequence[Any]) -> list[tuple[int, str]]:
        """``(index, message)`` of every item that repeats an earlier one where the list
        type says its items are unique (a set, or a map by its keys)."""
        problems: list[tuple[int, str]] = []
        if self.list_type == "set":
            seen: list[Any] = []
            for index, entry in enumerate(value):
                if entry in seen:
                    problems.append((index, f"duplicate item {_short(entry)} in a set"))
                seen.append(entry)
        elif self.list_type == "map" and self.list_keys:
            found: set[tuple[str, ...]] = set()
            for index, entry in enumerate(value):
                if not isinstance(entry, Mapping):
                    continue
                key = tuple(repr(entry.get(k)) for k in self.list_keys)
                if key in found:
                    named = ", ".join(f"{k}={entry.get(k)!r}" for k in self.list_keys)
                    problems.append((index, f"duplicate item with {named}"))
                found.add(key)
        return problems

    def out_of_bounds(self, value: Any) -> bool:
        """Whether ``value`` violates one of the node's bounds."""
        return any(_violates(value, keyword, is_lower, bound)
                   for keyword, is_lower, bound in self.bounds)


def type_ok(value: Any, types: tuple[type, ...]) -> bool:
    if type(value) is bool:
        return bool in types
    return isinstance(value, types)


def _describe(value: Any) -> str:
    return f"{type(value).__name__} {_short(value)}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _compile_pattern(pattern: Any) -> re.Pattern[str] | None:
    if not isinstance(pattern, str) or not pattern:
        return None
    try:
        return re.compile(pattern)
    except re.error:  # an ECMA-only construct: left to the API server
        return None


def _measure(value: Any, keyword: str) -> float | None:
    """What ``keyword`` bounds in ``value``, or None when it does not apply to it."""
    if keyword.endswith("imum"):
        numeric = isinstance(value, int | float) and not isinstance(value, bool)
        return value if numeric else None
    if keyword.endswith("Length"):
        return len(value) if isinstance(value, str) else None
    if keyword.endswith("Items"):
        return len(value) if isinstance(value, list) else None
    return len(value) if isinstance(value, Mapping) else None


def _check_bounds(value: Any, bounds: tuple[tuple[str, bool, Any], ...], at: At,
                  out: Problems) -> None:
    for keyword, is_lower, bound in bounds:
        if _violates(value, keyword, is_lower, bound):
            out.append((at, f"{_short(value)} violates {keyword} {bound}", False))


def _violates(value: Any, keyword: str, is_lower: bool, bound: Any) -> bool:
    size = _measure(value, keyword)
    return size is not None and ((size < bound) if is_lower else (size > bound))

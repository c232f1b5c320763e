"""Items of union lists as the merge compares and deletes them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .rules import PATCH, PLAIN, SET, Malformed, Node

__all__ = ["ident", "union_delete"]


def ident(item: Any) -> Any:
    """A hashable identity: exact equality for objects (whatever their key order), and
    type-aware for plain values (``1``, ``1.0``, ``True`` and ``"1"`` differ)."""
    kind = type(item)
    if kind is dict or isinstance(item, dict):
        return frozenset([(key, (type(value), value) if type(value) in PLAIN
                           else ident(value)) for key, value in item.items()])
    if kind is list or isinstance(item, (list, tuple)):
        return (list, tuple([(type(value), value) if type(value) in PLAIN
                             else ident(value) for value in item]))
    try:
        hash(item)
    except TypeError:
        return (kind, repr(item))
    return (kind, item)


def union_delete(out: list[Any], origins: list[Any] | None, item: Mapping[str, Any],
                  node: Node) -> list[Any] | None:
    """Drop, in place, the items matching every field the delete item gives."""
    if node.kind == SET:
        raise Malformed("$patch: delete cannot name an item of a list of plain values",
                        fix="start the list with {$patch: replace} and give the values to keep")
    wanted = [(name, value) for name, value in item.items() if name != PATCH]
    if not wanted:
        raise Malformed("$patch: delete item names no field to match",
                        fix="give the fields of the item to delete")
    keep = [pos for pos, existing in enumerate(out)
            if not (isinstance(existing, dict)
                    and all(existing.get(name) == value for name, value in wanted))]
    out[:] = [out[pos] for pos in keep]
    return None if origins is None else [origins[pos] for pos in keep]

"""Provenance as the merge writes it: each concrete field path -> the layer that set it.
Only used when provenance is recorded (``explain``); the merge passes None otherwise."""

from __future__ import annotations

from typing import Any

from .rules import EMPTY, MAP, SET, UNION, Node, join, key_of, render_key

__all__ = ["Record", "drop", "forget", "record_leaf", "take_origins"]


class Record:
    """Provenance being written: concrete field path -> name of the layer that set it."""

    __slots__ = ("layer", "paths")

    def __init__(self, paths: dict[str, str], layer: str) -> None:
        self.paths = paths
        self.layer = layer


def record_leaf(target: dict[str, Any], key: str, node: Node, path: str,
                record: Record) -> None:
    cpath = join(path, key)
    old = target.get(key)
    if isinstance(old, (dict, list)):
        forget(record, cpath, old, node)
    record.paths[cpath] = record.layer


def drop(target: dict[str, Any], key: str, node: Node, path: str | None,
         record: Record | None) -> None:
    old = target.pop(key)
    if record is not None and path is not None:
        forget(record, join(path, key), old, node)


def forget(record: Record, path: str, value: Any, node: Node) -> None:
    """Remove the provenance of ``value`` at ``path``, which the merge just removed.

    Walks the removed value rather than scanning every recorded path.
    """
    paths = record.paths
    paths.pop(path, None)
    if isinstance(value, dict):
        for key, sub in value.items():
            forget(record, join(path, key), sub, node.fields.get(key, node.fallback))
    elif isinstance(value, list):
        if node.kind == MAP:
            for item in value:
                if isinstance(item, dict):
                    forget(record, f"{path}[{render_key(key_of(item, node))}]", item,
                           node.item or EMPTY)
        elif node.kind in (UNION, SET):
            for pos in range(len(value)):
                paths.pop(f"{path}[{pos}]", None)


def take_origins(record: Record | None, path: str | None, size: int) -> list[Any] | None:
    """The provenance of a union list's items by index, popped (deletions shift them)."""
    if record is None or path is None:
        return None
    return [record.paths.pop(f"{path}[{pos}]", None) for pos in range(size)]

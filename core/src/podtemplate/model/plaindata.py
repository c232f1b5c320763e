"""Copying user data (a pod spec dict, a JSON ``--input``) into plain JSON-shaped data
without recursion: a cyclic, 5,000-deep or alias-multiplied structure is refused with
the field path instead of exhausting the stack or memory."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..errors import InvalidPodSpecError, PodTemplateError, brief
from ..limits import limits

__all__ = ["plain_copy", "MAX_COPIED_NODES"]

# A real pod spec has a few thousand nodes; a shared sub-list repeated at every level
# would have billions once copied.
MAX_COPIED_NODES = 2_000_000
_SCALARS = (str, int, float, bool, type(None))


class _Step:
    """One node's place: its parent's step and its key, for the field path."""

    __slots__ = ("key", "parent")

    def __init__(self, parent: _Step | None, key: str | int | None) -> None:
        self.parent = parent
        self.key = key

    def path(self, root: str) -> str:
        keys: list[str | int] = []
        step: _Step | None = self
        while step is not None and step.key is not None:
            keys.append(step.key)
            step = step.parent
        keys.reverse()
        if len(keys) > 8:  # a path hundreds deep would drown the message
            keys = [*keys[:4], "...", *keys[-2:]]
        text = root
        for key in keys:
            text += f"[{key}]" if isinstance(key, int) else (f".{key}" if text else str(key))
        return text


def plain_copy(value: Any, *, root: str = "spec",
               error: type[PodTemplateError] = InvalidPodSpecError) -> Any:
    """A fresh copy of ``value`` made of dicts (string keys), lists (from lists or tuples)
    and scalars; anything else, nesting past the depth limit (a structure containing
    itself never ends) or more than :data:`MAX_COPIED_NODES` nodes is an ``error``."""
    if isinstance(value, _SCALARS):
        return value
    max_depth = limits().max_depth
    top: list[Any] = [None]
    stack: list[tuple[Any, list[Any] | dict[Any, Any], Any, int, _Step]] = [
        (value, top, 0, 0, _Step(None, None))]
    copied = 0
    while stack:
        item, target, slot, depth, step = stack.pop()
        copied += 1
        if isinstance(item, _SCALARS):
            if type(item) is float and not math.isfinite(item):  # neither JSON nor YAML
                raise error(f"{item} is not a value a manifest can hold",
                            field=step.path(root), fix="give a finite number")
            target[slot] = item
            continue
        if depth >= max_depth or copied > MAX_COPIED_NODES:
            what = (f"nested more than {max_depth} levels deep (or contains itself)"
                    if depth >= max_depth else f"more than {MAX_COPIED_NODES} values")
            raise error(f"the data is {what}", field=step.path(root),
                        fix="give plain nested dicts and lists, as in a YAML manifest")
        if isinstance(item, Mapping):
            out: dict[Any, Any] = {}
            for key, child in item.items():
                if type(key) is not str:
                    raise error(f"key {brief(key)} is not a string", field=step.path(root),
                                fix="write mapping keys as strings")
                out[key] = None
                stack.append((child, out, key, depth + 1, _Step(step, key)))
            target[slot] = out
        elif isinstance(item, (list, tuple)):
            items: list[Any] = [None] * len(item)
            for index, child in enumerate(item):
                stack.append((child, items, index, depth + 1, _Step(step, index)))
            target[slot] = items
        else:
            raise error(f"a {type(item).__name__} is not a value of a manifest",
                        field=step.path(root),
                        fix="give dicts, lists, strings, numbers, booleans or None")
    return top[0]

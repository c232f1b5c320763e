"""The fast paths of the merge, fenced here: everything in this module exists for speed,
and each function has a plain counterpart in :mod:`.engine` that gives the same result
(``core/tests/test_merge_fast.py`` compares the two on generated layers).

- **Flat items.** A dict of plain values without a directive - an env var, a port, a
  mount, a toleration - merged key by key sets each value as it is: dict operations in C
  (``{**item}``, ``update``) do the same.
- **Plain atomic lists.** ``command``, ``args``, ``values``: a list of plain values is
  copied whole (``list(items)``) instead of item by item.
- **Short union lists.** Tolerations and envFrom hold a handful of items: searching them
  with ``==`` (in C) before the type-aware identity beats building an index; long lists
  are still indexed once, so the merge stays linear.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .rules import PATCH

__all__ = ["PLAIN", "SEARCHED", "is_flat", "plain_values", "union_position"]

PLAIN = frozenset({str, int, bool, float})  # leaf types, set as they are
SEARCHED = 16  # union lists up to this length (old and new items) are searched, not indexed


def is_flat(value: Any) -> bool:
    """A plain dict of plain values without a directive: merging it key by key sets each
    value as it is, so it can be copied or applied whole (checked in C)."""
    return (type(value) is dict and PATCH not in value
            and PLAIN.issuperset(map(type, value.values())))


def plain_values(items: Sequence[Any]) -> bool:
    """Every item a plain value: the atomic list is copied whole (checked in C)."""
    return PLAIN.issuperset(map(type, items))


def union_position(out: list[Any], new: Any, ident: Callable[[Any], Any]) -> int | None:
    """Where ``out`` holds an item identical to ``new``. ``==`` is done in C and is True
    whenever the identities agree (it only also equates ``1``, ``1.0`` and ``True``)."""
    for pos, existing in enumerate(out):
        if existing == new and ident(existing) == ident(new):
            return pos
    return None

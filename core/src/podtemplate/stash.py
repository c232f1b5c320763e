"""Typed state for one render: a :class:`Stash` holds one value per :class:`StashKey`,
whose type the key names (pytest keeps plugin state on its nodes the same way). A key is
an object made once, at import, by the module that owns the value: no string names that
two modules could both pick. The same keys name what is kept on an immutable definition
(``compiled(key, make, *parts)`` of a template, task, role or platform) and on a layer
(``Layer.fact``)."""

from __future__ import annotations

from typing import Any, Generic, TypeVar, cast, final

__all__ = ["MEMO_LIMIT", "Stash", "StashKey", "memo"]

T = TypeVar("T")
D = TypeVar("D")
MEMO_LIMIT = 4096  # entries per memo table


@final
class StashKey(Generic[T]):
    """A key of a :class:`Stash` (or of what is compiled from a definition), for values
    of type ``T``. Keys compare by identity: make one per module, at import
    (``FOUND = StashKey[int]("what it holds")``)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"StashKey({self.name!r})"


@final
class Stash:
    """Typed state kept for one render: ``stash[key]`` is of the type ``key`` names."""

    __slots__ = ("_values",)

    def __init__(self) -> None:
        self._values: dict[StashKey[Any], object] = {}

    def __setitem__(self, key: StashKey[T], value: T) -> None:
        self._values[key] = value

    def __getitem__(self, key: StashKey[T]) -> T:
        return cast(T, self._values[key])

    def get(self, key: StashKey[T], default: D) -> T | D:
        return cast("T | D", self._values.get(key, default))

    def setdefault(self, key: StashKey[T], default: T) -> T:
        return cast(T, self._values.setdefault(key, default))

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def __len__(self) -> int:
        return len(self._values)


def memo(stash: Stash, key: StashKey[dict[Any, Any]], limit: int = MEMO_LIMIT
         ) -> dict[Any, Any]:
    """The table ``key`` of ``stash``, for what the tasks of one render share. Beyond
    ``limit`` entries its older half is dropped, so a render's memory does not grow with
    its number of tasks."""
    table = stash.get(key, None)
    if table is None:
        table = stash[key] = {}
    elif len(table) > limit:
        for old in list(table)[: len(table) // 2]:
            del table[old]
    return table

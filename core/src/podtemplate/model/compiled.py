"""What core computes from a frozen definition alone, kept with the definition (compiled
once, when first asked), rather than looked up per render in a table. Each value is kept
under a typed key (:class:`~podtemplate.stash.StashKey`, made once by the module that
owns the value) and the parts it depends on besides the definition: no string names
that two modules could both pick."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any, Self, TypeVar

from pydantic import BaseModel, ConfigDict, PrivateAttr

from ..stash import StashKey

__all__ = ["ENV", "CompiledModel", "compiled_value"]

T = TypeVar("T")

# A task's or role's env list, normalized when it is defined (every render reads it).
ENV = StashKey[list[dict[str, str]]]("the env list of a task or role, normalized")


def compiled_value(store: dict[Hashable, Any], key: StashKey[T], make: Callable[[], T],
                   parts: tuple[Hashable, ...] = ()) -> T:
    """``make()`` the first time ``key`` (with ``parts``) is asked of ``store``, the same
    value afterwards."""
    slot: Hashable = (key, *parts) if parts else key
    found = store.get(slot)
    if found is None:
        found = store[slot] = make()
    value: T = found
    return value


class CompiledModel(BaseModel):
    """A frozen pydantic model that keeps what core compiles from it; a copy compiles
    afresh (its values may differ). Its validator is built when first used, not at import
    (``defer_build``, inherited by every subclass: the config models of plugins too)."""

    model_config = ConfigDict(defer_build=True)

    _compiled: dict[Hashable, Any] = PrivateAttr(default_factory=dict)

    def model_copy(self, *, update: Mapping[str, Any] | None = None,
                   deep: bool = False) -> Self:
        """A copy (with ``update`` applied); what was compiled is made again for it."""
        copied = super().model_copy(update=update, deep=deep)
        copied._compiled = {}
        return copied

    def compiled(self, key: StashKey[T], make: Callable[[], T], *parts: Hashable) -> T:
        """``make()`` the first time ``key`` (with ``parts``) is asked, the same value
        afterwards.

        The store is read from pydantic's own table of private values: ``self._compiled``
        goes through ``BaseModel.__getattr__``, which costs tens of microseconds (it asks
        the private attribute for ``__get__``, an AttributeError each time), and a
        render asks this of its platform and roles several times per task."""
        private = self.__pydantic_private__
        store = private["_compiled"] if private is not None else self._compiled
        return compiled_value(store, key, make, parts)

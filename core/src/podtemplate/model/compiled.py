"""What core computes from a frozen definition alone, kept with the definition (compiled
once, when first asked), rather than looked up per render in a table."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any, Self, TypeVar

from pydantic import BaseModel, ConfigDict, PrivateAttr

__all__ = ["CompiledModel", "compiled_value"]

T = TypeVar("T")


def compiled_value(store: dict[Hashable, Any], key: Hashable, make: Callable[[], T]) -> T:
    """``make()`` the first time ``key`` is asked of ``store``, the same value afterwards."""
    found = store.get(key)
    if found is None:
        found = store[key] = make()
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

    def compiled(self, key: Hashable, make: Callable[[], T]) -> T:
        """``make()`` the first time ``key`` is asked, the same value afterwards.

        The store is read from pydantic's own table of private values: ``self._compiled``
        goes through ``BaseModel.__getattr__``, which costs tens of microseconds (it asks
        the private attribute for ``__get__``, an AttributeError each time), and a
        render asks this of its platform and roles several times per task."""
        private = self.__pydantic_private__
        store = private["_compiled"] if private is not None else self._compiled
        return compiled_value(store, key, make)

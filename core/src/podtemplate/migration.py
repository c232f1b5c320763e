"""Spellings kept for code written for flytekit (docs/from-flytekit.md): each is taken
with a one-time warning naming podtemplate's own spelling. Where flytekit's meaning
differs, the spelling is refused instead, with the exact replacement."""

from __future__ import annotations

import warnings

__all__ = ["MigrationWarning", "warn_alias"]


class MigrationWarning(FutureWarning):
    """A flytekit spelling was used where podtemplate has its own (shown by default, once
    per spelling and process)."""


_WARNED: set[str] = set()


def warn_alias(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn once per process that ``old`` (flytekit's spelling) is taken as ``new``."""
    if old in _WARNED:
        return
    _WARNED.add(old)
    warnings.warn(f"{old} is flytekit's spelling; podtemplate takes it as {new} "
                  f"(write {new} to silence this)", MigrationWarning, stacklevel=stacklevel)

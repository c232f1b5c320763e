"""Spellings kept for code written for flytekit (docs/from-flytekit.md): each is taken
with a one-time warning naming podtemplate's own spelling. Where flytekit's meaning
differs, the spelling is refused instead, with the exact replacement."""

from __future__ import annotations

import warnings

from .model.sites import definition_site

__all__ = ["MigrationWarning", "warn_alias"]


class MigrationWarning(FutureWarning):
    """A flytekit spelling was used where podtemplate has its own (shown by default, once
    per spelling and process)."""


_WARNED: set[str] = set()


def warn_alias(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn once per process that ``old`` (flytekit's spelling) is taken as ``new``,
    located at the user's line (the first frame outside podtemplate, its plugins and
    pydantic); ``stacklevel`` is used when no such frame is found."""
    if old in _WARNED:
        return
    _WARNED.add(old)
    message = (f"{old} is flytekit's spelling; podtemplate takes it as {new} "
               f"(write {new} to silence this)")
    site = definition_site()
    if site is None:
        warnings.warn(message, MigrationWarning, stacklevel=stacklevel)
        return
    warnings.warn_explicit(message, MigrationWarning, site.file, site.line,
                           module=site.module)

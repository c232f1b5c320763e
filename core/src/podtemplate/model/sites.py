"""Where a definition was written: the file and line of the user's ``PodTemplate(...)``,
``@task(...)`` or ``Role(...)`` call, for ``explain``.

Taken when the object is made (a few frame hops, no source read), because afterwards
nothing knows it any more.
"""

from __future__ import annotations

import sys
from types import FrameType

__all__ = ["DefinitionSite", "definition_site"]

# Frames of these modules are podtemplate's (or its libraries') own: the site is the
# first frame outside them.
_INTERNAL = ("podtemplate", "pydantic", "dataclasses", "functools", "contextlib")
_MAX_HOPS = 24


class DefinitionSite:
    """A file and line. Equal to every other site: where an object was defined is not
    part of what it is, so two equal templates written on different lines stay equal."""

    __slots__ = ("file", "line", "module")

    def __init__(self, file: str, line: int, module: str | None = None) -> None:
        self.file = file
        self.line = line
        self.module = module  # the module the definition was written in

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DefinitionSite)

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return f"DefinitionSite({self.file!r}, {self.line})"


def _internal(module: str) -> bool:
    head = module.partition(".")[0]
    return head.startswith(_INTERNAL)


def definition_site() -> DefinitionSite | None:
    """The first caller frame outside podtemplate, its plugins and the libraries they
    build on; None when there is none within reach (or no frames, as on some VMs)."""
    frame: FrameType | None
    try:
        frame = sys._getframe(1)
    except (AttributeError, ValueError):
        return None
    for _ in range(_MAX_HOPS):
        if frame is None:
            return None
        module = frame.f_globals.get("__name__", "")
        if not _internal(module) and not frame.f_code.co_filename.startswith("<"):
            return DefinitionSite(frame.f_code.co_filename, frame.f_lineno, module or None)
        frame = frame.f_back
    return None

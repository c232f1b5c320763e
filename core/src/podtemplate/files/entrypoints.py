"""The ``podtemplate`` entry points installed, read from the distributions' metadata folders
on ``sys.path`` as :func:`importlib.metadata.entry_points` reads them, without importing
:mod:`importlib.metadata`: its import (through :mod:`email`, for the metadata headers a
plugin list does not need) costs a one-task render about a tenth of its CPU time.

The answer is the standard library's: the same entry points in the same order, the first
distribution of a name on ``sys.path`` shadowing later ones (``core/tests/test_entrypoints.py``
compares the two). Where ``sys.path`` holds an archive or an entry that is not a string,
or a finder on ``sys.meta_path`` other than the standard one lists distributions of its
own, the standard library is asked instead: only it knows those. A line of
``entry_points.txt`` with no ``=``, on which the standard library raises, is passed over.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

__all__ = ["InstalledEntryPoint", "entry_points"]

_METADATA_SUFFIXES = (".dist-info", ".egg-info")
_SEPARATORS = re.compile(r"[-_.]+")


class InstalledEntryPoint(NamedTuple):
    """One entry point: ``name = value`` of ``group`` in a distribution's metadata folder
    (``folder`` None when the standard library found it where no folder is; then
    ``read_distribution`` gives its distribution's name and version)."""

    name: str
    value: str
    group: str
    folder: str | None
    read_distribution: Callable[[], tuple[str, str]] | None = None

    @property
    def module(self) -> str:
        """The module before ``:`` (extras ``[...]`` left out)."""
        return self.value.partition(":")[0].partition("[")[0].strip()

    @property
    def attr(self) -> str | None:
        """The attribute after ``module:`` (extras ``[...]`` left out), or None."""
        attribute = self.value.partition(":")[2].partition("[")[0].strip()
        return attribute or None

    def load(self) -> Any:
        """Import the module and return the attribute the value names (the module itself
        when it names none)."""
        found: Any = importlib.import_module(self.module)
        for part in (self.attr or "").split(".") if self.attr else ():
            found = getattr(found, part)
        return found

    @property
    def distribution(self) -> tuple[str, str]:
        """The name and version of the distribution that installed it, as its metadata
        spells them (read when asked: error messages and the plugin list)."""
        if self.read_distribution is not None:
            return self.read_distribution()
        return _headers(self.folder) if self.folder else ("", "")


def entry_points(group: str) -> list[InstalledEntryPoint]:
    """Every entry point of ``group``, in the order :func:`importlib.metadata.entry_points`
    gives them."""
    if not _plain_path():
        return _from_standard_library(group)
    found: list[InstalledEntryPoint] = []
    seen: set[str] = set()
    for folder in _metadata_folders():
        name = _normalized(_distribution_name(folder))
        if name in seen:
            continue
        seen.add(name)
        found.extend(_read(folder, group))
    return found


def _plain_path() -> bool:
    """Whether every distribution lies in a metadata folder on ``sys.path`` (none in an
    archive or an egg, none listed by a finder of another kind, no entry but a string)."""
    for finder in sys.meta_path:
        if hasattr(finder, "find_distributions") and getattr(
                finder, "__module__", "") != "_frozen_importlib_external":
            return False
    return all(isinstance(path, str) for path in sys.path) and not any(
        os.path.isfile(path) or path.lower().endswith(".egg") for path in sys.path if path)


def _metadata_folders() -> Iterator[str]:
    """Each ``*.dist-info`` and ``*.egg-info`` folder of each ``sys.path`` folder, in
    listing order (as the standard library lists them)."""
    for path in sys.path:
        try:
            names = os.listdir(path or ".")
        except OSError:
            continue
        for name in names:
            if name.lower().endswith(_METADATA_SUFFIXES):
                yield os.path.join(path or ".", name)


def _normalized(name: str) -> str:
    return _SEPARATORS.sub("_", name).lower()


def _distribution_name(folder: str) -> str:
    """The distribution's name as the standard library tells two apart: from the folder's
    name (``Name-1.0.dist-info``), but from its metadata where the suffix is not in lower
    case."""
    stem, suffix = os.path.splitext(os.path.basename(folder))
    return stem.partition("-")[0] if suffix in _METADATA_SUFFIXES else _headers(folder)[0]


def _read(folder: str, group: str) -> Iterator[InstalledEntryPoint]:
    """The entry points of ``group`` in ``folder``'s ``entry_points.txt`` (an INI file:
    ``[group]`` headers, ``name = value`` lines, ``#`` comments)."""
    try:
        with open(os.path.join(folder, "entry_points.txt"), encoding="utf-8") as file:
            text = file.read()
    except OSError:
        return
    section = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")  # as the standard library: "[ a ]" is " a "
        elif section == group and "=" in line:
            name, _, value = line.partition("=")
            yield InstalledEntryPoint(name.strip(), value.strip(), group, folder)


def _headers(folder: str) -> tuple[str, str]:
    """``Name`` and ``Version`` from a metadata folder's ``METADATA`` (``PKG-INFO`` in an
    egg-info folder, or where ``METADATA`` is empty)."""
    values = {"name": "", "version": ""}
    for file_name in ("METADATA", "PKG-INFO"):
        try:
            with open(os.path.join(folder, file_name), encoding="utf-8") as file:
                text = file.read()
        except OSError:
            continue
        if text:
            break
    else:
        return "", ""
    for line in text.splitlines():
        if not line.strip():
            break
        key, _, value = line.partition(":")
        if key.lower() in values and not values[key.lower()]:
            values[key.lower()] = value.strip()
    return values["name"], values["version"]


def _from_standard_library(group: str) -> list[InstalledEntryPoint]:
    from importlib import metadata

    found = []
    for point in metadata.entry_points(group=group):
        dist = point.dist

        def distribution(dist: Any = dist) -> tuple[str, str]:
            return (dist.metadata["Name"], dist.version) if dist is not None else ("", "")

        found.append(InstalledEntryPoint(point.name, point.value, group, None, distribution))
    return found

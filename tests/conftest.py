"""Fixtures the tests of the repository's own tree share."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def forget_task_modules(tmp_path: Path) -> Iterator[None]:
    """The task modules a test imports from its ``tmp_path`` in this process are forgotten
    afterwards, and ``sys.path`` put back: another test's ``tasks.py`` must not meet this
    one's in ``sys.modules`` (the plugins it loaded stay: reloading them costs more)."""
    before, path = set(sys.modules), list(sys.path)
    yield
    for name in set(sys.modules) - before:
        origin = getattr(sys.modules[name], "__file__", None) or ""
        if origin.startswith(str(tmp_path)):
            del sys.modules[name]
    sys.path[:] = path

"""The cyclic garbage collector paused while podtemplate makes many objects and few
cycles: a render, and the ``podtemplate`` command as a whole (its imports included)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off inside, restored as it was afterwards, also on
    error. A render makes many objects and few cycles (reference counting frees its
    garbage): left on, the collector's passes over the whole heap cost as much as the
    render itself on a large task set, and about a twentieth of a one-task CLI run
    (its passes over what the imports made)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()

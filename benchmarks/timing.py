"""Timing primitives: each figure is a ratio of two timings taken in the same run, back
to back and repeated, so that machine noise hits both sides alike.

Times are CPU seconds of this process (``time.process_time``): other load on the machine
stretches the wall clock, not the work done here.
"""

from __future__ import annotations

import functools
import gc
import json
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pluggy
from podtemplate import Task
from podtemplate.dispatch import build_plugin_manager
from podtemplate.render import iter_render, make_context, render_all

__all__ = ["Paired", "Timed", "bracketed", "cpu_seconds", "json_floor", "json_load",
           "paired", "plugin_manager", "render_in_memory", "render_streamed"]

Timed = Callable[[], float]


@functools.cache
def plugin_manager() -> pluggy.PluginManager:
    """One plugin manager for the whole run: entry points are loaded once, as in the CLI."""
    return build_plugin_manager()


@dataclass(frozen=True)
class Paired:
    """Two timings, ``a`` and ``b``, taken back to back ``repeat`` times."""

    a: tuple[float, ...]
    b: tuple[float, ...]

    @property
    def best(self) -> tuple[float, float]:
        """The fastest of each: the least disturbed by the rest of the machine."""
        return min(self.a), min(self.b)

    @property
    def ratio(self) -> float:
        """b / a: the median of the ratios of each pair. A pair is timed back to back, so
        a slow phase of the machine hits both sides; the median drops the odd pair."""
        return statistics.median(b / a for a, b in zip(self.a, self.b, strict=True))


def paired(a: Timed, b: Timed, repeat: int) -> Paired:
    """Run ``a`` and ``b`` back to back, ``repeat`` times, never in blocks and in
    alternating order (A B, B A, A B ...): whatever going first or second does to a
    timing falls on both sides alike."""
    pairs = []
    for index in range(repeat):
        if index % 2:
            second = b()
            pairs.append((a(), second))
        else:
            first = a()
            pairs.append((first, b()))
    return Paired(tuple(x for x, _ in pairs), tuple(y for _, y in pairs))


def bracketed(a: Timed, b: Timed, repeat: int) -> Paired:
    """Like :func:`paired` for a ``b`` that takes much longer than ``a``: A B A B ... A,
    each ``b`` paired with the mean of the two ``a`` around it, so that a machine
    speeding up or slowing down during the long ``b`` weighs on both sides alike."""
    before = a()
    pairs = []
    for _ in range(repeat):
        during = b()
        after = a()
        pairs.append(((before + after) / 2, during))
        before = after
    return Paired(tuple(x for x, _ in pairs), tuple(y for _, y in pairs))


def render_in_memory(tasks: Sequence[Task], platform: Path, keep: list[Any] | None = None,
                     *, collect: bool = True, clean: bool = True) -> float:
    """Seconds to resolve and build every manifest of ``tasks`` into memory.

    A fresh render context per run (nothing is reused between runs), with its template
    folder read before the clock starts: that is a one-off cost per render, not per task.
    The manifests go to ``keep`` when given (so the floor can copy the same output).
    ``collect=False`` times with the cyclic garbage collector off; ``clean=False`` starts
    the clock without collecting first, on whatever heap the process has, as users run.
    """
    context = make_context(platform=platform, plugin_manager=plugin_manager())
    _ = context.store
    with _collector(collect, clean=clean):
        start = time.process_time()
        manifests = render_all(tasks, context)
        elapsed = time.process_time() - start
    if keep is not None:
        keep[:] = manifests
    del manifests  # freed here, outside the clock
    return elapsed


def render_streamed(tasks: Sequence[Task], platform: Path) -> float:
    """Like :func:`render_in_memory`, but each manifest is dropped as soon as it is made,
    as ``podtemplate render`` does: the render's own cost, without holding the output."""
    context = make_context(platform=platform, plugin_manager=plugin_manager())
    _ = context.store
    with _collector(True):
        start = time.process_time()
        for _manifest in iter_render(tasks, context):
            pass
        elapsed = time.process_time() - start
    return elapsed


def json_floor(manifests: list[Any], *, collect: bool = True, clean: bool = True) -> float:
    """Seconds to ``json.loads(json.dumps(...))`` the manifests: the cost of merely
    producing a copy of the output."""
    return cpu_seconds(lambda: json.loads(json.dumps(manifests)), collect=collect, clean=clean)


def json_load(text: str, *, collect: bool = True) -> float:
    """Seconds to ``json.loads`` the text: making the output's objects, and nothing else."""
    return cpu_seconds(lambda: json.loads(text), collect=collect)


def cpu_seconds(work: Callable[[], object], *, collect: bool = True,
                clean: bool = True) -> float:
    """CPU seconds of ``work()`` from a clean heap (unless ``clean`` is False), the
    collector on (as users run) or off; what it made is dropped once the clock has
    stopped."""
    with _collector(collect, clean=clean):
        start = time.process_time()
        made = work()
        elapsed = time.process_time() - start
    del made
    return elapsed


@contextmanager
def _collector(enabled: bool, *, clean: bool = True) -> Iterator[None]:
    """A clean heap to start from (``clean``); the cyclic collector on (as users run) or
    off."""
    if clean:
        gc.collect()
    if not enabled:
        gc.disable()
    try:
        yield
    finally:
        gc.enable()

"""The in-process figures: throughput, floor ratio, task scaling, template scaling and the
cost of provenance support when it is off."""

from __future__ import annotations

import gc
import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from podtemplate import Task
from podtemplate.merge.engine import merge

from .strip_provenance import StripError, stripped_merge, swapped_merge
from .timing import (
    Paired,
    bracketed,
    json_floor,
    json_load,
    paired,
    render_in_memory,
    render_streamed,
)

__all__ = ["Throughput", "throughput", "first_render", "task_scaling", "floor_scaling",
           "template_scaling", "explain_cost_off", "digest"]


@dataclass(frozen=True)
class Throughput:
    """One task set rendered in memory, against the floor of copying its output; with
    the garbage collector on (as users run) and off (the bare work)."""

    tasks: int
    manifests: int
    on: Paired  # (floor, render)
    off: Paired

    @property
    def seconds(self) -> float:
        return self.on.best[1]

    @property
    def tasks_per_second(self) -> float:
        return self.tasks / self.seconds

    @property
    def floor_ratio(self) -> float:
        return self.on.ratio

    @property
    def floor_ratio_gc_off(self) -> float:
        return self.off.ratio


def throughput(tasks: Sequence[Task], platform: Path, repeat: int, *, clean: bool = True
               ) -> tuple[Throughput, list[Any]]:
    """Copy the output and render ``tasks``, back to back, ``repeat`` times; with the
    collector on and off. Returns the output too. ``clean=False``: neither side collects
    garbage before its clock starts (the realistic mix: a user's process does not)."""
    output: list[Any] = []
    render_in_memory(tasks, platform, output)  # warm up: imports, caches of the process
    on = paired(lambda: json_floor(output, clean=clean),
                lambda: render_in_memory(tasks, platform, clean=clean), repeat)
    off = paired(lambda: json_floor(output, collect=False, clean=clean),
                 lambda: render_in_memory(tasks, platform, collect=False, clean=clean),
                 repeat)
    return Throughput(len(tasks), len(output), on, off), output


TaskSet = Callable[[], Sequence[Task]]


def first_render(tasks_of: TaskSet, platform: Path, repeat: int) -> tuple[float, ...]:
    """Seconds of the first render of tasks just defined, ``repeat`` times, each on a
    task set made afresh before its clock starts: what a one-off ``podtemplate render``
    pays, compiling on first use what later renders of the same definitions reuse (the
    throughput figures time those later renders). No collection before the clock."""
    return tuple(render_in_memory(tasks_of(), platform, clean=False) for _ in range(repeat))


def task_scaling(small: TaskSet, large: TaskSet, platform: Path, repeat: int,
                 *, streamed: bool = False) -> Paired:
    """Render times of the small and the large task set, each large render bracketed by
    two small ones; ``streamed`` drops each manifest as it is made instead of keeping
    them all.

    Each render holds only its own tasks, made afresh before its clock starts, as a
    process rendering N tasks holds N definitions: with both sets alive, the N render
    would run in a heap about eleven times its own, where the collector's passes over
    the whole heap come rarely, and look cheaper than it is.
    """
    timed = render_streamed if streamed else render_in_memory
    return bracketed(lambda: timed(small(), platform), lambda: timed(large(), platform),
                     repeat)


def floor_scaling(small: TaskSet, large: TaskSet, small_text: str, large_text: str,
                  repeat: int) -> Paired:
    """What making the output alone does at 10N against N: ``json.loads`` of the 10N and
    of the N output's JSON text, bracketed as the render is and beside a task set made
    afresh as the render's is - the same objects made in the same heap, without the
    resolution. The collector's full passes over that growing heap, not the render,
    are what grows faster than the output."""
    def timed(tasks_of: TaskSet, text: str) -> float:
        tasks = tasks_of()  # held during the load, as a render holds its tasks
        seconds = json_load(text)
        del tasks
        return seconds

    return bracketed(lambda: timed(small, small_text), lambda: timed(large, large_text),
                     repeat)


def _big_template(size: int, start: int) -> dict[str, Any]:
    """A PodSpec with ``size`` env vars and ``size`` volumes, numbered from ``start``."""
    env = [{"name": f"VAR_{i}", "value": f"value-{i}"} for i in range(start, start + size)]
    volumes = [{"name": f"vol-{i}", "configMap": {"name": f"config-{i}"}}
               for i in range(start, start + size)]
    return {"containers": [{"name": "primary", "env": env}], "volumes": volumes}


def _time_merge(size: int, batch: int) -> float:
    """Seconds per merge of a template of ``size`` env vars and volumes over another of
    the same size, half of the keys shared (merged item by item), half new (appended).

    ``batch`` merges of distinct templates are timed together and their results kept
    until the end, so that a small merge allocates fresh memory as a large one does: timed
    alone, it would reuse memory the process already holds, while the large one pays for
    new pages, and the ratio would show the allocator instead of the merge.
    """
    pairs = [(_big_template(size, 0), _big_template(size, size // 2)) for _ in range(batch)]
    gc.collect()
    start = time.process_time()
    merged = [merge(lower, higher) for lower, higher in pairs]
    elapsed = time.process_time() - start
    assert all(len(m["volumes"]) == size + size // 2 for m in merged), "keyed merge lost items"
    return elapsed / batch


def template_scaling(repeat: int, sizes: tuple[int, int] = (1_000, 10_000)) -> Paired:
    """Merge times of the small and the large template (the same memory in all)."""
    small, large = sizes
    return paired(lambda: _time_merge(small, large // small), lambda: _time_merge(large, 1),
                  repeat)


@dataclass(frozen=True)
class ExplainCost:
    timings: Paired  # (without provenance support, with it)

    @property
    def seconds_without_support(self) -> float:
        return self.timings.best[0]

    @property
    def seconds_with_support(self) -> float:
        return self.timings.best[1]

    @property
    def overhead(self) -> float:
        return self.timings.ratio - 1.0


def explain_cost_off(tasks: Sequence[Task], platform: Path, repeat: int,
                     expected: list[Any]) -> ExplainCost | None:
    """Render with provenance off, with the merge as shipped and with the merge compiled
    without provenance support (see :mod:`benchmarks.strip_provenance`), back to back.
    The stripped build must render exactly the same output, or the figure is void."""
    try:
        bare = stripped_merge()
    except (StripError, SyntaxError) as error:
        print(f"note: explain cost not measured: {error}")
        return None

    def without_support(keep: list[Any] | None = None) -> float:
        with swapped_merge(bare):
            return render_in_memory(tasks, platform, keep)

    check: list[Any] = []
    without_support(check)
    if digest(check) != digest(expected):
        print("note: explain cost not measured: the stripped merge renders differently")
        return None
    return ExplainCost(paired(without_support, lambda: render_in_memory(tasks, platform),
                              repeat))


def digest(manifests: list[Any]) -> str:
    """A fingerprint of rendered output, to show runs with one seed agree."""
    text = json.dumps(manifests, sort_keys=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]

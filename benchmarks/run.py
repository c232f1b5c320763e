"""The harness: ``python -m benchmarks [-n N] [--seed S] [--small]``.

Prints a table of figures, then, as its last line, one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from podtemplate import Task

from .e2e import run_cli, write_task_module
from .figures import (
    digest,
    explain_cost_off,
    first_render,
    floor_scaling,
    task_scaling,
    template_scaling,
    throughput,
)
from .flytekit_side import side_by_side
from .generate import available_types, generate_tasks
from .report import Report
from .timing import render_in_memory
from .workload import REALISTIC_TYPES, write_platform

__all__ = ["main"]

SMALL_N = 40
REALISTIC_N = 1200  # the realistic mix of issue 17: 200 tasks of each of six types
SMALL_REALISTIC_N = 36
IN_MEMORY_MODULE = "bench_tasks"  # the module name the in-memory tasks claim


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("-n", type=int, default=2000, help="tasks per measurement (10N "
                        "for the scaling figures); default 2000")
    parser.add_argument("--small", action="store_true",
                        help=f"smoke run: N={SMALL_N}, one repetition")
    parser.add_argument("--seed", type=int, default=20260101)
    parser.add_argument("--repeat", type=int, default=None,
                        help="repetitions per timing; default 3 (5 for the mixed floor "
                        "ratio, the floor's scaling and template scaling, 9 for task "
                        "scaling, 15 for explain), 1 with --small")
    parser.add_argument("--realistic-n", type=int, default=None,
                        help=f"tasks of the realistic mix (every task its own template, "
                        f"no collection before the clock); default {REALISTIC_N}, "
                        f"{SMALL_REALISTIC_N} with --small")
    parser.add_argument("--types", nargs="*", default=None,
                        help="task types to include (default: every installed type)")
    parser.add_argument("--skip-cli", action="store_true",
                        help="skip the end-to-end CLI figures (child processes)")
    options = parser.parse_args(argv)
    if options.small:
        options.n = SMALL_N
    if options.realistic_n is None:
        options.realistic_n = SMALL_REALISTIC_N if options.small else REALISTIC_N
    if options.repeat is None:
        options.repeat = 1 if options.small else 3
    return options


def main(argv: Sequence[str] | None = None) -> int:
    options = parse(argv)
    types, notes = available_types(options.types)
    for note in notes:
        print(f"note: {note}")
    if not types:
        print("no task type to measure", file=sys.stderr)
        return 2
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="podtemplate-bench-") as scratch:
        report = measure(options, types, Path(scratch))
    report.extra["skipped"] = notes + report.extra.get("skipped", [])
    report.extra["harness_seconds"] = round(time.perf_counter() - started, 1)
    report.print_table()
    print(json.dumps(report.as_json(), sort_keys=False))
    return 0


def measure(options: argparse.Namespace, types: list[str], scratch: Path) -> Report:
    n, seed, repeat = options.n, options.seed, options.repeat
    platform = write_platform(scratch / "platform")
    report = Report(n=n, seed=seed, types=types, repeat=repeat)
    # First, while the heap is small: a full collection traversing the workloads built
    # below would land on one of the two merges and blur a figure about the merge.
    report.template_scaling = template_scaling(max(repeat, 5))
    for task_type in types:
        one_type = generate_tasks(n, [task_type], seed=seed, module=IN_MEMORY_MODULE)
        report.add_throughput(task_type, throughput(one_type, platform, repeat)[0])
        del one_type
    mixed = generate_tasks(n, types, seed=seed, module=IN_MEMORY_MODULE)
    # The headline figure: five pairs, so that one disturbed pair cannot move the median.
    mixed_figures, output = throughput(mixed, platform, _more(repeat))
    report.add_throughput("mixed", mixed_figures)
    report.extra["output_digest"] = digest(output)
    # The two sides differ by a few percent at most: many pairs, so the median holds.
    report.explain = explain_cost_off(mixed, platform, 5 * repeat, output)
    del output, mixed
    realistic_types = [name for name in types if name in REALISTIC_TYPES]

    def realistic() -> list[Task]:
        return generate_tasks(options.realistic_n, realistic_types, seed=seed,
                              module=IN_MEMORY_MODULE, realistic=True)

    if realistic_types:
        # What users meet: every task its own template, no collection before the clock.
        report.realistic, realistic_output = throughput(realistic(), platform, _more(repeat),
                                                        clean=False)
        report.realistic_digest = digest(realistic_output)
        del realistic_output
        report.realistic_first = first_render(realistic, platform, _more(repeat))
    # Each render of the scaling figures holds only its own task set (see task_scaling).

    def small() -> list[Task]:
        return generate_tasks(n, types, seed=seed, module=IN_MEMORY_MODULE)

    def large() -> list[Task]:
        return generate_tasks(10 * n, types, seed=seed, module=IN_MEMORY_MODULE)

    report.task_scaling = task_scaling(small, large, platform, _most(repeat))
    report.task_scaling_streamed = task_scaling(small, large, platform, repeat, streamed=True)
    report.task_scaling_floor = floor_scaling(small, large, _output_text(small(), platform),
                                              _output_text(large(), platform), _more(repeat))
    if not options.skip_cli:
        report.cli = [_cli(scratch, platform, size, seed, types) for size in (n, 10 * n)]
    # Last: importing flytekit fills the heap that every figure above is measured in.
    if "python" in types:
        _side_by_side(report, "python", generate_tasks(n, ["python"], seed=seed,
                                                       module=IN_MEMORY_MODULE),
                      platform, repeat, clean=True)
    if realistic_types and "flytekit is not installed" not in " ".join(
            report.extra.get("skipped", [])):
        _side_by_side(report, "realistic", realistic(), platform, _more(repeat),
                      clean=False)
    return report


def _side_by_side(report: Report, workload: str, tasks: list[Task], platform: Path,
                  repeat: int, *, clean: bool) -> None:
    compared, notes = side_by_side(tasks, platform, repeat, workload=workload, clean=clean)
    for note in notes:
        print(f"note: {note}")
        report.extra.setdefault("skipped", []).append(note)
    if compared is not None:
        report.side_by_side[workload] = compared


def _output_text(tasks: list[Task], platform: Path) -> str:
    """The rendered output of ``tasks`` as JSON text, to be loaded again when needed."""
    output: list[Any] = []
    render_in_memory(tasks, platform, output)
    return json.dumps(output)


def _more(repeat: int) -> int:
    """Repetitions for the figures with a target that a busy machine moves most: a median
    of five pairs rides it out better than one of three."""
    return repeat if repeat < 3 else max(repeat, 5)


def _most(repeat: int) -> int:
    """Repetitions for task scaling: the kernel's time to hand the 10N render fresh
    memory (the N render reuses what the process holds) moved by 0.15-0.85 s between
    identical 10N renders on the development VM, so the median is taken over nine
    brackets."""
    return repeat if repeat < 3 else 3 * repeat


def _cli(scratch: Path, platform: Path, n: int, seed: int, types: list[str]) -> Any:
    module = write_task_module(scratch, n, seed, types)
    return run_cli(module, platform, scratch / f"rendered_{n}.yaml", n)

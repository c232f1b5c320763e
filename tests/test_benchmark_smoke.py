"""The performance harness runs end to end at a tiny N and reports every figure.

Times are not asserted (CI machines vary); the figures' presence and shape are.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_harness_prints_every_figure_as_its_last_line() -> None:
    done = subprocess.run([sys.executable, "-m", "benchmarks", "-n", "8", "--repeat", "1",
                           "--realistic-n", "12"],
                          cwd=REPO, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.strip().splitlines()
    figures = json.loads(lines[-1])
    sys.path.insert(0, str(REPO))
    try:
        from benchmarks import JSON_KEYS, TARGETS
    finally:
        sys.path.remove(str(REPO))
    assert list(figures) == list(JSON_KEYS)
    assert set(figures["targets"]) == set(TARGETS)
    assert figures["n"] == 8 and "python" in figures["task_types"]
    assert set(figures["throughput_tasks_per_s"]) == {*figures["task_types"], "mixed"}
    for name, target in figures["targets"].items():
        assert isinstance(target["value"], float), name
        assert isinstance(target["met"], bool), name
    assert figures["cli_peak_rss_mb"]["10n"] > 0
    side = figures["flytekit_side_by_side"]
    realistic = figures["realistic"]
    assert realistic["tasks"] == 12 and realistic["tasks_per_s"] > 0
    assert isinstance(realistic["floor_ratio"], float)
    # the first render of tasks just defined compiles what later renders reuse
    assert realistic["first_render_tasks_per_s"] > 0
    assert realistic["first_render_over_later"] > 0
    if importlib.util.find_spec("flytekit") is None:  # the project's venvs have none
        assert side is None and realistic["flytekit_over_podtemplate"] is None
        assert any("flytekit is not installed" in note for note in figures["skipped"])
    else:
        assert side["python"]["tasks"] == 8 and side["python"]["flytekit_over_podtemplate"] > 0
        assert side["realistic"]["tasks"] == 12
        assert realistic["flytekit_over_podtemplate"] > 0
    assert "flytekit_target" not in realistic  # withdrawn: reported, not targeted
    assert "floor_ratio" in done.stdout.split(lines[-1])[0]  # the table came first


def test_bracketed_pairs_each_long_run_with_the_mean_of_its_neighbours() -> None:
    sys.path.insert(0, str(REPO))
    try:
        from benchmarks.timing import bracketed
    finally:
        sys.path.remove(str(REPO))
    shorts, longs = iter([1.0, 3.0, 5.0]), iter([10.0, 40.0])
    timings = bracketed(lambda: next(shorts), lambda: next(longs), 2)
    assert timings.a == (2.0, 4.0) and timings.b == (10.0, 40.0)
    assert timings.ratio == 7.5  # the median of 10/2 and 40/4


def test_paired_alternates_which_side_goes_first() -> None:
    sys.path.insert(0, str(REPO))
    try:
        from benchmarks.timing import paired
    finally:
        sys.path.remove(str(REPO))
    calls: list[str] = []

    def side(name: str, seconds: float) -> float:
        calls.append(name)
        return seconds

    timings = paired(lambda: side("a", 1.0), lambda: side("b", 3.0), 3)
    assert calls == ["a", "b", "b", "a", "a", "b"]
    assert timings.a == (1.0, 1.0, 1.0) and timings.b == (3.0, 3.0, 3.0)

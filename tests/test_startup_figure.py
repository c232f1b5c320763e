"""The start-up figure of the harness (``python -m benchmarks.startup``) runs and reports
both ratios; times are not asserted (machines vary), their presence and shape are."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_startup_figure_reports_both_ratios() -> None:
    done = subprocess.run([sys.executable, "-m", "benchmarks.startup", "--repeat", "1"],
                          cwd=REPO, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(figures["cpu_seconds"]) == {"baseline", "render", "help"}
    assert all(seconds > 0 for seconds in figures["cpu_seconds"].values())
    ratio = figures["cpu_seconds"]["render"] / figures["cpu_seconds"]["baseline"]
    assert abs(figures["cli_startup_ratio"] - ratio) < 0.05  # rounded figures
    assert figures["met"] is (figures["cli_startup_ratio"] <= figures["target"])
    assert "ratio" in done.stdout.splitlines()[1]

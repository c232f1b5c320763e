"""The CLI's start-up: ``python -m benchmarks.startup [--repeat R]``.

``cli_startup_ratio`` is the CPU time of ``podtemplate render one.py`` (one task, no
platform file) over that of ``python -c "import pydantic, yaml, click, pluggy"`` (the
libraries any such CLI loads), both measured in the same run, alternately, the least of
``R`` runs each; ``cli_help_ratio`` is the same for ``podtemplate --help``. CPU time of
the children, not the wall clock: other work on the machine does not stretch it.
Prints a table, then one JSON object as its last line. Target: ``cli_startup_ratio``
<= 2.0.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["cli_startup", "TARGET", "main"]

TARGET = 2.0
ONE_TASK = '''from podtemplate import task


@task(image="python:3.11")
def hello() -> None: ...
'''
_BASELINE = "import pydantic, yaml, click, pluggy"
# What the installed ``podtemplate`` console script runs (its entry point, core/pyproject.toml).
_CLI = "import sys; from podtemplate import _command; sys.argv[0] = 'podtemplate'; _command()"


# A user's installed CLI starts from cached bytecode; a shell that forbids writing it
# (PYTHONDONTWRITEBYTECODE) would make every child compile the package again.
_ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def _cpu(argv: list[str]) -> float:
    """CPU seconds (user + system) of one child run to completion."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, check=False, env=_ENV)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise RuntimeError(f"{' '.join(argv)} failed: {done.stderr.strip()[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def cli_startup(repeat: int = 5) -> dict[str, Any]:
    """The figures, measured now."""
    python = sys.executable
    with tempfile.TemporaryDirectory() as scratch:
        module = Path(scratch) / "one.py"
        module.write_text(ONE_TASK, encoding="utf-8")
        commands = {
            "baseline": [python, "-c", _BASELINE],
            "render": [python, "-c", _CLI, "render", str(module)],
            "help": [python, "-c", _CLI, "--help"],
        }
        for argv in commands.values():  # warm: bytecode written, files cached
            _cpu(argv)
        best = {name: float("inf") for name in commands}
        for _ in range(repeat):
            for name, argv in commands.items():
                best[name] = min(best[name], _cpu(argv))
    ratio = best["render"] / best["baseline"]
    return {
        "cli_startup_ratio": round(ratio, 2),
        "cli_help_ratio": round(best["help"] / best["baseline"], 2),
        "cpu_seconds": {name: round(value, 3) for name, value in best.items()},
        "repeat": repeat,
        "target": TARGET,
        "met": ratio <= TARGET,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.startup",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    figures = cli_startup(parser.parse_args(argv).repeat)
    seconds = figures["cpu_seconds"]
    print(f"{'import pydantic, yaml, click, pluggy':40} {seconds['baseline']:.3f} s CPU")
    print(f"{'podtemplate render one.py':40} {seconds['render']:.3f} s CPU  "
          f"ratio {figures['cli_startup_ratio']:.2f} (target <= {TARGET})")
    print(f"{'podtemplate --help':40} {seconds['help']:.3f} s CPU  "
          f"ratio {figures['cli_help_ratio']:.2f}")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())

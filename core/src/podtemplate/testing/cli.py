"""Running ``podtemplate render`` from a plugin's tests: in process, or in a child process
that sees the installation as if one distribution had been uninstalled."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner, Result

__all__ = ["render_cli", "render_without_distribution", "rendered_documents"]

# Hides one distribution exactly as `pip uninstall` leaves things: its metadata (so its
# entry point) is gone and its package cannot be imported; then runs the CLI.
_WITHOUT_DISTRIBUTION = """
import importlib.metadata as metadata
import sys

hidden_distribution, hidden_package, *argv = sys.argv[1:]
every_distribution = metadata.distributions

def visible_distributions(**kwargs):
    return [d for d in every_distribution(**kwargs)
            if (d.metadata["Name"] or "").lower().replace("_", "-") != hidden_distribution]

metadata.distributions = visible_distributions
# podtemplate reads entry points without importlib.metadata where it can: not here.
import podtemplate.files.entrypoints
podtemplate.files.entrypoints._plain_path = lambda: False
sys.modules[hidden_package] = None
from podtemplate.cli import main
main(argv, prog_name="podtemplate")
"""


def render_cli(*args: str) -> Result:
    """``podtemplate render ARGS...`` in this process."""
    from ..cli.main import main  # here: the CLI's own commands import this package

    return CliRunner().invoke(main, ["render", *args], catch_exceptions=False)


def rendered_documents(text: str) -> list[dict[str, Any]]:
    """The YAML documents of rendered output, without empty ones."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # large outputs: C speed
    return [document for document in yaml.load_all(text, Loader=loader) if document]


def render_without_distribution(distribution: str, package: str, *args: str,
                                cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``podtemplate render ARGS...`` in a child process where ``distribution`` (and its
    import package ``package``) is not installed."""
    return subprocess.run(
        [sys.executable, "-c", _WITHOUT_DISTRIBUTION, distribution, package, "render", *args],
        capture_output=True, text=True, cwd=cwd, timeout=120, check=False)


def assert_render_names_missing_distribution(distribution: str, package: str, task_type: str,
                                             *args: str, cwd: Path | None = None) -> None:
    """``podtemplate render ARGS...`` of tasks of ``task_type`` without ``distribution``
    installed: exit 2, nothing written, one line naming the task type and the install."""
    result = render_without_distribution(distribution, package, *args, cwd=cwd)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert f"task type {task_type!r} is not installed" in line, line
    assert f"pip install {distribution}" in line, line

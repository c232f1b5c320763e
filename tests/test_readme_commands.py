"""Every shell command of the README's first sections runs as shown, and its `explain`
sample is what the command prints today.

The ``sh`` blocks up to "Schemas" (Quick start, Use, Task types) and the commands the
Quick start names inline run with bash from the repository root, in this test's
virtualenv (``.venv`` in a command means it). Three substitutions, all said here:
``scripts/test`` only collects (the whole suite cannot run inside itself; this proves the
script sets up and starts pytest with the arguments given), ``PYTHON=python3.12`` names
this test's Python (another may not be installed), and ``out/`` is removed afterwards
when the commands created it. The maintainers' regeneration commands further down need
upstream files and are not run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
VENV = Path(sys.executable).parent.parent


def _blocks(language: str, text: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.S | re.M)


def _shell_blocks() -> list[str]:
    return _blocks("sh", README.split("\n## Schemas")[0])


def _run(script: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{VENV / 'bin'}{os.pathsep}{os.environ['PATH']}",
           "PODTEMPLATE_VENV": str(VENV)}
    script = script.replace(".venv/", f"{VENV}/")
    script = re.sub(r"^scripts/test((?: --full)?)\b", r"scripts/test\1 --collect-only -q "
                    "-n 0 core/tests/test_cli.py", script, flags=re.M)
    script = re.sub(r"^PYTHON=python3\.\d+ ", f"PYTHON={sys.executable} ", script)
    return subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900, check=False)


def _quick_start_commands() -> list[str]:
    """The commands the Quick start's prose names inline (`scripts/demo -o out/`...),
    but those its blocks run already."""
    section = README.split("\n## Quick start")[1].split("\n## ")[0]
    prose = re.sub(r"^```.*?^```$", "", section, flags=re.S | re.M)
    spans = [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", prose)]
    in_blocks = {" ".join(line.split("#")[0].split())
                 for block in _shell_blocks() for line in block.splitlines()}
    return [span for span in dict.fromkeys(spans) if span not in in_blocks
            and re.match(r"(PYTHON=\S+ )?(scripts/|podtemplate )", span)]


def test_the_readme_has_the_commands_a_new_user_needs() -> None:
    commands = "\n".join(_shell_blocks())
    for needed in ("scripts/demo", "scripts/test", "source .venv/bin/activate",
                   "podtemplate render"):
        assert needed in commands
    assert "my-override.yaml" not in README


def _run_leaving_no_out(command: str) -> subprocess.CompletedProcess[str]:
    """Run ``command``; an ``out/`` it creates in the repository is removed after."""
    created = not (ROOT / "out").exists()
    try:
        return _run(command)
    finally:
        if created:
            shutil.rmtree(ROOT / "out", ignore_errors=True)


@pytest.mark.parametrize("block", _shell_blocks(), ids=lambda b: b.split()[0] + "...")
def test_each_readme_shell_block_runs(block: str) -> None:
    done = _run_leaving_no_out(block)
    assert done.returncode == 0, f"{block}\n{done.stderr[-3000:]}"
    if "scripts/demo" in block:
        assert re.search(r"^rendered 19 manifests for 17 tasks", done.stderr, re.M), \
            done.stderr[-2000:]


@pytest.mark.parametrize("command", _quick_start_commands())
def test_each_command_the_quick_start_names_runs(command: str) -> None:
    done = _run_leaving_no_out(command)
    assert done.returncode == 0, f"{command}\n{done.stderr[-3000:]}"
    if "scripts/demo" in command:
        summary = ("wrote 19 manifest(s) for 17 task(s) to out/" if "-o" in command.split()
                   else "rendered 19 manifests for 17 tasks")
        assert summary in done.stderr, done.stderr[-2000:]


def test_the_readme_explain_sample_is_current() -> None:
    sample = next(b for b in _blocks("console", README) if "podtemplate explain" in b)
    lines = sample.splitlines()
    command_end = next(i for i, line in enumerate(lines) if not line.endswith("\\"))
    command = " ".join(line.rstrip("\\").strip() for line in lines[:command_end + 1])
    done = _run(command.removeprefix("$ "))
    assert done.returncode == 0, done.stderr
    expected = [line.rstrip() for line in lines[command_end + 1:]]
    assert [line.rstrip() for line in done.stdout.splitlines()] == expected


def _venv_problem(venv: Path, **environment: str) -> str:
    done = subprocess.run(["bash", "-c", f"source {ROOT / 'scripts/_venv.sh'}"],
                          env={**os.environ, "PODTEMPLATE_VENV": str(venv),
                               "PODTEMPLATE_VENV_CHECK": "1", **environment},
                          capture_output=True, text=True, timeout=120, check=True)
    return done.stdout.strip()


def test_a_broken_venv_is_detected(tmp_path: Path) -> None:
    assert _venv_problem(VENV) == "ok"
    assert _venv_problem(tmp_path / "absent") == "ok"  # created on first use
    (tmp_path / "empty").mkdir()
    assert _venv_problem(tmp_path / "empty") == "no bin/python"
    old = tmp_path / "old" / "bin"
    old.mkdir(parents=True)
    (old / "python").write_text("#!/bin/sh\n# a Python 3.10 says no to >= 3.11\nexit 1\n",
                                encoding="utf-8")
    (old / "python").chmod(0o755)
    assert "older than 3.11" in _venv_problem(tmp_path / "old")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "nopip")],
                   check=True, timeout=120)
    assert _venv_problem(tmp_path / "nopip") == "no pip"


def test_a_venv_of_another_python_than_python_asks_for_is_rebuilt(tmp_path: Path) -> None:
    """`PYTHON=python3.12 scripts/demo` picks the Python: a .venv made by another one is
    not kept silently (here PYTHON is a stand-in that answers as Python 3.99 would)."""
    other = tmp_path / "python3.99"
    other.write_text("#!/bin/sh\n# answers the version checks as a Python 3.99 would\n"
                     'case "$2" in *print*) echo 3.99;; esac\n', encoding="utf-8")
    other.chmod(0o755)
    assert _venv_problem(VENV, PYTHON=str(other)) == (
        f"made by Python {sys.version_info[0]}.{sys.version_info[1]}, PYTHON is 3.99")
    assert _venv_problem(VENV, PYTHON=sys.executable) == "ok"

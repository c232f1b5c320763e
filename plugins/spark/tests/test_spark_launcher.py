"""The launcher a PySpark function task's driver runs: it hands its arguments to the
core executor, which calls the task function."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from podtemplate_spark import LAUNCHER_PATH, write_launcher
from podtemplate_spark.launcher import main

TASKS = '''
from podtemplate import task
from podtemplate_spark import Spark

@task(image="spark-py:3.5", task_config=Spark())
def double(n: int) -> int:
    return n * 2
'''


def test_launcher_runs_the_task_function(tmp_path: Path) -> None:
    (tmp_path / "launched_jobs.py").write_text(TASKS)
    launcher = write_launcher(tmp_path / "opt" / "spark_launcher.py")
    result = subprocess.run(
        [sys.executable, str(launcher), "--module", "launched_jobs", "--task", "double",
         "--inputs", '{"n": 21}'],
        cwd=tmp_path, capture_output=True, text=True, check=False,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "42"


def test_launcher_cli_writes_the_file(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "l.py"
    assert main(["--write", str(target)]) == 0
    assert "from podtemplate.plugin import run_function_task" in target.read_text()
    assert capsys.readouterr().out.strip() == str(target)
    assert LAUNCHER_PATH.endswith(".py")

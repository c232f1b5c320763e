"""What ``podtemplate render one.py`` loads (issue 32: a command imports only what it uses).
Run as the console script runs, in a child process; the modules loaded are listed at exit.
Each name below was loaded by a one-task render once, and cost it time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ONE_TASK = '''from podtemplate import task


@task(image="python:3.11")
def hello() -> None: ...
'''
_COMMAND = """
import atexit, json, sys
atexit.register(lambda: sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules))))
from podtemplate import _command
sys.argv[0] = "podtemplate"
_command()
"""
NOT_LOADED = (
    "importlib.metadata",  # entry points are read without it (podtemplate.files.entrypoints)
    "email",
    "importlib.resources",
    "kubernetes",  # no V1 object given
    "pydantic.plugin._loader",  # no validator built: the platform of no platform.yaml
    "tempfile",  # standard output held in memory
    "shutil",
    "podtemplate.policy.engine",  # no policy set, no policy plugin installed
    "podtemplate.policy.checks",
    "podtemplate.policy.subject",
    "podtemplate.cluster.podtemplates",  # templates are not read from a cluster
    "podtemplate.cluster.session",
    "podtemplate.model.oldclient",  # the module does not mention kubernetes
    "podtemplate.provenance",
    "podtemplate.conformance",
    "podtemplate_spark",  # no plugin of another task type
)


def _loaded(tmp_path: Path, source: str, *args: str) -> set[str]:
    (tmp_path / "one.py").write_text(source, encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", _COMMAND, "render", "one.py", *args],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    written = done.stdout + "".join(path.read_text(encoding="utf-8")
                                    for path in (tmp_path / "out").glob("*.yaml"))
    assert "kind: Pod" in written
    listed = done.stderr.rpartition("\nMODULES ")[2]
    return set(json.loads(listed))


def test_a_one_task_render_loads_only_what_it_uses(tmp_path: Path) -> None:
    loaded = _loaded(tmp_path, ONE_TASK)
    assert "podtemplate.render" in loaded and "yaml" in loaded  # the child did render
    assert sorted(name for name in NOT_LOADED if name in loaded) == []


def test_what_a_render_needs_is_loaded_when_it_needs_it(tmp_path: Path) -> None:
    """The same list is not empty by accident: a policy loads the policy engine, a module
    naming kubernetes the era models, and -o the file writer's modules."""
    (tmp_path / "platform.yaml").write_text("policy:\n  podSecurity: baseline\n",
                                            encoding="utf-8")
    loaded = _loaded(tmp_path, "import kubernetes\n" + ONE_TASK, "--platform",
                     str(tmp_path / "platform.yaml"), "-o", str(tmp_path / "out"))
    assert {"podtemplate.policy.engine", "podtemplate.policy.checks",
            "podtemplate.model.oldclient", "tempfile", "kubernetes"} <= loaded


def test_a_policy_plugin_installed_by_entry_point_judges_a_render_with_no_policy(
        tmp_path: Path) -> None:
    """The gate that skips the policy engine when the platform sets no policy still lets
    through a policy plugin that the entry points (read without importlib.metadata) name."""
    site = tmp_path / "site"
    info = site / "made_up_policy-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Name: made-up-policy\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[podtemplate]\nmade-up-policy = made_up_policy\n",
                                           encoding="utf-8")
    (site / "made_up_policy.py").write_text(
        "from podtemplate.hookspecs import hookimpl\n"
        "from podtemplate.policy import Violation\n\n\n"
        "@hookimpl\n"
        "def podtemplate_check_policy(subject, context):\n"
        "    return [Violation('spec.containers[primary].image', 'madeUp', 'x', 'no')]\n",
        encoding="utf-8")
    (tmp_path / "one.py").write_text(ONE_TASK, encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", _COMMAND, "render", "one.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "PYTHONPATH": str(site)})
    assert done.returncode == 2, done.stderr[-3000:]
    assert "madeUp" in done.stderr and "kind: Pod" not in done.stdout
    loaded = set(json.loads(done.stderr.rpartition("\nMODULES ")[2]))
    assert {"made_up_policy", "podtemplate.policy.engine"} <= loaded
    assert "importlib.metadata" not in loaded

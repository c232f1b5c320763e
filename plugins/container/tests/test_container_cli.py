"""`podtemplate render` on modules that define ContainerTasks, and without the plugin."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner
from podtemplate.cli import main
from podtemplate.testing import assert_valid_pod

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples"

# Runs the CLI as if a distribution were uninstalled: its metadata (so its entry point)
# is hidden and its package cannot be imported, exactly what `pip uninstall` leaves.
WITHOUT_DISTRIBUTION = """
import importlib.metadata as metadata
import sys

hidden_distribution, hidden_package, *argv = sys.argv[1:]
every_distribution = metadata.distributions

def visible_distributions(**kwargs):
    return [d for d in every_distribution(**kwargs)
            if (d.metadata["Name"] or "").lower().replace("_", "-") != hidden_distribution]

metadata.distributions = visible_distributions
sys.modules[hidden_package] = None
from podtemplate.cli import main
main(argv, prog_name="podtemplate")
"""


def render_cli(*args: str) -> Any:
    return CliRunner().invoke(main, ["render", *args], catch_exceptions=False)


def documents(text: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(text) if d]


def write_module(folder: Path, name: str, body: str) -> Path:
    path = folder / f"{name}_{folder.name}.py"  # unique module name per test
    path.write_text(textwrap.dedent(body))
    return path


def test_render_discovers_container_tasks_without_a_flag(tmp_path: Path) -> None:
    module = write_module(tmp_path, "jobs", """\
        from podtemplate_container import ContainerTask
        fetch = ContainerTask(name="fetch", image="curlimages/curl:8.8.0",
                              command=["curl"], args=["-fsS", "https://example.com"])
        not_a_task = "ignored"
        """)
    result = render_cli(str(module), "--namespace", "jobs")
    assert result.exit_code == 0, result.output
    [pod] = documents(result.stdout)
    assert_valid_pod(pod)
    assert pod["metadata"]["namespace"] == "jobs"
    assert pod["spec"]["containers"][0]["command"] == ["curl"]


def test_examples_render_with_the_named_template() -> None:
    result = render_cli(str(EXAMPLES / "container_tasks.py"), "--platform",
                        str(EXAMPLES / "platform.yaml"))
    assert result.exit_code == 0, result.output
    pods = {m["metadata"]["name"]: m for m in documents(result.stdout)}
    assert set(pods) == {"db-migrate", "nightly-report"}
    for pod in pods.values():
        assert_valid_pod(pod)
    migrate = pods["db-migrate"]
    assert migrate["spec"]["imagePullSecrets"] == [{"name": "acme-registry"}]  # named template
    assert "serviceAccountName" not in migrate["spec"]  # ... instead of the default one
    assert migrate["spec"]["containers"][0]["command"] == ["/usr/local/bin/migrate"]
    assert pods["nightly-report"]["spec"]["serviceAccountName"] == "ml-runner"  # the default


def test_bad_definition_is_one_line_exit_2_and_nothing_written(tmp_path: Path) -> None:
    module = write_module(tmp_path, "bad", """\
        from podtemplate_container import ContainerTask
        broken = ContainerTask(name="broken", image="")
        """)
    out = tmp_path / "out"
    result = render_cli(str(module), "--output", str(out))
    assert result.exit_code == 2
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert "task 'broken', image: image is empty" in line
    assert not out.exists() or not any(out.iterdir())


def test_without_the_plugin_the_error_names_the_distribution() -> None:
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_DISTRIBUTION, "podtemplate-container",
         "podtemplate_container", "render", str(EXAMPLES / "container_tasks.py")],
        capture_output=True, text=True, cwd=REPO, timeout=120)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert "task type 'container' is not installed" in line
    assert "pip install podtemplate-container" in line


def test_any_missing_plugin_module_names_its_distribution(tmp_path: Path) -> None:
    """The real import machinery, no simulation: this plugin exists nowhere."""
    module = write_module(tmp_path, "uses_missing", """\
        from podtemplate_notinstalled import SomeTask
        """)
    result = render_cli(str(module))
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.endswith("(fix: pip install podtemplate-notinstalled)")

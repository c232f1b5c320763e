"""`podtemplate render` on modules that define ContainerTasks, and without the plugin."""

from __future__ import annotations

from pathlib import Path

from podtemplate.testing import (
    assert_render_names_missing_distribution,
    assert_valid_pod,
    render_cli,
    rendered_documents,
    write_task_module,
)

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples"

def test_render_discovers_container_tasks_without_a_flag(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, "jobs", """\
        from podtemplate_container import ContainerTask
        fetch = ContainerTask(name="fetch", image="curlimages/curl:8.8.0",
                              command=["curl"], args=["-fsS", "https://example.com"])
        not_a_task = "ignored"
        """)
    result = render_cli(str(module), "--namespace", "jobs")
    assert result.exit_code == 0, result.output
    [pod] = rendered_documents(result.stdout)
    assert_valid_pod(pod)
    assert pod["metadata"]["namespace"] == "jobs"
    assert pod["spec"]["containers"][0]["command"] == ["curl"]


def test_examples_render_with_the_named_template() -> None:
    result = render_cli(str(EXAMPLES / "container_tasks.py"), "--platform",
                        str(EXAMPLES / "platform.yaml"))
    assert result.exit_code == 0, result.output
    pods = {m["metadata"]["name"]: m for m in rendered_documents(result.stdout)}
    assert set(pods) == {"db-migrate", "nightly-report"}
    for pod in pods.values():
        assert_valid_pod(pod)
    migrate = pods["db-migrate"]
    assert migrate["spec"]["imagePullSecrets"] == [{"name": "acme-registry"}]  # named template
    assert "serviceAccountName" not in migrate["spec"]  # ... instead of the default one
    assert migrate["spec"]["containers"][0]["command"] == ["/usr/local/bin/migrate"]
    assert pods["nightly-report"]["spec"]["serviceAccountName"] == "ml-runner"  # the default


def test_bad_definition_is_one_line_exit_2_and_nothing_written(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, "bad", """\
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
    assert_render_names_missing_distribution("podtemplate-container", "podtemplate_container", "container",
                                             str(EXAMPLES / "container_tasks.py"), cwd=REPO)


def test_any_missing_plugin_module_names_its_distribution(tmp_path: Path) -> None:
    """The real import machinery, no simulation: this plugin exists nowhere."""
    module = write_task_module(tmp_path, "uses_missing", """\
        from podtemplate_notinstalled import SomeTask
        """)
    result = render_cli(str(module))
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.endswith("(fix: pip install podtemplate-notinstalled)")

"""`podtemplate render` on modules that define ShellTasks, bad input, and no plugin."""

from __future__ import annotations

import errno
import subprocess
from pathlib import Path
from typing import Any

import pytest
from kubernetes.client import V1ConfigMap
from podtemplate.testing import (
    assert_render_names_missing_distribution,
    assert_valid_pod,
    env_of,
    render_cli,
    rendered_documents,
    write_task_module,
)

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples"

def validate(manifests: list[dict[str, Any]]) -> None:
    for manifest in manifests:
        if manifest["kind"] == "ConfigMap":
            V1ConfigMap.model_validate(manifest)
        else:
            assert_valid_pod(manifest)


def test_render_discovers_shell_tasks_and_takes_inputs(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, "shell_jobs", """\
        from podtemplate_shell import ShellTask
        backup = ShellTask(name="backup", script="tar czf /out/$DAY.tgz /data",
                           image="alpine:3.20", inputs=["DAY"])
        """)
    result = render_cli(str(module), "--input", "DAY=2026-03-01")
    assert result.exit_code == 0, result.output
    manifests = rendered_documents(result.stdout)
    validate(manifests)
    assert [(m["kind"], m["metadata"]["name"]) for m in manifests] == [
        ("Pod", "backup"), ("ConfigMap", "backup-script")]
    assert env_of(manifests[0]["spec"]["containers"][0]) == {"DAY": "2026-03-01"}


def test_output_folder_holds_pod_and_configmap_in_one_file(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, "shell_jobs", """\
        from podtemplate_shell import ShellTask
        hello = ShellTask(name="hello", script="echo hi", image="alpine:3.20")
        """)
    result = render_cli(str(module), "--output", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    [written] = (tmp_path / "out").iterdir()
    assert written.name == "hello.yaml"
    assert [m["kind"] for m in rendered_documents(written.read_text())] == ["Pod", "ConfigMap"]


def test_examples_render_with_the_sidecar_and_inputs() -> None:
    result = render_cli(str(EXAMPLES / "shell_tasks.py"), "--platform",
                        str(EXAMPLES / "platform.yaml"), "--input", "DAY=2026-03-01")
    assert result.exit_code == 0, result.output
    manifests = rendered_documents(result.stdout)
    validate(manifests)
    pods = {m["metadata"]["name"]: m for m in manifests if m["kind"] == "Pod"}
    export = pods["export-table"]["spec"]
    assert [c["name"] for c in export["initContainers"]] == ["uploader"]  # the sidecar
    assert env_of(export["containers"][0])["DAY"] == "2026-03-01"
    assert pods["disk-report"]["spec"]["containers"][0]["command"][0] == "/bin/bash"
    names = {m["metadata"]["name"] for m in manifests if m["kind"] == "ConfigMap"}
    assert names == {"export-table-script", "disk-report-script"}


@pytest.mark.parametrize(("arguments", "expected"), [
    ('script=""', "script: script is empty"),
    ('script="echo \\x00"', "script: script contains a NUL character on line 1"),
    ('script="echo", shell="bash"', "shell: shell 'bash' is not an absolute path"),
    ('script="echo", inputs={"MY-DAY": "1"}', "inputs.MY-DAY: input name 'MY-DAY' is not"),
    ('script="echo", image=""', "image: image is empty"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path: Path, arguments: str,
                                                          expected: str) -> None:
    module = write_task_module(tmp_path, "shell_jobs", f"""\
        from podtemplate_shell import ShellTask
        broken = ShellTask(name="broken", {arguments})
        """)
    out = tmp_path / "out"
    result = render_cli(str(module), "--output", str(out))
    assert result.exit_code == 2
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert f"task 'broken', {expected}" in line, line
    assert "(fix: " in line
    assert not out.exists() or not any(out.iterdir())


def test_a_missing_input_value_is_one_line_exit_2(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, "shell_jobs", """\
        from podtemplate_shell import ShellTask
        needs = ShellTask(name="needs", script="echo $DAY", image="alpine:3.20", inputs=["DAY"])
        """)
    result = render_cli(str(module))
    assert (result.exit_code, result.stdout) == (2, "")
    [line] = result.stderr.splitlines()
    assert "task 'needs', inputs.DAY: input 'DAY' has no value" in line


def test_without_the_plugin_the_error_names_the_distribution() -> None:
    assert_render_names_missing_distribution("podtemplate-shell", "podtemplate_shell", "shell",
                                             str(EXAMPLES / "shell_tasks.py"), cwd=REPO)


def test_why_not_args_one_argument_over_128_kib_cannot_be_executed() -> None:
    """The reason the script travels in a ConfigMap: `sh -c <script>` fails at exec on
    Linux once the script passes MAX_ARG_STRLEN (32 pages)."""
    script = "true\n" * 30_000
    with pytest.raises(OSError) as caught:
        subprocess.run(["/bin/sh", "-c", script], check=False)
    assert caught.value.errno == errno.E2BIG

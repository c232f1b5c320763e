"""Run a rendered shell task's primary command locally, as the kubelet would: the
ConfigMap's data as files at the mount path, the pod's env, the container's command."""

from __future__ import annotations

import os
import subprocess
import textwrap
from pathlib import Path
from typing import Any

from kubernetes.client import V1ConfigMap
from podtemplate.testing import assert_valid_pod, render_cli, rendered_documents
from podtemplate_shell import SCRIPT_DIR

TASKS = '''
from podtemplate_shell import ShellTask

SCRIPT = {script!r}

report = ShellTask(name="report", script=SCRIPT, shell="/bin/sh", image="busybox:1.36",
                   env={{"OUT": {out!r}}}, inputs={{"WHO": "nobody", "TIMES": "1"}})
'''


def render_yaml(tmp_path: Path, script: str, *cli_args: str) -> list[dict[str, Any]]:
    """Render through the CLI and parse its YAML: the script must survive both."""
    module = tmp_path / f"tasks_{tmp_path.name}.py"
    module.write_text(TASKS.format(script=script, out=str(tmp_path / "out")))
    result = render_cli(str(module), *cli_args)
    assert result.exit_code == 0, result.output
    return rendered_documents(result.stdout)


def run_primary(pod: dict[str, Any], configmap: dict[str, Any], root: Path
                ) -> subprocess.CompletedProcess[str]:
    """The primary container's command with the pod's env, the ConfigMap mounted at a
    local folder standing in for its mountPath."""
    mount = next(m for m in pod["spec"]["containers"][0]["volumeMounts"]
                 if m["mountPath"] == SCRIPT_DIR)
    volume = next(v for v in pod["spec"]["volumes"] if v["name"] == mount["name"])
    assert volume["configMap"]["name"] == configmap["metadata"]["name"]
    local = root / "mount"
    local.mkdir()
    for key, text in configmap["data"].items():
        (local / key).write_text(text, encoding="utf-8")
    main_container = pod["spec"]["containers"][0]
    command = [part.replace(SCRIPT_DIR, str(local)) for part in
               main_container["command"] + main_container.get("args", [])]
    env = {e["name"]: e["value"] for e in main_container.get("env", [])}
    env["PATH"] = os.environ["PATH"]  # the image's PATH, here the machine's
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60,
                          check=False)


def pod_and_configmap(manifests: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    pod, configmap = manifests
    assert_valid_pod(pod)
    V1ConfigMap.model_validate(configmap)
    return pod, configmap


def test_the_rendered_command_runs_the_script_with_its_inputs(tmp_path: Path) -> None:
    script = textwrap.dedent("""\
        set -eu
        mkdir -p "$OUT"
        i=0
        while [ "$i" -lt "$TIMES" ]; do
          echo "hello $WHO" >> "$OUT/greeting.txt"
          i=$((i + 1))
        done
        echo "wrote $TIMES line(s)"
        """)
    pod, configmap = pod_and_configmap(
        render_yaml(tmp_path, script, "--input", "WHO=world", "--input", "TIMES=2"))
    result = run_primary(pod, configmap, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "wrote 2 line(s)\n"
    assert (tmp_path / "out" / "greeting.txt").read_text() == "hello world\nhello world\n"


def test_default_inputs_apply_without_input_flags(tmp_path: Path) -> None:
    pod, configmap = pod_and_configmap(render_yaml(tmp_path, 'echo "$WHO x $TIMES"'))
    result = run_primary(pod, configmap, tmp_path)
    assert (result.returncode, result.stdout) == (0, "nobody x 1\n")


def test_a_long_awkward_script_arrives_intact(tmp_path: Path) -> None:
    # Quotes, backslashes, tabs, trailing blanks, non-ASCII, a YAML document marker and
    # a here-document, repeated past the 128 KiB a single argv string may hold.
    block = (
        "cat >> \"$OUT/copy.txt\" <<'EOF'\n"
        "---\n"
        "'single' \"double\" \\back\\slash $NOT_EXPANDED\ttab  \n"
        "# not a comment: \u00fcn\u00efc\u00f6d\u00e9 \u2713 %s {braces}\n"
        "...\n"
        "EOF\n"
    )
    body = block * 1500
    script = f'set -eu\nmkdir -p "$OUT"\n: > "$OUT/copy.txt"\n{body}echo "last line ran for $WHO"\n'
    assert len(script.encode()) > 128 * 1024
    pod, configmap = pod_and_configmap(render_yaml(tmp_path, script, "--input", "WHO=me"))
    assert configmap["data"]["script.sh"] == script
    result = run_primary(pod, configmap, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "last line ran for me\n"
    heredoc = block.split("<<'EOF'\n", 1)[1].rsplit("EOF\n", 1)[0]
    assert (tmp_path / "out" / "copy.txt").read_text(encoding="utf-8") == heredoc * 1500


def test_a_failing_script_fails_the_container(tmp_path: Path) -> None:
    pod, configmap = pod_and_configmap(render_yaml(tmp_path, 'echo "bad $WHO" >&2\nexit 3\n'))
    result = run_primary(pod, configmap, tmp_path)
    assert (result.returncode, result.stderr) == (3, "bad nobody\n")

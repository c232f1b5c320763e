"""`podtemplate render` end to end: output, determinism, bad input and the executor."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from podtemplate.cli.main import main
from podtemplate.testing import assert_valid_pod

TASKS = '''
from podtemplate import PodTemplate, Resources, task

@task(image="python:3.11", env={"OUT": "unused"})
def write_file(path: str, times: int = 1, loud: bool = False) -> None:
    text = "hi" * times
    with open(path, "w") as handle:
        handle.write(text.upper() if loud else text)

@task(image="python:3.11", pod_template=PodTemplate({"nodeSelector": {"a": "b"}}))
def second() -> None: ...
'''


def pkgdir(root: Path) -> Path:
    """A package named after the test's own tmp folder: one process imports several."""
    return root / f"proj_{root.name}"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    package = pkgdir(tmp_path)
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "jobs.py").write_text(TASKS)
    return tmp_path


def run(args: list[str], cwd: Path | None = None) -> Any:
    runner = CliRunner()
    old = os.getcwd()
    try:
        if cwd:
            os.chdir(cwd)
        return runner.invoke(main, args, catch_exceptions=False)
    finally:
        os.chdir(old)


def docs(text: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(text) if d]


def test_render_file_to_stdout(project: Path) -> None:
    result = run(["render", str(pkgdir(project) / "jobs.py"), "--input", "path=/tmp/out"])
    assert result.exit_code == 0, result.output
    manifests = docs(result.stdout)
    assert [m["metadata"]["name"] for m in manifests] == ["write-file", "second"]
    for manifest in manifests:
        assert_valid_pod(manifest)


def test_render_selects_one_task_and_is_deterministic(project: Path) -> None:
    target = f"{pkgdir(project) / 'jobs.py'}:second"
    first = run(["render", target]).stdout
    second = run(["render", target]).stdout
    assert first == second
    assert [m["metadata"]["name"] for m in docs(first)] == ["second"]


def test_render_json_is_a_list(project: Path) -> None:
    result = run(["render", str(pkgdir(project) / "jobs.py"), "--format", "json",
                  "--input", "path=/tmp/out"])
    data = json.loads(result.stdout)
    assert data["kind"] == "List" and len(data["items"]) == 2
    for item in data["items"]:
        assert_valid_pod(item)


def test_render_to_folder_writes_one_file_per_task(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = run(["render", str(pkgdir(project) / "jobs.py"), "--output", str(out),
                  "--input", "path=/tmp/out"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["second.yaml", "write-file.yaml"]
    assert_valid_pod(docs((out / "second.yaml").read_text())[0])


def test_a_required_input_without_input_is_one_line_at_render(project: Path) -> None:
    # write_file(path: str, ...) called without path would fail as its pod starts.
    result = run(["render", f"{pkgdir(project) / 'jobs.py'}:write_file"])
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    assert "task 'write_file', inputs.path: input 'path' of the function has no --input" in line
    assert "(fix: --input path=VALUE" in line


def test_executor_runs_the_function_with_rendered_inputs(project: Path, tmp_path: Path) -> None:
    target_file = tmp_path / "result.txt"
    result = run(["render", f"{pkgdir(project) / 'jobs.py'}:write_file",
                  "--input", f"path={target_file}", "--input", "times=3",
                  "--input", "loud=true"])
    assert result.exit_code == 0, result.output
    (pod,) = docs(result.stdout)
    primary = pod["spec"]["containers"][0]
    command = primary["command"] + primary["args"]
    assert command[0] == "python"
    env = {**os.environ, **{e["name"]: e["value"] for e in primary.get("env", [])},
           "PYTHONPATH": str(project)}
    completed = subprocess.run([sys.executable, *command[1:]], env=env, cwd=project,
                               capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0, completed.stderr
    assert target_file.read_text() == "HIHIHI"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["render", "missing.py"], "file not found"),
        (["render", "no.such.module"], "module not found"),
        (["render", "{jobs}:nope"], "task 'nope' not found"),
        (["render", "{jobs}", "--input", "bogus=1"], "not a parameter"),
        (["render", "{jobs}:write_file", "--input", "times=many"], "not a valid int"),
        (["render", "{jobs}", "--platform", "{bad_platform}"], "unknown key 'colour'"),
        (["render", "{jobs}", "--override", "{bad_yaml}"], "line"),
        (["render", "{broken}"], "ZeroDivisionError"),
        (["render", "{bad_field}"], "spec.containers[primary].imagee"),
    ],
)
def test_bad_input_is_one_line_exit_2_nothing_written(project: Path, tmp_path: Path,
                                                      args: list[str], expected: str) -> None:
    (tmp_path / "bad_platform.yaml").write_text("colour: blue\n")
    (tmp_path / "bad.yaml").write_text("a: [\n")
    (pkgdir(project) / "broken.py").write_text("x = 1 / 0\n")
    (pkgdir(project) / "bad_field.py").write_text(textwrap.dedent('''
        from podtemplate import PodTemplate, task
        @task(pod_template=PodTemplate({"containers": [{"name": "primary", "imagee": "x"}]}))
        def t() -> None: ...
    '''))
    paths = {"jobs": pkgdir(project) / "jobs.py", "bad_platform": tmp_path / "bad_platform.yaml",
             "bad_yaml": tmp_path / "bad.yaml", "broken": pkgdir(project) / "broken.py",
             "bad_field": pkgdir(project) / "bad_field.py"}
    out = tmp_path / "out"
    argv = [a.format(**paths) for a in args] + ["--output", str(out)]
    result = run(argv, cwd=tmp_path)
    assert result.exit_code == 2
    assert expected in result.stderr
    assert "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1
    assert not out.exists() or not any(out.iterdir())


def test_missing_named_template_fails_without_partial_output(project: Path, tmp_path: Path) -> None:
    (pkgdir(project) / "named.py").write_text(textwrap.dedent('''
        from podtemplate import task
        @task(image="x:1")
        def ok() -> None: ...
        @task(image="x:1", pod_template_name="ghost")
        def needs_ghost() -> None: ...
    '''))
    result = run(["render", str(pkgdir(project) / "named.py")])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "'ghost' not found" in result.stderr


def test_version_and_help() -> None:
    assert run(["--version"]).exit_code == 0
    help_text = run(["render", "--help"]).stdout
    for option in ("--platform", "--templates", "--namespace", "--override", "--input",
                   "--output", "--format"):
        assert option in help_text


def test_bundled_examples_render_and_validate() -> None:
    root = Path(__file__).resolve().parents[2]
    result = run(["render", str(root / "examples" / "python_tasks.py"),
                  "--platform", str(root / "examples" / "platform.yaml")])
    assert result.exit_code == 0, result.output
    manifests = docs(result.stdout)
    assert len(manifests) >= 5
    for manifest in manifests:
        assert_valid_pod(manifest)
    by_name = {m["metadata"]["name"]: m for m in manifests}
    etl = by_name["etl"]["spec"]
    assert [c["name"] for c in etl["containers"]] == ["primary", "log-shipper"]
    finetune = by_name["finetune"]["spec"]["containers"][0]["resources"]
    assert finetune["limits"]["nvidia.com/gpu"] == "1"


def test_a_pod_the_api_server_would_refuse_is_one_line_exit_2(project: Path,
                                                             tmp_path: Path) -> None:
    (pkgdir(project) / "refused.py").write_text(textwrap.dedent('''
        from podtemplate import PodTemplate, Resources, task
        @task(image="python:3.11", requests=Resources(memory="4Gi"),
              limits=Resources(memory="2Gi"))
        def greedy() -> None: ...
    '''))
    out = tmp_path / "out"
    result = run(["render", str(pkgdir(project) / "refused.py"), "--output", str(out)],
                 cwd=tmp_path)
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert ("task 'greedy', role 'pod', spec.containers[primary].resources.requests.memory: "
            "request '4Gi' is above the limit '2Gi'; rule: a request is <= its limit (k8s "
            "ValidateResourceRequirements) (both set by the task settings) (fix: lower the "
            "request or raise the limit)") in line
    assert not out.exists() or not any(out.iterdir())


@pytest.mark.parametrize(("source", "task_role_path", "rule", "fix"), [
    # a mount naming no volume, on every role of a PyTorchJob: the first role is named
    ('''
        from podtemplate import PodTemplate, task
        from podtemplate_pytorch import PyTorch
        @task(image="python:3.11", task_config=PyTorch(), pod_template=PodTemplate(
            {"containers": [{"name": "primary", "volumeMounts": [
                {"name": "ghost", "mountPath": "/ghost"}]}]}))
        def train() -> None: ...
     ''', "task 'train', role 'master', spec.containers[pytorch].volumeMounts[ghost].name: ",
     "a volumeMount names a volume of the pod (k8s ValidateVolumeMounts)",
     "add the volume to spec.volumes or correct the mount's name"),
    # dnsPolicy None from the task's template, without the dnsConfig it needs
    ('''
        from podtemplate import PodTemplate, task
        @task(image="python:3.11", pod_template=PodTemplate({"dnsPolicy": "None"}))
        def lookup() -> None: ...
     ''', "task 'lookup', role 'pod', spec.dnsConfig: ",
     "dnsPolicy None needs a dnsConfig with at least one nameserver (k8s validatePodDNSConfig)",
     "add dnsConfig.nameservers, or use ClusterFirst"),
    # a probe without a handler (a template may leave the handler to another layer; the
    # final pod may not)
    ('''
        from podtemplate import PodTemplate, task
        @task(image="python:3.11", pod_template=PodTemplate(
            {"containers": [{"name": "primary", "livenessProbe": {"periodSeconds": 5}}]}))
        def probed() -> None: ...
     ''', "task 'probed', role 'pod', spec.containers[primary].livenessProbe: ",
     "a probe or lifecycle hook has exactly one handler (exec, httpGet, tcpSocket, grpc; "
     "sleep for hooks) (k8s validateHandler)", "keep one handler"),
], ids=["mount-without-volume", "dns-none-without-config", "probe-without-handler"])
def test_api_rule_broken_at_render_is_one_line_naming_task_role_path_rule_fix(
        project: Path, tmp_path: Path, source: str, task_role_path: str, rule: str,
        fix: str) -> None:
    (pkgdir(project) / "refused.py").write_text(textwrap.dedent(source))
    out = tmp_path / "out"
    result = run(["render", str(pkgdir(project) / "refused.py"), "--output", str(out)],
                 cwd=tmp_path)
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.strip().splitlines()
    assert task_role_path in line
    assert f"; rule: {rule}" in line and f"(fix: {fix}" in line
    assert not out.exists() or not any(out.iterdir())


def test_standard_output_is_held_in_memory_then_in_a_file_and_written_whole() -> None:
    import io

    from podtemplate.cli.main import _Spooled

    chunks = [f"{index:06d}" * 1000 + "\n" for index in range(40)]
    with _Spooled() as small:
        small._LIMIT = 10**9
        for chunk in chunks:
            small.write(chunk)
        assert not small._spilled
        out = io.StringIO()
        small.copy_to(out)
        assert out.getvalue() == "".join(chunks)
    with _Spooled() as large:
        large._LIMIT = 20_000  # spills to a temporary file part way
        for chunk in chunks:
            large.write(chunk)
        assert large._spilled
        out = io.StringIO()
        large.copy_to(out)
        assert out.getvalue() == "".join(chunks)
        spilled = large._file
    assert spilled.closed

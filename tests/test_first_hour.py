"""What a new user meets in the first hour: no silent passes, errors at the user's line
with "did you mean", Ctrl-C, output file modes, and a CLI that starts without loading
what the command does not use."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from podtemplate import PodTemplate, Role, task
from podtemplate.cli import main
from podtemplate.errors import DefinitionError, PodTemplateError, did_you_mean

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
PLATFORM = str(EXAMPLES / "platform.yaml")
CLI = str(Path(sys.executable).with_name("podtemplate"))

ONE_TASK = """\
from podtemplate import task

@task(image="python:3.11")
def hello() -> None: ...
"""


# Task modules a test imports are forgotten after it (the root conftest.py).
pytestmark = pytest.mark.usefixtures("forget_task_modules")


def run(*args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=stdin, catch_exceptions=False)


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return str(path)


# --- no silent passes ---------------------------------------------------------------

@pytest.mark.parametrize("text", ["", "\n", "---\n", "# only a comment\n"])
def test_validate_of_no_documents_fails_in_one_line(text: str) -> None:
    result = run("validate", "-", stdin=text)
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "no documents to validate" in lines[0], result.stderr


def test_explain_field_that_matches_nothing_fails_naming_what_exists() -> None:
    result = run("explain", str(EXAMPLES / "pytorch_tasks.py:train_resnet"), "--platform",
                 PLATFORM, "--role", "worker", "--field", "spec.containers[primary].env")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "spec.containers[pytorch]" in result.stderr, result.stderr
    assert "matches no value" in result.stderr
    matching = run("explain", str(EXAMPLES / "pytorch_tasks.py:train_resnet"), "--platform",
                   PLATFORM, "--role", "worker", "--field", "spec.containers[pytorch].env")
    assert matching.exit_code == 0 and "NCCL_DEBUG" in matching.stdout


def test_render_into_a_folder_names_earlier_files_and_clean_removes_them(tmp_path: Path
                                                                         ) -> None:
    tasks = write(tmp_path, "tasks.py", ONE_TASK)
    out = tmp_path / "out"
    first = run("render", str(EXAMPLES / "python_tasks.py"), "--platform", PLATFORM,
                "-o", str(out))
    assert first.exit_code == 0, first.output
    earlier = sorted(p.name for p in out.iterdir())
    (out / "notes.yaml").write_text("kind: ConfigMap\n", encoding="utf-8")
    (out / "README.txt").write_text("mine\n", encoding="utf-8")
    second = run("render", tasks, "-o", str(out))
    assert second.exit_code == 0, second.output
    assert "from an earlier render" in second.stderr and earlier[0] in second.stderr
    assert "--clean" in second.stderr and "notes.yaml" in second.stderr
    assert "README.txt" not in second.stderr  # kubectl apply -f does not read it
    cleaned = run("render", tasks, "-o", str(out), "--clean")
    assert cleaned.exit_code == 0, cleaned.output
    assert sorted(p.name for p in out.iterdir()) == ["README.txt", "hello.yaml", "notes.yaml"]
    assert "earlier render" not in cleaned.stderr


def test_output_files_are_readable_by_others(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        explained = run("explain", str(EXAMPLES / "python_tasks.py"), "--platform", PLATFORM,
                        "--format", "html", "-o", str(tmp_path / "explain.html"))
        rendered = run("render", str(EXAMPLES / "python_tasks.py"), "--platform", PLATFORM,
                       "-o", str(tmp_path / "out"))
    finally:
        os.umask(old)
    assert explained.exit_code == 0 and rendered.exit_code == 0
    files = [tmp_path / "explain.html", *(tmp_path / "out").iterdir()]
    assert {stat.S_IMODE(f.stat().st_mode) for f in files} == {0o644}


def test_coverage_html_is_written_0644(tmp_path: Path) -> None:
    from podtemplate.cli.output import write_file

    old = os.umask(0o022)
    try:
        write_file(tmp_path / "c.html", "<p>x</p>")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "c.html").stat().st_mode) == 0o644


# --- errors ---------------------------------------------------------------------------

@pytest.mark.parametrize(("word", "choices", "meant"), [
    ("nodeSelecter", ["nodeSelector", "nodeName", "affinity"], "nodeSelector"),
    ("requets", ["requests", "limits"], "requests"),
    ("imgae", ["image", "env"], "image"),
    ("defaultImag", ["defaultImage", "defaultTemplate"], "defaultImage"),
    ("node_selector", ["nodeSelector"], "nodeSelector"),
    ("xyz", ["image", "env"], None),
    ("nam", ["name", "nat"], None),  # two as near: no guess
])
def test_did_you_mean(word: str, choices: list[str], meant: str | None) -> None:
    assert did_you_mean(word, choices) == meant


def test_pod_field_typo_is_named_with_the_field_meant() -> None:
    with pytest.raises(PodTemplateError) as caught:
        PodTemplate(pod_spec={"nodeSelecter": {"pool": "a"}})
    assert "did you mean `nodeSelector`" in str(caught.value)


def test_task_and_role_argument_typos_are_named_with_the_argument_meant() -> None:
    with pytest.raises(DefinitionError, match="did you mean 'requests'"):
        task(image="a", requets={"cpu": "1"})  # type: ignore[call-overload]
    with pytest.raises(DefinitionError, match="did you mean 'image'"):
        Role(imgae="a")  # type: ignore[call-arg]


@pytest.mark.parametrize(("text", "expected"), [
    ("defaultImag: python:3.11\n", "defaultImag: unknown key 'defaultImag'; did you mean "
                                   "'defaultImage'?"),
    ("policy:\n  allowedRegistris: []\n", "did you mean 'allowedRegistries'?"),
    ("fallbackNamespace: Bad_NS\n", "fallbackNamespace: namespace 'Bad_NS'"),
    ("gpuResourceName: gpu\n", "gpuResourceName: 'gpu' is not a resource name"),
])
def test_platform_key_errors_name_the_key(tmp_path: Path, text: str, expected: str) -> None:
    platform = write(tmp_path, "platform.yaml", text)
    result = run("render", write(tmp_path, "tasks.py", ONE_TASK), "--platform", platform)
    assert result.exit_code == 2
    assert expected in result.stderr, result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_import_error_names_the_users_line_and_debug_keeps_its_traceback(tmp_path: Path
                                                                         ) -> None:
    tasks = write(tmp_path, "env_tasks.py", """\
        import os

        IMAGE = os.environ["PODTEMPLATE_TEST_NOT_SET"]
        """)
    result = run("render", tasks)
    assert result.exit_code == 2
    assert f"at {tasks}:3" in result.stderr, result.stderr
    assert "frozen" not in result.stderr
    debug = run("--debug", "render", tasks)
    assert 'env_tasks.py", line 3' in debug.stderr and "Traceback" in debug.stderr


def test_deleting_a_whole_pod_spec_is_bad_input(tmp_path: Path) -> None:
    override = write(tmp_path, "ov.yaml", """\
        apiVersion: v1
        kind: PodTemplate
        metadata: {name: o}
        template:
          spec:
            $patch: delete
        """)
    result = run("render", write(tmp_path, "tasks.py", ONE_TASK), "--override", override)
    assert result.exit_code == 2, result.output
    assert "spec.$patch" in result.stderr and "whole pod spec" in result.stderr


def test_override_given_a_folder_says_so(tmp_path: Path) -> None:
    result = run("render", write(tmp_path, "tasks.py", ONE_TASK), "--override", str(tmp_path))
    assert result.exit_code == 2
    assert "--override is a folder" in result.stderr and "--templates" in result.stderr


def test_validate_platform_names_each_document_and_counts_them(tmp_path: Path) -> None:
    demo = run("render", str(EXAMPLES), "--platform", PLATFORM)
    manifests = write(tmp_path, "demo.yaml", demo.stdout)
    result = run("validate", manifests, "--platform", str(EXAMPLES / "platform-restricted.yaml"))
    assert result.exit_code == 1
    lines = [line for line in result.stdout.splitlines() if line.endswith("[policy]")]
    assert lines and all(line.startswith(f"{manifests}#") for line in lines)
    assert any(" (Pod " in line and "restricted" in line for line in lines), lines[:3]
    documents = {line.split(" (")[0] for line in lines}
    summary = result.stderr.splitlines()[-1]
    assert f"{len(documents)} against the policy ({len(lines)} policy violation(s)" in summary
    count = int(summary.split(" document(s)")[0])
    assert f"{count - len(documents)} valid" in summary


def test_ctrl_c_exits_130_in_one_line(tmp_path: Path) -> None:
    tasks = write(tmp_path, "slow_tasks.py", """\
        import sys, time
        print("ready", file=sys.stderr, flush=True)
        time.sleep(60)
        """)
    process = subprocess.Popen([CLI, "render", tasks, "-o", str(tmp_path / "out")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    assert process.stderr.readline().strip() == "ready"
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "Traceback" not in stderr and "interrupted" in stderr
    assert len(stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


# --- start-up -------------------------------------------------------------------------

def _loaded(*args: str) -> set[str]:
    probe = (
        "import sys\n"
        "from podtemplate.cli import main\n"
        "try:\n"
        f"    main({list(args)!r}, prog_name='podtemplate')\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(sys.modules), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120, check=False)
    return set(json.loads(done.stderr.strip().splitlines()[-1].replace("'", '"')))


def test_help_loads_no_renderer_and_render_no_kubernetes_client(tmp_path: Path) -> None:
    helped = _loaded("--help")
    assert not {"podtemplate.render", "podtemplate.platform", "pydantic",
                "kubernetes"} & helped
    rendered = _loaded("render", write(tmp_path, "one.py", ONE_TASK))
    assert "podtemplate.render" in rendered
    assert not {m for m in rendered if m.startswith("kubernetes")}
    assert "podtemplate.coverage.matrix" not in rendered


def test_the_pod_field_table_comes_from_the_shipped_schema_alone() -> None:
    """The table the fast validity proof walks is built from the pinned pod schema the
    package ships, never from the installed kubernetes client's models."""
    from podtemplate.model._podcheck import pod_template_spec_table

    spec = pod_template_spec_table()[1]["spec"]
    fields = spec[1]
    assert "workloadRef" in fields  # Kubernetes 1.35 has it
    assert "schedulingGroup" not in fields  # 1.35 does not

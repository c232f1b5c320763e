"""Gaps a new user still met in the first hour (issue 32, audited on a fresh clone): a
mistyped argument of any call is the caller's mistake with "did you mean", never an
internal error; `$patch` at the root of a pod spec fragment is bad input, never exit 70;
Ctrl-C while the CLI loads, during an apply or while files are moved in; resource names
and task type settings in platform.yaml; output file modes under any umask; an empty
input among others fails validate, and its summary counts it; --clean without -o, and
keeping a file of the user's that only mentions the task label; an empty -o; a module
target that is a file, and one that is no module name."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import podtemplate
import pytest
from click.testing import CliRunner, Result
from podtemplate import PodTemplate
from podtemplate.cli import main
from podtemplate.errors import DefinitionError, PodTemplateError

# Task modules a test imports are forgotten after it (the root conftest.py).
pytestmark = pytest.mark.usefixtures("forget_task_modules")


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return str(path)


# --- a mistyped argument is the caller's mistake --------------------------------------

def test_a_mistyped_keyword_of_a_core_call_says_what_was_meant() -> None:
    with pytest.raises(DefinitionError, match="did you mean 'primary_container_name'") as caught:
        PodTemplate(pod_spec={}, primary_container_nam="main")  # type: ignore[call-arg]
    assert caught.value.field == "primary_container_nam"
    with pytest.raises(DefinitionError, match="did you mean 'platform'"):
        podtemplate.render([], platfom="platform.yaml")  # type: ignore[call-arg]
    with pytest.raises(DefinitionError, match="has no argument 'colour'") as unknown:
        PodTemplate.from_yaml("spec: {}", colour="blue")  # type: ignore[call-arg]
    assert "help(PodTemplate.from_yaml)" in str(unknown.value)


def test_a_call_missing_an_argument_is_the_callers_mistake() -> None:
    with pytest.raises(DefinitionError, match="missing a required argument: 'path_or_text'"):
        PodTemplate.from_yaml()  # type: ignore[call-arg]


def test_a_mistyped_template_argument_in_a_module_is_exit_2_at_its_line(tmp_path: Path
                                                                        ) -> None:
    tasks = write(tmp_path, "typo_tasks.py", """\
        from podtemplate import PodTemplate

        GPU = PodTemplate(pod_spec={}, primary_container_nam="main")
        """)
    result = run("render", tasks)
    assert result.exit_code == 2, result.output
    assert f"{tasks}:3" in result.stderr and "internal error" not in result.stderr
    assert "did you mean 'primary_container_name'" in result.stderr


def test_task_class_argument_typos_say_what_was_meant() -> None:
    from podtemplate_container import ContainerTask
    from podtemplate_shell import ShellTask
    from podtemplate_spark import SparkApplicationTask

    with pytest.raises(PodTemplateError, match="did you mean 'command'"):
        ContainerTask(name="c", image="busybox", comand=["ls"])
    with pytest.raises(PodTemplateError, match="did you mean 'inputs'"):
        ShellTask(name="s", script="echo", input={"A": "1"})
    with pytest.raises(PodTemplateError, match="did you mean 'main_class'"):
        SparkApplicationTask(name="s", image="spark", main_application_file="local:///a.py",
                             main_clas="A")


# --- `$patch` at the root of a pod spec fragment -----------------------------------------

DISTRIBUTED = """\
from podtemplate import PodTemplate, Role, task
from podtemplate_pytorch import PyTorch

@task(image="python:3.11", interruptible=True)
def one() -> None: ...

@task(image="python:3.11", interruptible=True, task_config=PyTorch(worker=Role(replicas=2)))
def many() -> None: ...
"""


def test_deleting_a_whole_pod_spec_in_python_is_refused_where_it_is_written() -> None:
    with pytest.raises(PodTemplateError, match="whole pod spec") as caught:
        PodTemplate(pod_spec={"$patch": "delete"})
    assert caught.value.field == "spec.$patch" and caught.value.exit_code == 2


@pytest.mark.parametrize(("platform", "key"), [
    ("interruptible:\n  $patch: delete\n", "interruptible.$patch"),
    ("policy:\n  enforce:\n    $patch: delete\n", "policy.enforce.$patch"),
    ("policy:\n  enforce:\n    $patch: replace\n    hostNetwork: false\n",
     "policy.enforce.$patch"),
])
def test_a_platform_fragment_that_deletes_or_replaces_the_pod_is_bad_input(
        tmp_path: Path, platform: str, key: str) -> None:
    result = run("render", write(tmp_path, "tasks.py", DISTRIBUTED), "--platform",
                 write(tmp_path, "platform.yaml", platform))
    assert result.exit_code == 2, result.output
    assert key in result.stderr and "internal error" not in result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr


def test_replacing_what_lies_below_a_fragment_renders_or_names_the_layer(tmp_path: Path
                                                                          ) -> None:
    """`$patch: replace` at the root of a fragment starts from it alone: below the task's
    settings (the platform's interruptible fragment) the pod still renders; above them (a
    role template) it would drop the task's own container, and the error names the layer
    and the directive."""
    tasks = write(tmp_path, "tasks.py", DISTRIBUTED + """
ALONE = PodTemplate(pod_spec={"$patch": "replace", "nodeSelector": {"pool": "b"}})

@task(image="python:3.11", task_config=PyTorch(worker=Role(pod_template=ALONE)))
def replaced() -> None: ...
""")
    platform = write(tmp_path, "platform.yaml",
                     "interruptible:\n  $patch: replace\n  nodeSelector: {spot: 'true'}\n")
    result = run("render", f"{tasks}:many", "--platform", platform)
    assert result.exit_code == 0, result.output
    assert "spot: 'true'" in result.stdout
    refused = run("render", f"{tasks}:replaced", "--platform", platform)
    assert refused.exit_code == 2, refused.output
    assert "role template (worker)" in refused.stderr, refused.stderr
    assert "$patch: replace" in refused.stderr


# --- Ctrl-C ---------------------------------------------------------------------------

SHELL_TASK = """\
from podtemplate_shell import ShellTask

report = ShellTask(name="report", script="echo hi", image="busybox:1.36")
"""


def test_ctrl_c_during_apply_says_what_the_cluster_already_has(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An apply interrupted after its first object says so: "nothing was written" would
    be false. (The cluster is faked: one object applied, then Ctrl-C.)"""
    from podtemplate.cluster import apply, session

    def first_then_ctrl_c(*_: object, **__: object) -> Iterator[apply.Outcome]:
        yield apply.Outcome("configmap/report-script", "ml-team", "created")
        raise KeyboardInterrupt

    monkeypatch.setattr(apply, "apply_manifests", first_then_ctrl_c)
    monkeypatch.setattr(session, "open_cluster", lambda *_: object())
    monkeypatch.setattr(session, "default_namespace", lambda *_: "ml-team")
    result = CliRunner().invoke(main, ["apply", write(tmp_path, "tasks.py", SHELL_TASK)])
    assert result.exit_code == 130, result.output
    assert result.stdout == "configmap/report-script created\n"
    said = result.stderr.strip()
    assert said == ("interrupted: applied before the interruption: configmap/report-script; "
                    "maybe applied (being sent): pod/report; not sent: nothing"), said
    assert "nothing was written" not in result.stderr


# podtemplate.guard: the first module the command imports (it pauses the collector)
@pytest.mark.parametrize("interrupted", ["podtemplate.cli.main", "podtemplate.guard"])
def test_ctrl_c_while_the_cli_loads_exits_130_in_one_line(interrupted: str) -> None:
    """The command's entry point catches a Ctrl-C that comes before the CLI is loaded
    (here, made to come exactly then: the import of a module of the CLI is interrupted)."""
    from importlib.metadata import entry_points

    (script,) = entry_points(group="console_scripts", name="podtemplate")
    assert script.value == "podtemplate:_command"
    probe = textwrap.dedent("""\
        import sys

        class Interrupt:
            def find_spec(self, name, path=None, target=None):
                if name == INTERRUPTED:
                    raise KeyboardInterrupt
                return None

        sys.meta_path.insert(0, Interrupt())
        sys.argv = ["podtemplate", "--help"]
        from podtemplate import _command
        _command()
        """)
    done = subprocess.run([sys.executable, "-c", probe.replace("INTERRUPTED", repr(interrupted))],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 130, done.stderr
    assert done.stderr.strip() == "interrupted: nothing was written", done.stderr


# --- output file modes ----------------------------------------------------------------

@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600)])
def test_every_output_file_gets_the_mode_a_shell_would_give_it(tmp_path: Path, umask: int,
                                                               mode: int) -> None:
    """0644 under the usual umask, whichever command writes (coverage's file was 0600
    whatever the umask); a umask that keeps files private is obeyed, as by any tool."""
    examples = Path(__file__).resolve().parents[1] / "examples"
    old = os.umask(umask)
    try:
        results = [
            run("render", str(examples / "python_tasks.py"), "--platform",
                str(examples / "platform.yaml"), "-o", str(tmp_path / "out")),
            run("explain", str(examples / "python_tasks.py"), "--platform",
                str(examples / "platform.yaml"), "--format", "html", "-o",
                str(tmp_path / "explain.html")),
            run("coverage", "--plugin", "python", "--format", "html", "-o",
                str(tmp_path / "coverage.html")),
        ]
    finally:
        os.umask(old)
    assert [r.exit_code for r in results] == [0, 0, 0], [r.output for r in results]
    files = [tmp_path / "explain.html", tmp_path / "coverage.html",
             *(tmp_path / "out").iterdir()]
    assert {stat.S_IMODE(f.stat().st_mode) for f in files} == {mode}


def test_clean_without_an_output_folder_is_not_silently_ignored(tmp_path: Path) -> None:
    tasks = write(tmp_path, "tasks.py", SHELL_TASK)
    for output in ([], ["-o", "-"]):
        result = run("render", tasks, "--clean", *output)
        assert result.exit_code == 2, result.output
        assert result.stdout == ""
        assert result.stderr.startswith("error: --clean") and "-o DIR" in result.stderr
        assert len(result.stderr.splitlines()) == 1


def test_clean_keeps_a_file_of_the_users_that_names_the_task_label(tmp_path: Path) -> None:
    """A file is an earlier render's when its objects carry the task label, not when it
    mentions it: a PodMonitor selecting a task's pods by it is the user's."""
    tasks = write(tmp_path, "tasks.py", SHELL_TASK)
    out = tmp_path / "out"
    assert run("render", tasks, "-o", str(out), "--format", "json").exit_code == 0
    monitor = "kind: PodMonitor\nmetadata: {name: report}\nspec:\n  selector:\n" \
              "    matchLabels:\n      podtemplate.io/task: report\n"
    (out / "monitor.yaml").write_text(monitor, encoding="utf-8")
    (out / "broken.yaml").write_text("podtemplate.io/task: [\n", encoding="utf-8")
    (out / "list.yaml").write_text("kind: List\nitems: 3  # podtemplate.io/task\n",
                                   encoding="utf-8")
    cleaned = run("render", tasks, "-o", str(out), "--clean")
    assert cleaned.exit_code == 0, cleaned.output
    assert sorted(p.name for p in out.iterdir()) == ["broken.yaml", "list.yaml",
                                                      "monitor.yaml", "report.yaml"]
    assert (out / "monitor.yaml").read_text(encoding="utf-8") == monitor
    assert "beside the rendered ones: broken.yaml, list.yaml, monitor.yaml" in cleaned.stderr


def test_an_empty_output_folder_is_bad_input(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """`-o "$OUT"` with OUT unset wrote into the current folder (and --clean removed
    earlier renders' files there)."""
    tasks = write(tmp_path, "tasks.py", SHELL_TASK)
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    for extra in ([], ["--clean"]):
        result = run("render", tasks, "-o", "", *extra)
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith("error: -o is empty") and "-o ." in result.stderr
    assert list((tmp_path / "here").iterdir()) == []
    assert run("render", tasks, "-o", ".").exit_code == 0
    assert [p.name for p in (tmp_path / "here").iterdir()] == ["report.yaml"]


# --- resource names in platform.yaml ----------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("policy:\n  maxResources: {gpu: '1'}\n", "policy.maxResources.gpu: 'gpu' is not a "
     "resource name pods request"),
    ("policy:\n  maxResources: {cpus: '1'}\n", "policy.maxResources.cpus: 'cpus' is not a "
     "resource name pods request; did you mean 'cpu'?"),
    ("defaultResources:\n  requests: {memroy: 1Gi}\n", "defaultResources.requests.memroy: "
     "'memroy' is not a resource name pods request; did you mean 'memory'?"),
    ("defaultResources:\n  limits: {gpu: '1'}\n", "defaultResources.limits.gpu: 'gpu'"),
    ("defaultResources:\n  requests: {cpu: lots}\n", "defaultResources.requests.cpu: quantity "
     "'lots' is not a Kubernetes quantity"),  # was: 'cpu: quantity ...', the key unnamed
    ("resourceTolerations:\n  nvidia.com/gpu: []\n  memory: []\n  ephemeral-storag: []\n",
     "resourceTolerations.ephemeral-storag: 'ephemeral-storag' is not a resource name pods "
     "request; did you mean 'ephemeral-storage'?"),
])
def test_a_resource_name_no_pod_can_request_is_refused_naming_its_key(
        tmp_path: Path, text: str, expected: str) -> None:
    """A ceiling or a default keyed by a name no container requests would silently never
    apply (maxResources: {gpu: 8} capped nothing)."""
    result = run("render", write(tmp_path, "tasks.py", SHELL_TASK), "--platform",
                 write(tmp_path, "platform.yaml", text))
    assert result.exit_code == 2, result.output
    assert expected in result.stderr, result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr


def test_the_resource_names_pods_request_are_accepted(tmp_path: Path) -> None:
    platform = write(tmp_path, "platform.yaml", """\
        defaultResources:
          requests: {cpu: 100m, memory: 128Mi, ephemeral-storage: 1Gi}
          limits: {nvidia.com/gpu: "1", hugepages-2Mi: 1Gi}
        policy:
          maxResources: {cpu: "32", memory: 256Gi, nvidia.com/gpu: "8"}
        """)
    result = run("render", write(tmp_path, "tasks.py", SHELL_TASK), "--platform", platform)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(("text", "expected"), [
    ("taskTypes:\n  pytorch:\n    operatr: trainer\n", "taskTypes.pytorch.operatr: unknown "
     "key 'operatr'; did you mean 'operator'? (fix: write 'operator')"),
    ("taskTypes:\n  pytorh: {}\n", "warning: taskTypes.pytorh: no installed task type is "
     "named 'pytorh' (did you mean 'pytorch'?)"),
])
def test_task_type_settings_say_which_key_a_typo_meant(tmp_path: Path, text: str,
                                                       expected: str) -> None:
    result = run("render", write(tmp_path, "tasks.py", SHELL_TASK), "--platform",
                 write(tmp_path, "platform.yaml", text))
    assert expected in result.stderr, result.stderr


def test_a_mistyped_resource_argument_says_what_was_meant() -> None:
    from podtemplate import Resources

    with pytest.raises(DefinitionError, match="did you mean 'cpu'") as caught:
        Resources(cpus="1")
    assert caught.value.fix == "write cpu=..."
    with pytest.raises(DefinitionError, match="did you mean 'ephemeral_storage'"):
        Resources(ephemeral_storag="1Gi")


# --- validate: an empty input among others ----------------------------------------------

def test_an_empty_input_among_others_fails_validate(tmp_path: Path) -> None:
    """`render broken.py > a.yaml; validate a.yaml b.yaml` must not pass on b.yaml alone."""
    good = tmp_path / "good.yaml"
    good.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", encoding="utf-8")
    empty = tmp_path / "empty.yaml"
    empty.write_text("", encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", str(good), str(empty)])
    assert result.exit_code == 1, result.output
    assert f"error: {empty}: no documents to validate" in result.stderr
    assert str(good) not in result.stderr.split("no documents")[0]
    assert "1 document(s): 1 valid" in result.stderr
    alone = CliRunner().invoke(main, ["validate", str(good)])
    assert alone.exit_code == 0, alone.output


def test_the_summary_counts_the_inputs_without_a_document(tmp_path: Path) -> None:
    """A summary of "1 valid" above exit 1 would not say why: it counts the empty inputs,
    and one given twice is named once."""
    good = tmp_path / "good.yaml"
    good.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", encoding="utf-8")
    empty = tmp_path / "empty.yaml"
    empty.write_text("---\n# nothing here\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", str(empty), str(good), str(empty)])
    assert result.exit_code == 1, result.output
    assert result.stderr.splitlines() == [
        f"error: {empty}: no documents to validate (fix: give a file with manifests; in a "
        "pipe, check that the command before it succeeded)",
        "1 document(s): 1 valid, 0 invalid, 0 not checked, 1 input(s) without a document"]


def test_ctrl_c_while_files_are_moved_in_leaves_the_folder_as_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C half-way through moving the rendered files into -o: the files moved in are
    taken out again and the ones they replaced put back; one line, exit 130."""
    from podtemplate.cli import output

    examples = Path(__file__).resolve().parents[1] / "examples"
    args = ["render", str(examples / "python_tasks.py"), "--platform",
            str(examples / "platform.yaml"), "-o", str(tmp_path / "out")]
    assert run(*args).exit_code == 0
    (tmp_path / "out" / "etl.yaml").write_text("mine\n", encoding="utf-8")
    before = {p.name: p.read_text(encoding="utf-8") for p in (tmp_path / "out").iterdir()}
    moves = []
    real_replace = os.replace

    def replace_then_ctrl_c(source: str | Path, target: str | Path) -> None:
        moves.append(target)
        if len(moves) == 3:
            raise KeyboardInterrupt
        real_replace(source, target)

    monkeypatch.setattr(output.os, "replace", replace_then_ctrl_c)
    result = CliRunner().invoke(main, args)
    monkeypatch.undo()
    assert result.exit_code == 130, result.output
    assert result.stderr.strip() == "interrupted: nothing was written"
    after = {p.name: p.read_text(encoding="utf-8") for p in (tmp_path / "out").iterdir()}
    assert after == before


def test_a_module_target_that_is_a_file_here_names_the_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`podtemplate render etl.jobs` from the project's root: the console script does not
    import from the current folder (python -c would), so the error names the file."""
    (tmp_path / "etl").mkdir()
    (tmp_path / "etl" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "etl" / "jobs_here.py").write_text(SHELL_TASK, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = run("render", "etl.jobs_here")
    assert result.exit_code == 2, result.output
    assert "module not found" in result.stderr
    assert str(Path("etl", "jobs_here.py")) in result.stderr and "PYTHONPATH" in result.stderr
    assert run("render", str(Path("etl", "jobs_here.py"))).exit_code == 0


@pytest.mark.parametrize(("target", "fix"), [
    (".jobs_here", "a dotted module name"),  # was: importing failed at <frozen importlib.util>
    ("etl/jobs_here", str(Path("etl", "jobs_here.py"))),  # was: run with PYTHONPATH=.
    ("etl..jobs_here", "a dotted module name"),
])
def test_a_target_that_is_no_module_name_says_so(tmp_path: Path, target: str, fix: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "etl").mkdir()
    (tmp_path / "etl" / "jobs_here.py").write_text(SHELL_TASK, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = run("render", target)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"error: {target}: not a .py file, a folder or a module "
                                    "name"), result.stderr
    assert fix in result.stderr and "PYTHONPATH" not in result.stderr
    assert len(result.stderr.splitlines()) == 1

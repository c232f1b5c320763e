"""Issue 21, names: a task name is what a flytekit user writes (``task_1``, ``Calc.Area``);
object names follow one rule (model/naming.py); two modules may both define ``t1``;
``with_overrides`` makes a task of its own; ``--run-id`` suffixes every object name."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

import podtemplate
import pytest
from podtemplate import InvalidNameError, Resources, TargetError, task
from podtemplate.cli.targets import collect_tasks
from podtemplate.model.naming import check_object_names, derive_object_name, with_run_id
from podtemplate.plugin import MigrationWarning
from podtemplate.testing import render_cli, rendered_documents
from podtemplate.testing.policy_kit import assert_valid_manifest

DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
TASK_NAME_ANNOTATION = "podtemplate.io/task-name"


def _render(tasks: Any, **options: Any) -> list[dict[str, Any]]:
    manager = podtemplate.build_plugin_manager()
    manifests = podtemplate.render(tasks, plugin_manager=manager, **options)
    for manifest in manifests:
        assert_valid_manifest(manifest, manager)
        assert DNS_LABEL.fullmatch(manifest["metadata"]["name"]), manifest["metadata"]["name"]
    return manifests


@pytest.mark.parametrize(("name", "derived"), [
    ("task_1", "task-1"), ("Calc.Area", "calc-area"), ("Train_Model_V2", "train-model-v2"),
    ("_private__thing_", "private-thing"), ("db-migrate", "db-migrate"),
])
def test_one_rule_derives_the_object_name(name: str, derived: str) -> None:
    assert derive_object_name(name) == derived


def test_a_long_name_is_cut_with_a_stable_hash_that_keeps_close_names_apart() -> None:
    first, second = "a" * 70 + "_x", "a" * 70 + "_y"
    assert derive_object_name(first) != derive_object_name(second)
    for name in (first, second):
        derived = derive_object_name(name)
        assert len(derived) == 63 and DNS_LABEL.fullmatch(derived)
        assert derived == derive_object_name(name)  # the same every time
    assert derive_object_name(first).startswith("a" * 50)


def test_a_python_identifier_names_the_task_and_stays_visible_on_its_pod() -> None:
    @task(name="Calc.Area", image="python:3.11")
    def area() -> None: ...

    @task(image="python:3.11")
    def task_1() -> None: ...

    assert (area.name, area.object_name) == ("Calc.Area", "calc-area")
    pods = _render([area, task_1])
    assert [pod["metadata"]["name"] for pod in pods] == ["calc-area", "task-1"]
    assert pods[0]["metadata"]["annotations"][TASK_NAME_ANNOTATION] == "Calc.Area"
    assert pods[0]["metadata"]["labels"]["podtemplate.io/task"] == "calc-area"
    assert pods[1]["metadata"]["annotations"][TASK_NAME_ANNOTATION] == "task_1"


def test_a_name_that_is_already_an_object_name_carries_no_extra_annotation() -> None:
    @task(name="train-model", image="python:3.11")
    def train() -> None: ...

    (pod,) = _render(train)
    assert TASK_NAME_ANNOTATION not in pod["metadata"]["annotations"]


def test_names_nothing_can_be_derived_from_are_refused() -> None:
    for bad in ("__", "a b", "tool\n", "x/y", "-"):
        with pytest.raises(InvalidNameError, match="task name"):
            task(name=bad)(lambda: None)


def _write(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text))
    return folder


T1 = textwrap.dedent("""
    from podtemplate import task

    @task(image="python:3.11")
    def t1() -> None: ...
""")


def test_two_modules_defining_t1_are_an_error_naming_both_with_the_fix(
        tmp_path: Path) -> None:
    folder = _write(tmp_path / "pkg_names_a", {"__init__.py": "", "etl.py": T1, "ml.py": T1})
    tasks = collect_tasks([str(folder)])
    assert [(t.module, t.name) for t in tasks] == [("pkg_names_a.etl", "t1"),
                                                  ("pkg_names_a.ml", "t1")]
    with pytest.raises(TargetError) as raised:
        _render(tasks)
    message = str(raised.value)
    assert re.search(r"tasks 't1' \(\S*etl\.py:4\) and 't1' \(\S*ml\.py:4\) would both "
                     r"name their objects 't1'", message), message
    assert "name=" in message and "\n" not in message
    # Alone, each keeps plain t1: the name never depends on what else is rendered.
    assert [m["metadata"]["name"] for m in _render(tasks[:1])] == ["t1"]
    assert [m["metadata"]["name"] for m in _render(tasks[1:])] == ["t1"]


def test_an_explicit_name_resolves_the_collision_and_never_moves(tmp_path: Path) -> None:
    renamed = T1.replace('@task(image="python:3.11")', '@task(name="ml.t1", image="python:3.11")')
    folder = _write(tmp_path / "pkg_names_e", {"__init__.py": "", "etl.py": T1,
                                               "ml.py": renamed})
    tasks = collect_tasks([str(folder)])
    together = [m["metadata"]["name"] for m in _render(tasks)]
    assert together == ["t1", "ml-t1"]
    assert [m["metadata"]["name"] for m in _render(tasks[1:])] == ["ml-t1"]
    assert [m["metadata"]["name"] for m in _render(tasks[::-1])] == ["ml-t1", "t1"]


def test_a_folder_selector_takes_the_task_from_every_module_that_has_it(
        tmp_path: Path) -> None:
    # folder:t1 selects each module's t1; a module of the folder without one is no error.
    other = "from podtemplate import task\n\n@task(image='x:1')\ndef t0() -> None: ...\n"
    folder = _write(tmp_path / "pkg_names_sel", {"__init__.py": "", "a_other.py": other,
                                                "etl.py": T1, "ml.py": T1})
    tasks = collect_tasks([f"{folder}:t1"])
    assert [(t.module, t.name) for t in tasks] == [("pkg_names_sel.etl", "t1"),
                                                  ("pkg_names_sel.ml", "t1")]
    with pytest.raises(TargetError, match=r"pkg_names_sel: task 'nope' not found.*in any"):
        collect_tasks([f"{folder}:nope"])


def test_names_colliding_only_once_derived_are_an_error_not_a_hash() -> None:
    @task(name="calc_area", image="x:1")
    def first() -> None: ...

    @task(name="Calc.Area", image="x:1")
    def second() -> None: ...

    assert first.object_name == second.object_name == "calc-area"
    with pytest.raises(TargetError, match=r"tasks 'calc_area' \(\S+test_names\.py:\d+\) and "
                       r"'Calc.Area' \(\S+:\d+\) would both name their objects 'calc-area'"):
        _render([first, second])
    check_object_names([first, first])  # the same task given twice is one task


def test_one_module_defining_one_name_twice_is_an_error(tmp_path: Path) -> None:
    source = T1 + '\n\n@task(name="t1", image="python:3.11")\ndef other() -> None: ...\n'
    folder = _write(tmp_path / "pkg_names_b", {"__init__.py": "", "twice.py": source})
    with pytest.raises(TargetError, match="two tasks are named 't1'"):
        collect_tasks([str(folder / "twice.py")])


def test_with_overrides_makes_a_task_of_its_own_beside_the_original(tmp_path: Path) -> None:
    source = T1 + textwrap.dedent("""
        from podtemplate import PodTemplate, Resources

        bar = t1.with_overrides(pod_template=PodTemplate({"nodeSelector": {"pool": "gpu"}}))
        big = t1.with_overrides(name="t1_big", requests=Resources(cpu=4, mem="8Gi"))
    """)
    folder = _write(tmp_path / "pkg_names_c", {"__init__.py": "", "over.py": source})
    tasks = collect_tasks([str(folder / "over.py")])
    assert [t.name for t in tasks][::2] == ["t1", "t1_big"]
    assert re.fullmatch(r"t1-override-[0-9a-f]{6}", tasks[1].name)
    pods = {m["metadata"]["name"]: m for m in _render(tasks)}
    assert set(pods) == {"t1", tasks[1].name, "t1-big"}
    assert pods[tasks[1].name]["spec"]["nodeSelector"] == {"pool": "gpu"}
    assert "nodeSelector" not in pods["t1"]["spec"]
    assert pods["t1-big"]["spec"]["containers"][0]["resources"]["requests"] == {
        "cpu": "4", "memory": "8Gi"}
    # The same override gives the same name, render after render.
    assert t1_override_name(tasks[0]) == t1_override_name(tasks[0])


def t1_override_name(original: podtemplate.Task) -> str:
    return original.with_overrides(requests=Resources(cpu="1")).name


def test_run_id_suffixes_every_object_name_and_labels_objects_and_pods() -> None:
    @task(image="python:3.11")
    def task_1() -> None: ...

    (pod,) = _render(task_1, run_id="r42")
    assert pod["metadata"]["name"] == "task-1-r42"
    assert pod["metadata"]["labels"]["podtemplate.io/run"] == "r42"
    assert pod["metadata"]["labels"]["podtemplate.io/task"] == "task-1"
    (again,) = _render(task_1, run_id="r43")
    assert again["metadata"]["name"] == "task-1-r43"


def test_a_run_id_keeps_a_long_name_valid() -> None:
    long_name = "x" * 63
    suffixed = with_run_id(long_name, "run-2026-12-01")
    assert len(suffixed) == 63 and suffixed.endswith("-run-2026-12-01")
    assert DNS_LABEL.fullmatch(suffixed)


@pytest.mark.parametrize("bad", ["R1", "-r", "r_1", "x" * 21, ""])
def test_a_bad_run_id_is_refused_naming_the_rule(bad: str) -> None:
    @task(image="python:3.11")
    def t() -> None: ...

    with pytest.raises(InvalidNameError, match="run id"):
        podtemplate.render(t, run_id=bad)


def test_render_run_id_on_the_command_line(tmp_path: Path) -> None:
    folder = _write(tmp_path / "pkg_names_d", {"__init__.py": "", "one.py": T1})
    result = render_cli(str(folder / "one.py"), "--run-id", "nightly-7")
    assert result.exit_code == 0, result.output
    (pod,) = rendered_documents(result.output)
    assert_valid_manifest(pod, podtemplate.build_plugin_manager())
    assert pod["metadata"]["name"] == "t1-nightly-7"
    assert pod["metadata"]["labels"]["podtemplate.io/run"] == "nightly-7"


def test_a_run_id_keeps_the_name_within_the_operators_limit() -> None:
    from podtemplate_ray import Ray

    @task(name="r" * 45, image="rayproject/ray:2.41.0", task_config=Ray())
    def job() -> None: ...

    (rayjob,) = _render(job)
    assert rayjob["metadata"]["name"] == "r" * 45
    # With the run id the name would pass KubeRay's 47: it is cut (with a hash) to fit.
    (with_run,) = podtemplate.render(job, run_id="r1")
    name = with_run["metadata"]["name"]
    assert len(name) == 47 and name.startswith("r" * 30) and name.endswith("-r1")
    assert_valid_manifest(with_run, podtemplate.build_plugin_manager())


def test_with_overrides_takes_flytekits_pod_arguments() -> None:
    # flytekit's with_overrides(container_image=, accelerator=, shared_memory=) set what
    # @task's arguments of those names set; they were a TypeError.
    @task(image="python:3.11", requests=Resources(gpu=1))
    def train() -> None: ...

    with pytest.warns(MigrationWarning, match=r"with_overrides\(image=\.\.\.\)"):
        tuned = train.with_overrides(container_image="ghcr.io/acme/train:2",
                                     accelerator="nvidia-tesla-a100", shared_memory="2Gi")
    (pod,) = _render(tuned)
    spec = pod["spec"]
    assert spec["containers"][0]["image"] == "ghcr.io/acme/train:2"
    assert spec["nodeSelector"] == {"k8s.amazonaws.com/accelerator": "nvidia-tesla-a100"}
    assert spec["volumes"] == [{"name": "dshm", "emptyDir": {"medium": "Memory",
                                                             "sizeLimit": "2Gi"}}]
    assert re.fullmatch(r"train-override-[0-9a-f]{6}", tuned.name)


@pytest.mark.parametrize(("argument", "message"), [
    ("retries", r"task 'f'.*with_overrides\(retries=\.\.\.\) is a setting of Flyte's engine"),
    ("timeout", r"task 'f'.*fix: drop timeout=; set activeDeadlineSeconds"),
    ("node_name", r"task 'f'.*with_overrides has no argument 'node_name'"),
])
def test_with_overrides_refuses_engine_settings_with_what_to_do(argument: str,
                                                                 message: str) -> None:
    @task(image="python:3.11")
    def f() -> None: ...

    with pytest.raises(podtemplate.DefinitionError, match=message):
        f.with_overrides(**{argument: 3})

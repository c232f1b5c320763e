"""The guard at the entry points, the all-or-nothing output and the loader's limits."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from podtemplate import (
    DefinitionError,
    InternalError,
    InvalidPodSpecError,
    PodTemplate,
    YamlError,
    render,
    task,
)
from podtemplate.cli import main
from podtemplate.cli.output import write_files
from podtemplate.errors import OutputError
from podtemplate.files.yamlio import StrictLoader, load_all

TASKS = """from podtemplate import task

@task(image="python:3.11")
def guarded_one() -> None: ...
"""


@pytest.fixture
def tasks_file(tmp_path: Path) -> Path:
    path = tmp_path / "guard_tasks.py"
    path.write_text(TASKS)
    return path


def _broken_collect(targets: list[str]) -> Any:
    raise KeyError("a bug")


def test_internal_error_is_one_line_exit_70(tasks_file: Path, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.import_module("podtemplate.cli.targets"), "collect_tasks", _broken_collect)
    result = CliRunner().invoke(main, ["render", str(tasks_file), "-o", str(tmp_path / "o")])
    assert result.exit_code == 70
    assert result.stderr.count("\n") == 1 and "internal error: KeyError" in result.stderr
    assert "report" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("how", ["group-flag", "command-flag", "environment"])
def test_debug_shows_the_traceback(how: str, tasks_file: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.import_module("podtemplate.cli.targets"), "collect_tasks", _broken_collect)
    args = ["render", str(tasks_file)]
    if how == "group-flag":
        args.insert(0, "--debug")
    elif how == "command-flag":
        args.append("--debug")
    else:
        monkeypatch.setenv("PODTEMPLATE_DEBUG", "1")
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 70
    assert "Traceback" in result.stderr and "_broken_collect" in result.stderr
    assert result.stderr.rstrip().splitlines()[-1].startswith("error: internal error")


def test_bad_input_with_debug_still_exits_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["--debug", "render", str(tmp_path / "missing.py")])
    assert result.exit_code == 2 and "Traceback" in result.stderr


def test_api_turns_a_plugin_bug_into_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    @task(image="python:3.11")
    def api_task() -> None: ...

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise AttributeError("plugin bug")

    monkeypatch.setattr(sys.modules["podtemplate.render"], "define_roles", broken)
    with pytest.raises(InternalError) as caught:
        render(api_task)
    assert isinstance(caught.value.__cause__, AttributeError)


def test_a_failed_move_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "kept"
    folder.mkdir()
    (folder / "a.yaml").write_text("old a\n")
    real_replace = os.replace
    moves: list[str] = []

    def failing_replace(source: Any, target: Any) -> None:
        if Path(target).name == "b.yaml":
            raise PermissionError(13, "Permission denied", str(target))
        moves.append(Path(target).name)
        real_replace(source, target)

    monkeypatch.setattr("podtemplate.cli.output.os.replace", failing_replace)
    with pytest.raises(OutputError) as caught:
        write_files(folder, [("a.yaml", "new a\n"), ("b.yaml", "new b\n")])
    assert "b.yaml" in str(caught.value)
    assert moves[0] == "a.yaml"  # the first file was moved in, then taken out again
    assert sorted(p.name for p in folder.iterdir()) == ["a.yaml"]
    assert (folder / "a.yaml").read_text() == "old a\n"


def test_a_failed_write_removes_the_folders_it_made(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    def failing_scratch(*args: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("podtemplate.cli.output._write_scratch", failing_scratch)
    with pytest.raises(OutputError):
        write_files(tmp_path / "a" / "b" / "out", [("x.yaml", "x\n")])
    assert list(tmp_path.iterdir()) == []


def test_alias_budget_is_configurable(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "base: &b [x, y, z]\n" + "".join(f"k{i}: *b\n" for i in range(50))
    assert len(load_all(text)[0]) == 51
    monkeypatch.setenv("PODTEMPLATE_MAX_ALIAS_NODES", "20")
    with pytest.raises(YamlError, match="alias budget"):
        load_all(text)


def test_depth_limit_is_configurable(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "a: " + "[" * 30 + "]" * 30 + "\n"
    assert load_all(text)
    monkeypatch.setenv("PODTEMPLATE_MAX_DEPTH", "10")
    with pytest.raises(YamlError, match="more than 10 levels"):
        load_all(text)
    deep: list[Any] = []
    for _ in range(12):
        deep = [deep]
    with pytest.raises(InvalidPodSpecError, match="levels deep"):
        PodTemplate({"tolerations": deep})


def test_merge_keys_may_be_overridden_but_not_repeated() -> None:
    assert load_all("a: &a {k: 1, j: 2}\nb:\n  <<: *a\n  k: 3\n")[0]["b"] == {"k": 3, "j": 2}
    with pytest.raises(YamlError, match="'k' is given twice"):
        load_all("b:\n  k: 1\n  k: 3\n")


def test_bad_limit_variable_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PODTEMPLATE_MAX_DEPTH", "deep")
    with pytest.raises(DefinitionError, match="PODTEMPLATE_MAX_DEPTH"):
        load_all("a: 1\n")


def test_a_line_marking_loader_keeps_every_check() -> None:
    """A loader that records source lines (as explain needs) subclasses StrictLoader and
    is passed to load_all: it sees every mapping, and the safety checks still hold."""
    lines: list[int] = []

    class Marking(StrictLoader):
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            lines.append(node.start_mark.line + 1)
            return super().construct_mapping(node, deep=deep)

    assert load_all("a:\n  b: 1\n", loader_class=Marking) == [{"a": {"b": 1}}]
    assert sorted(lines) == [1, 2]
    with pytest.raises(YamlError, match="twice"):
        load_all("a: 1\na: 2\n", loader_class=Marking)
    with pytest.raises(YamlError, match="cycle"):
        load_all("a: &x [*x]\n", loader_class=Marking)

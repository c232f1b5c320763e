"""A task module imported one statement at a time (cli/statements.py): every definition
error of the module in one render, the module otherwise as an ordinary import makes it."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from podtemplate import DefinitionError, DefinitionErrors, TargetError
from podtemplate.cli.targets import collect_tasks, load_module


def _module(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(text))
    return str(path)


def test_the_module_keeps_its_docstring_future_flags_and_tasks(tmp_path: Path) -> None:
    target = _module(tmp_path, "stmt_plain_mod", '''\
        """The module's docstring."""
        from __future__ import annotations

        from podtemplate import task

        @task(image="python:3.11")
        def train(epochs: Undefined = 1) -> None: ...
    ''')
    module = load_module(target)
    assert module.__doc__ == "The module's docstring."
    assert module.train.fn.__annotations__["epochs"] == "Undefined"  # annotations are lazy
    assert [task.name for task in collect_tasks([target])] == ["train"]
    assert sys.modules["stmt_plain_mod"] is module


def test_two_refused_tasks_are_raised_together_in_file_order(tmp_path: Path) -> None:
    target = _module(tmp_path, "stmt_two_mod", '''\
        from podtemplate import task

        @task(image="python:3.11", cache=True)
        def first() -> None: ...

        @task(image="python:3.11", timeout=3)
        def second() -> None: ...
    ''')
    with pytest.raises(DefinitionErrors) as raised:
        load_module(target)
    assert [line.split(": ", 1)[0] for line in raised.value.lines()] == [
        f"{target}:3, cache", f"{target}:6, timeout"]
    assert "stmt_two_mod" not in sys.modules  # a failed import leaves nothing behind


def test_one_refusal_is_raised_as_itself(tmp_path: Path) -> None:
    target = _module(tmp_path, "stmt_one_mod", '''\
        from podtemplate import task

        @task(image="python:3.11", cache=True)
        def first() -> None: ...
    ''')
    with pytest.raises(DefinitionError) as raised:
        load_module(target)
    assert not isinstance(raised.value, DefinitionErrors)
    assert str(raised.value).startswith(f"{target}:3, cache: @task(cache=...)")


def test_a_name_error_of_the_users_own_is_an_import_error_as_before(tmp_path: Path) -> None:
    target = _module(tmp_path, "stmt_name_mod", "value = missing_name + 1\n")
    with pytest.raises(TargetError, match=r"NameError: name 'missing_name' is not defined at "
                       r"\S+stmt_name_mod\.py:1"):
        load_module(target)


def test_a_template_that_does_not_load_is_reported_with_the_refusals(tmp_path: Path) -> None:
    target = _module(tmp_path, "stmt_yaml_mod", '''\
        from podtemplate import PodTemplate, task

        GPU = PodTemplate.from_yaml("a: 1\\n---\\nb: 2\\n")

        @task(image="python:3.11", cache=True)
        def first() -> None: ...
    ''')
    with pytest.raises(DefinitionErrors) as raised:
        load_module(target)
    first, second = raised.value.lines()
    assert "expected one YAML document, found 2" in first
    assert second.startswith(f"{target}:5, cache")

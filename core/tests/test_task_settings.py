"""``taskTypes`` of platform.yaml: core checks the shape, each task type its own section."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import pytest
from podtemplate import (
    PlatformConfigError,
    TaskType,
    build_plugin_manager,
    hookimpl,
    load_platform,
    make_context,
)
from podtemplate.testing import render_cli
from pydantic import BaseModel, ConfigDict


class ToySettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    flavour: Literal["plain", "fancy"] = "plain"


class ToyPlugin:
    @hookimpl
    def podtemplate_add_task_types(self) -> Sequence[TaskType]:
        return [TaskType(name="toy", distribution="toy", settings=ToySettings),
                TaskType(name="bare", distribution="bare")]


def context_for(task_types: dict[str, object]):  # type: ignore[no-untyped-def]
    return make_context(platform=load_platform(None, task_types=task_types),
                        plugin_manager=build_plugin_manager([ToyPlugin()]))


def test_each_task_type_gets_its_own_validated_settings() -> None:
    context = context_for({"toy": {"flavour": "fancy"}})
    assert context.task_type_settings("toy") == ToySettings(flavour="fancy")
    assert context.task_type_settings("bare") is None
    assert context_for({}).task_type_settings("toy") == ToySettings()


@pytest.mark.parametrize(("section", "field", "words"), [
    ({"toy": {"flavor": "fancy"}}, "taskTypes.toy.flavor", "unknown key 'flavor'"),
    ({"toy": {"flavour": "odd"}}, "taskTypes.toy.flavour", "'plain' or 'fancy'"),
    ({"bare": {"x": 1}}, "taskTypes.bare", "takes no settings"),
])
def test_bad_settings_fail_when_the_render_starts(section: dict[str, object], field: str,
                                                  words: str) -> None:
    with pytest.raises(PlatformConfigError, match=words) as error:
        context_for(section)
    assert error.value.field == field
    assert error.value.fix


def test_a_section_for_a_type_not_installed_is_a_warning() -> None:
    context = context_for({"toyy": {"flavour": "fancy"}})
    (warning,) = context.warnings
    assert warning.field == "taskTypes.toyy"  # named once: 'taskTypes: taskTypes.toyy:' before
    assert warning.message.startswith("no installed task type is named 'toyy'")
    assert "toy" in warning.message


@pytest.mark.parametrize(("text", "words"), [
    ("taskTypes: [pytorch]\n", "must map task type names"),
    ("taskTypes: {pytorch: trainer}\n", "taskTypes.pytorch must be a mapping"),
])
def test_the_section_shape_is_checked_on_load(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "platform.yaml"
    path.write_text(text)
    with pytest.raises(PlatformConfigError, match=words):
        load_platform(path)


def test_cli_reports_a_bad_section_in_one_line(tmp_path: Path) -> None:
    module = tmp_path / "tasks.py"
    module.write_text("from podtemplate import task\n\n@task(image='python:3.11')\n"
                      "def hello() -> None: ...\n")
    platform = tmp_path / "platform.yaml"
    platform.write_text("taskTypes:\n  pytorch:\n    operator: kubeflow\n")
    result = render_cli(str(module), "--platform", str(platform))
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert "taskTypes.pytorch.operator" in line and "training-operator" in line
    assert line.startswith(f"error: {platform}, taskTypes.pytorch.operator: "), line


@pytest.mark.parametrize(("section", "field"), [
    ("pytorch:\n    operater: trainer\n", "taskTypes.pytorch.operater"),
    ("python:\n    a: 1\n", "taskTypes.python"),
])
def test_a_bad_section_is_named_in_its_file(tmp_path: Path, section: str, field: str) -> None:
    """Like every other platform.yaml error, a bad taskTypes section names the file."""
    module = tmp_path / "tasks.py"
    module.write_text("from podtemplate import task\n\n@task(image='python:3.11')\n"
                      "def hello() -> None: ...\n")
    platform = tmp_path / "platform.yaml"
    platform.write_text("taskTypes:\n  " + section)
    result = render_cli(str(module), "--platform", str(platform))
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"error: {platform}, {field}: "), line

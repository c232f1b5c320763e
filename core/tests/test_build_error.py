"""``BuildError``, the error a task type's build hooks raise for settings the operator
refuses: located at the task by core, one line with the fix from the CLI, exit 2."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from podtemplate import Platform, RenderContext, RoleSpec, Task, TaskType, render
from podtemplate.dispatch import build_plugin_manager
from podtemplate.errors import PodTemplateError
from podtemplate.plugin import BuildError, TaskTypePlugin, pod_manifest
from podtemplate.testing import render_cli, write_task_module


class Refusing(TaskTypePlugin):
    """A task type whose build refuses every task (in ``define_roles`` or the build)."""

    task_type = TaskType(name="refusing", distribution="test-refusing")

    def __init__(self, hook: str) -> None:
        self.hook = hook

    def refuse(self) -> None:
        raise BuildError("port 8786 is the scheduler's own", role="pod",
                         field="spec.containers[primary].ports[0].containerPort",
                         fix="use another port")

    def define_roles(self, task: Task, context: RenderContext) -> list[RoleSpec]:
        if self.hook == "define_roles":
            self.refuse()
        return [RoleSpec(name="pod", template_path="")]

    def build(self, task: Task, roles: Sequence[RoleSpec], pods: Mapping[str, dict[str, Any]],
              context: RenderContext) -> list[dict[str, Any]]:
        self.refuse()
        return [pod_manifest(task, pods["pod"], context)]


HOOKS = ["define_roles", "build_manifests"]
TASK = Task(name="etl", task_type="refusing", image="busybox:1.36")


def test_a_build_error_is_bad_input_of_the_one_hierarchy() -> None:
    assert issubclass(BuildError, PodTemplateError)
    assert BuildError("x").exit_code == 2


@pytest.mark.parametrize("hook", HOOKS)
def test_render_raises_it_located_at_the_task(hook: str) -> None:
    manager = build_plugin_manager([Refusing(hook)], load_entry_points=False)
    with pytest.raises(BuildError) as caught:
        render(TASK, platform=Platform(), plugin_manager=manager)
    assert (caught.value.task, caught.value.role) == ("etl", "pod")


@pytest.mark.parametrize("hook", HOOKS)
def test_the_cli_prints_one_line_with_the_fix_and_exits_2(
        hook: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    manager = build_plugin_manager([Refusing(hook)], load_entry_points=False)
    monkeypatch.setattr(sys.modules["podtemplate.render"], "build_plugin_manager",
                        lambda: manager)
    module = write_task_module(tmp_path, f"refused_{hook}", """
        from podtemplate import Task
        etl = Task(name="etl", task_type="refusing", image="busybox:1.36")
    """)
    result = render_cli(str(module))
    assert result.exit_code == 2, result.output
    assert result.output.splitlines() == [
        "error: task 'etl', role 'pod', spec.containers[primary].ports[0].containerPort: "
        "port 8786 is the scheduler's own (fix: use another port)"]

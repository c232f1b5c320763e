"""The cyclic garbage collector is paused while tasks render and restored as it was
afterwards, also when the render fails; the CLI freezes the objects of the task modules it
imported."""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from podtemplate import Platform, RenderContext, Task, hookimpl, render, task
from podtemplate.cli.targets import collect_tasks
from podtemplate.dispatch import build_plugin_manager
from podtemplate.errors import TemplateNotFoundError
from podtemplate.render import iter_render, make_context


class Watcher:
    """Records whether the collector ran while each manifest was checked."""

    def __init__(self) -> None:
        self.enabled: list[bool] = []

    @hookimpl
    def podtemplate_check_manifest(self, task: Task, manifest: Mapping[str, Any],
                                   pods: Mapping[str, Mapping[str, Any]],
                                   context: RenderContext) -> Sequence[str] | None:
        self.enabled.append(gc.isenabled())
        return None


@task(image="busybox:1.36")
def first() -> None:
    """A task."""


@task(image="busybox:1.36")
def second() -> None:
    """Another task."""


@task(image="busybox:1.36", pod_template_name="nowhere")
def broken() -> None:
    """Names a cluster template that does not exist."""


@pytest.fixture
def collector() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_render_pauses_the_collector_and_restores_it(collector: None) -> None:
    watcher = Watcher()
    manager = build_plugin_manager([watcher])
    render([first, second], platform=Platform(), plugin_manager=manager)
    assert watcher.enabled == [False, False]
    assert gc.isenabled()


def test_a_failed_render_restores_the_collector(collector: None) -> None:
    with pytest.raises(TemplateNotFoundError):
        render([first, broken], platform=Platform())
    assert gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off(collector: None) -> None:
    gc.disable()
    render([first], platform=Platform())
    assert not gc.isenabled()


def test_streaming_pauses_it_per_task_not_while_the_caller_holds_manifests(
        collector: None) -> None:
    watcher = Watcher()
    context = make_context(platform=Platform(), plugin_manager=build_plugin_manager([watcher]))
    seen_by_caller = [gc.isenabled() for _ in iter_render([first, second], context)]
    assert watcher.enabled == [False, False]
    assert seen_by_caller == [True, True]
    assert gc.isenabled()


def test_the_cli_freezes_what_the_task_modules_made(tmp_path: Path) -> None:
    module = tmp_path / "frozen_tasks.py"
    module.write_text("from podtemplate import task\n\n"
                      "@task(image='busybox:1.36')\ndef frozen() -> None:\n    pass\n",
                      encoding="utf-8")
    gc.unfreeze()
    try:
        (found,) = collect_tasks([str(module)])
        assert gc.get_freeze_count() > 0
        # Frozen: tracked, but in no generation the collector walks.
        assert gc.is_tracked(found) and not any(obj is found for obj in gc.get_objects())
    finally:
        gc.unfreeze()



@pytest.mark.parametrize(("argv", "code"), [(["--help"], 0), (["render", "one.py"], 2)])
def test_the_command_pauses_the_collector_and_restores_it_on_exit(
        collector: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        argv: list[str], code: int) -> None:
    """The console script's function pauses the collector from its first line; it ends by
    SystemExit, success or error, and the collector runs again after it."""
    from podtemplate import _command
    from podtemplate.cli import targets
    from podtemplate.errors import TargetError

    seen: list[bool] = []

    def refuse(found: list[str]) -> list[Task]:
        seen.append(gc.isenabled())
        raise TargetError("no such target", fix="name one")

    monkeypatch.setattr(targets, "collect_tasks", refuse)
    monkeypatch.setattr("sys.argv", ["podtemplate", *argv])
    with pytest.raises(SystemExit) as ended:
        _command()
    assert ended.value.code == code
    assert seen == ([False] if code else [])
    assert gc.isenabled()

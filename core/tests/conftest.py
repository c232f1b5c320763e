from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from podtemplate import Platform, Task, render
from podtemplate.plugins import build_plugin_manager
from podtemplate.testing import assert_valid_pod


@pytest.fixture(scope="session")
def plugin_manager():  # type: ignore[no-untyped-def]
    return build_plugin_manager()


@pytest.fixture
def templates_dir(tmp_path: Path) -> Callable[[dict[str, str]], Path]:
    def make(files: dict[str, str]) -> Path:
        folder = tmp_path / "templates"
        folder.mkdir(exist_ok=True)
        for name, text in files.items():
            (folder / name).write_text(textwrap.dedent(text))
        return folder

    return make


@pytest.fixture
def render_pods(plugin_manager) -> Iterator[Callable[..., list[dict[str, Any]]]]:  # type: ignore[no-untyped-def]
    """Render tasks and validate every Pod strictly."""

    def run(tasks: Task | list[Task], platform: Platform | None = None, **kwargs: Any
            ) -> list[dict[str, Any]]:
        manifests = render(tasks, platform=platform or Platform(defaultImage="python:3.11"),
                           plugin_manager=plugin_manager, **kwargs)
        for manifest in manifests:
            assert_valid_pod(manifest)
        return manifests

    yield run

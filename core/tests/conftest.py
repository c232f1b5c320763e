from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from podtemplate import Platform, Task, render
from podtemplate.testing import assert_valid_pod


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

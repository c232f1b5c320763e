"""Fixtures of the dask plugin's tests: render, then validate every DaskJob strictly
against the real CRD and every role pod against the kubernetes client models."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest
from podtemplate import Platform, Task, get_path, render
from podtemplate_dask import CONTAINER_NAMES, ROLE_PATHS, TASK_TYPE


@pytest.fixture(scope="session")
def check_daskjob() -> Callable[[Mapping[str, Any]], None]:
    """Assert a DaskJob is valid: against the CRD the plugin ships (strict: an unknown
    field, which the API server would prune, fails) and each role pod
    strictly against the kubernetes client models, its operator container first."""
    # Imported here: podtemplate.testing is registered as a pytest plugin first.
    from podtemplate.testing import assert_valid_custom_resource, assert_valid_pod_template

    def check(manifest: Mapping[str, Any]) -> None:
        assert manifest["metadata"]["name"]
        assert_valid_custom_resource(manifest, TASK_TYPE)
        for role, role_path in ROLE_PATHS.items():
            pod = get_path(manifest, role_path)
            assert_valid_pod_template({"metadata": pod["metadata"], "spec": pod["spec"]})
            assert pod["spec"]["containers"][0]["name"] == CONTAINER_NAMES[role]

    return check



@pytest.fixture
def platform() -> Platform:
    return Platform(namespace="ml-team", defaultImage="ghcr.io/dask/dask:2024.12.1")



@pytest.fixture
def render_dask(plugin_manager: Any, platform: Platform,
                check_daskjob: Callable[[Mapping[str, Any]], None]
                ) -> Callable[..., dict[str, Any]]:
    """Render one dask task to its one DaskJob, validated."""

    def run(task: Task, **kwargs: Any) -> dict[str, Any]:
        kwargs.setdefault("platform", platform)
        manifests = render(task, plugin_manager=plugin_manager, **kwargs)
        assert len(manifests) == 1
        check_daskjob(manifests[0])
        return manifests[0]

    return run

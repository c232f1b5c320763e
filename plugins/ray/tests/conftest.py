"""Fixtures of the Ray plugin tests: render a task and validate every RayJob against the
real KubeRay CRD and every pod template strictly with the kubernetes client models."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

pytest.register_assert_rewrite("podtemplate.testing")

from podtemplate import (  # noqa: E402
    Platform,
    Task,
    build_plugin_manager,
    render,
)
from podtemplate.testing import (  # noqa: E402
    assert_valid_custom_resource,
    assert_valid_pod_template,
)
from podtemplate_ray.plugin import TASK_TYPE  # noqa: E402


def role_templates(manifest: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Every pod template of a RayJob by role name."""
    cluster = manifest["spec"]["rayClusterSpec"]
    pods = {"head": cluster["headGroupSpec"]["template"],
            "submitter": manifest["spec"]["submitterPodTemplate"]}
    for group in cluster.get("workerGroupSpecs", ()):
        pods[f"worker:{group['groupName']}"] = group["template"]
    return pods


def assert_valid_rayjob(manifest: Mapping[str, Any]) -> None:
    assert manifest["apiVersion"] == "ray.io/v1" and manifest["kind"] == "RayJob"
    assert_valid_custom_resource(manifest, TASK_TYPE)
    for pod in role_templates(manifest).values():
        assert_valid_pod_template(pod)


@pytest.fixture(scope="session")
def plugin_manager():  # type: ignore[no-untyped-def]
    return build_plugin_manager()


@pytest.fixture
def render_rayjob(plugin_manager) -> Callable[..., dict[str, Any]]:  # type: ignore[no-untyped-def]
    """Render one Ray task to its RayJob, validated; keyword arguments go to render()."""

    def run(task: Task, platform: Platform | None = None, **kwargs: Any) -> dict[str, Any]:
        manifests = render(task, platform=platform or Platform(defaultImage="python:3.11"),
                           plugin_manager=plugin_manager, **kwargs)
        assert len(manifests) == 1
        assert_valid_rayjob(manifests[0])
        return manifests[0]

    return run


@pytest.fixture
def pods_of() -> Callable[[Mapping[str, Any]], dict[str, dict[str, Any]]]:
    """The function mapping a RayJob to its pod templates by role name."""
    return role_templates


@pytest.fixture
def validate_rayjob() -> Callable[[Mapping[str, Any]], None]:
    return assert_valid_rayjob

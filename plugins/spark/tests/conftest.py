"""Fixtures of the Spark tests: render tasks and validate every SparkApplication against
the CRD the plugin ships (the kit's validator) and every role template strictly against
the kubernetes client models."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from podtemplate import (
    Platform,
    RenderContext,
    Task,
    build_plugin_manager,
    make_context,
    render_task,
)
from podtemplate_spark.plugin import TASK_TYPE


@pytest.fixture
def assert_valid_application() -> Callable[[dict[str, Any]], None]:
    """Checks one SparkApplication: the CRD and both role templates, strictly."""
    from podtemplate.testing import assert_valid_custom_resource, assert_valid_pod_template

    def check(manifest: dict[str, Any]) -> None:
        assert manifest["apiVersion"] == "sparkoperator.k8s.io/v1beta2"
        assert manifest["kind"] == "SparkApplication"
        assert_valid_custom_resource(manifest, TASK_TYPE)
        for role in ("driver", "executor"):
            assert_valid_pod_template(manifest["spec"][role]["template"])

    return check


@pytest.fixture(scope="session")
def spark_plugin_manager():  # type: ignore[no-untyped-def]
    return build_plugin_manager()


@pytest.fixture
def render_spark(spark_plugin_manager, assert_valid_application  # type: ignore[no-untyped-def]
                 ) -> Callable[..., tuple[dict[str, Any], RenderContext]]:
    """Render one Spark task; returns its validated SparkApplication and the context
    (whose ``warnings`` the test may inspect)."""

    def run(task: Task, platform: Platform | None = None, **kwargs: Any
            ) -> tuple[dict[str, Any], RenderContext]:
        context = make_context(platform=platform or Platform(defaultImage="python:3.11"),
                               plugin_manager=spark_plugin_manager, **kwargs)
        manifests = render_task(task, context)
        assert len(manifests) == 1
        assert_valid_application(manifests[0])
        return manifests[0], context

    return run

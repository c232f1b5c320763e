"""Fixtures of the pytorch plugin's tests: rendering with full validation.

Every PyTorchJob a test renders is validated against the operator's real CRD schema (the
kit's validator, podtemplate.testing) and each of its pod templates strictly against the
kubernetes client models.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest
from podtemplate import Platform, Task, render
from podtemplate_pytorch import TASK_TYPE


def assert_valid_job(job: Mapping[str, Any]) -> None:
    """A PyTorchJob valid against the operator's CRD (shipped by the plugin), with every
    pod template valid strictly."""
    from podtemplate.testing import assert_valid_custom_resource, assert_valid_pod_template

    assert job["apiVersion"] == "kubeflow.org/v1" and job["kind"] == "PyTorchJob"
    assert_valid_custom_resource(job, TASK_TYPE)
    for replica in job["spec"]["pytorchReplicaSpecs"].values():
        assert_valid_pod_template(replica["template"])




@pytest.fixture
def check_job() -> Callable[[Mapping[str, Any]], None]:
    """``check_job(job)`` asserts ``job`` is a valid PyTorchJob (see :func:`assert_valid_job`)."""
    return assert_valid_job


@pytest.fixture
def render_jobs(plugin_manager):  # type: ignore[no-untyped-def]
    """Render tasks; every manifest must be a valid PyTorchJob."""

    def run(tasks: Task | list[Task], platform: Platform | None = None, **kwargs: Any
            ) -> list[dict[str, Any]]:
        manifests = render(tasks, platform=platform or Platform(defaultImage="python:3.11"),
                           plugin_manager=plugin_manager, **kwargs)
        for manifest in manifests:
            assert_valid_job(manifest)
        return manifests

    return run

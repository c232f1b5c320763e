"""The suite's job check (the kit's CRD validator plus strict pod models) must catch what
the API server would reject or prune, so that a passing render test means something."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from podtemplate import Platform, Role, render, task
from podtemplate_pytorch import PyTorch


@task(image="train:1", task_config=PyTorch(worker=Role(replicas=2)))
def tiny() -> None: ...


@pytest.fixture
def job(plugin_manager) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    (manifest,) = render(tiny, platform=Platform(), plugin_manager=plugin_manager)
    return manifest


def test_rendered_job_passes(job, check_job) -> None:  # type: ignore[no-untyped-def]
    check_job(job)


@pytest.mark.parametrize(("path", "value"), [
    (("spec", "pytorchReplicaSpecs", "Worker", "replicaz"), 2),
    (("spec", "pytorchReplicaSpecs", "Worker", "replicas"), "2"),
    (("spec", "elasticPolicy", "rdzvPort"), "29400"),
    (("spec", "runPolicy", "backoffLimit"), True),
    (("spec", "nprocPerNode"), 4),
    (("spec", "pytorchReplicaSpecs", "Worker", "template", "spec", "containers", 0,
      "ports", 0, "containerPort"), "23456"),
    (("spec", "pytorchReplicaSpecs", "Master", "template", "spec", "restartPolicy"), 1),
])
def test_breaking_the_schema_is_caught(job, check_job, path, value) -> None:  # type: ignore[no-untyped-def]
    broken = copy.deepcopy(job)
    node = broken
    for part in path[:-1]:
        node = node.setdefault(part, {}) if isinstance(part, str) else node[part]
    node[path[-1]] = value
    with pytest.raises(AssertionError):
        check_job(broken)


def test_missing_replica_specs_is_caught(job, check_job) -> None:  # type: ignore[no-untyped-def]
    del job["spec"]["pytorchReplicaSpecs"]
    with pytest.raises(AssertionError, match="pytorchReplicaSpecs"):
        check_job(job)


def test_unknown_pod_field_is_caught(job, check_job) -> None:  # type: ignore[no-untyped-def]
    job["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["nodeSelectr"] = {}
    with pytest.raises(Exception, match="nodeSelectr"):
        check_job(job)

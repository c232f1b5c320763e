"""examples/dask_tasks.py renders, through the CLI, to valid DaskJobs: spot workers, an
on-demand scheduler, and the team's dask-worker template on the workers only."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from podtemplate import get_path
from podtemplate.testing import render_cli, rendered_documents
from podtemplate_dask import ROLE_PATHS

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
SPOT = {"key": "spot", "operator": "Exists", "effect": "NoSchedule"}


@pytest.fixture(scope="module")
def jobs() -> dict[str, dict[str, Any]]:
    result = render_cli(str(EXAMPLES / "dask_tasks.py"),
        "--platform", str(EXAMPLES / "platform.yaml"))
    assert result.exit_code == 0, result.output
    assert result.stderr == ""  # nothing the CRD would prune
    documents = rendered_documents(result.stdout)
    return {d["metadata"]["name"]: d for d in documents}


def test_every_example_is_a_valid_daskjob(jobs: dict[str, dict[str, Any]],
                                          check_daskjob: Callable[[Mapping[str, Any]], None]
                                          ) -> None:
    assert set(jobs) == {"daily-feature-stats", "dedupe"}
    for job in jobs.values():
        check_daskjob(job)


def test_spot_workers_and_on_demand_scheduler(jobs: dict[str, dict[str, Any]]) -> None:
    job = jobs["daily-feature-stats"]
    pods = {role: get_path(job, path) for role, path in ROLE_PATHS.items()}
    assert SPOT in pods["worker"]["spec"]["tolerations"]
    assert pods["worker"]["spec"]["nodeSelector"] == {"node-pool": "spot"}
    for role in ("scheduler", "job-runner"):
        assert SPOT not in pods[role]["spec"]["tolerations"], role
        assert "nodeSelector" not in pods[role]["spec"], role
    assert job["spec"]["cluster"]["spec"]["worker"]["replicas"] == 8


def test_dask_worker_template_reaches_only_the_workers(jobs: dict[str, dict[str, Any]]) -> None:
    job = jobs["daily-feature-stats"]
    pods = {role: get_path(job, path) for role, path in ROLE_PATHS.items()}
    worker = pods["worker"]["spec"]
    assert worker["volumes"] == [{"name": "spill", "emptyDir": {"sizeLimit": "100Gi"}}]
    assert worker["containers"][0]["args"][2:] == [
        "--nthreads", "4", "--memory-limit", str(16 * 2**30)]
    # The platform's default template still applies under the role's own.
    assert worker["priorityClassName"] == "batch-default"
    for role in ("scheduler", "job-runner"):
        assert "volumes" not in pods[role]["spec"], role

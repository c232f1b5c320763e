"""`podtemplate render` on Ray tasks: the example, and bad input (exit 2, nothing written)."""

from __future__ import annotations

import textwrap
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from podtemplate.testing import render_cli, rendered_documents

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
Validate = Callable[[dict[str, Any]], None]
PodsOf = Callable[[dict[str, Any]], dict[str, dict[str, Any]]]


def test_example_renders(validate_rayjob: Validate, pods_of: PodsOf) -> None:
    result = render_cli(str(EXAMPLES / "ray_tasks.py"), "--platform",
                        str(EXAMPLES / "platform.yaml"))
    assert result.exit_code == 0, result.output
    (job,) = rendered_documents(result.stdout)
    validate_rayjob(job)
    pods = pods_of(job)
    assert sorted(pods) == ["head", "submitter", "worker:cpu", "worker:gpu"]
    gpu_product = "nvidia.com/gpu.product"
    assert pods["worker:gpu"]["spec"]["nodeSelector"][gpu_product] == "NVIDIA-A100-SXM4-80GB"
    assert all(gpu_product not in (pod["spec"].get("nodeSelector") or {})
               for role, pod in pods.items() if role != "worker:gpu")
    submitter = pods["submitter"]
    assert submitter["metadata"]["annotations"]["sidecar.istio.io/inject"] == "false"
    assert "nvidia.com/gpu" not in yaml.safe_dump(submitter)
    for pod in pods.values():  # from the named cluster template ray-cluster
        assert pod["spec"]["serviceAccountName"] == "ray-jobs"


BAD_GROUPS = {
    "duplicate names": ('[WorkerGroup(name="cpu"), WorkerGroup(name="cpu")]',
                        "two worker groups are named 'cpu'"),
    "min above max": ('[WorkerGroup(name="cpu", min_replicas=3, max_replicas=2)]',
                      "min_replicas 3 is greater than max_replicas 2"),
    "replicas above max": ('[WorkerGroup(name="cpu", replicas=5, max_replicas=4)]',
                           "replicas 5 is outside"),
    "replicas below min": ('[WorkerGroup(name="cpu", replicas=1, min_replicas=2, '
                           'max_replicas=4)]', "replicas 1 is outside"),
    "not a name": ('[WorkerGroup(name="gpu a100")]', "worker group name 'gpu a100' is not valid"),
}


@pytest.mark.parametrize("case", sorted(BAD_GROUPS))
def test_bad_worker_groups_exit_2_and_write_nothing(tmp_path: Path, case: str) -> None:
    groups, message = BAD_GROUPS[case]
    module = tmp_path / f"ray_bad_{uuid.uuid4().hex}.py"
    module.write_text(textwrap.dedent(f"""
        from podtemplate import task
        from podtemplate_ray import Ray, WorkerGroup

        @task(image="rayproject/ray:2.41.0", task_config=Ray(worker_groups={groups}))
        def train() -> None: ...
    """))
    out = tmp_path / "out"
    result = render_cli(str(module), "--output", str(out))
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert message in lines[0] and "fix:" in lines[0]
    assert "Traceback" not in result.output
    assert not out.exists() or not any(out.iterdir())
    assert result.stdout == ""

"""`podtemplate render` of PyTorch tasks: the examples, and bad input (exit 2, nothing
written)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml
from podtemplate.testing import render_cli, rendered_documents

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def test_examples_render_one_valid_job_per_task(check_job) -> None:  # type: ignore[no-untyped-def]
    result = render_cli(str(EXAMPLES / "pytorch_tasks.py"), "--platform",
                        str(EXAMPLES / "platform.yaml"))
    assert result.exit_code == 0, result.output
    jobs = rendered_documents(result.stdout)
    assert [(j["kind"], j["metadata"]["name"]) for j in jobs] == [
        ("PyTorchJob", "train-resnet"), ("PyTorchJob", "train-vit"),
        ("PyTorchJob", "finetune-elastic")]
    for job in jobs:
        check_job(job)
        assert job["metadata"]["namespace"] == "ml-team"
    train = jobs[0]["spec"]["pytorchReplicaSpecs"]
    worker, master = train["Worker"]["template"]["spec"], train["Master"]["template"]["spec"]
    # The workers' named GPU template is theirs alone.
    assert worker["nodeSelector"] == {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"}
    assert worker["priorityClassName"] == "gpu-high"
    assert "nodeSelector" not in master and master["priorityClassName"] == "batch-default"
    assert "nvidia.com/gpu" in worker["containers"][0]["resources"]["limits"]
    assert "nvidia.com/gpu" not in master["containers"][0]["resources"].get("limits", {})
    assert [c["name"] for c in worker["containers"]] == ["pytorch", "uploader"]


def test_one_example_renders_both_ways(check_job) -> None:  # type: ignore[no-untyped-def]
    """train_vit: a PyTorchJob by default, a TrainingRuntime + TrainJob on a platform with
    taskTypes.pytorch.operator: trainer; the same pod either way."""
    from podtemplate.testing import assert_valid_custom_resource, assert_valid_pod_template
    from podtemplate_pytorch.plugin import TASK_TYPE

    target = f"{EXAMPLES / 'pytorch_tasks.py'}:train_vit"
    default = render_cli(target, "--platform", str(EXAMPLES / "platform.yaml"))
    trainer = render_cli(target, "--platform", str(EXAMPLES / "platform-trainer.yaml"))
    assert default.exit_code == 0 and trainer.exit_code == 0, trainer.output
    (job,) = rendered_documents(default.stdout)
    check_job(job)
    runtime, train_job = rendered_documents(trainer.stdout)
    assert_valid_custom_resource(runtime, TASK_TYPE)
    assert_valid_custom_resource(train_job, TASK_TYPE)
    assert train_job["spec"]["runtimeRef"]["name"] == runtime["metadata"]["name"]
    node = runtime["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"][
        "template"]
    assert_valid_pod_template(node)
    worker = job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]
    assert runtime["spec"]["mlPolicy"]["numNodes"] == 1 + job["spec"]["pytorchReplicaSpecs"][
        "Worker"]["replicas"]
    # Everything but the operator-owned entrypoint, names and ports is the same pod.
    for key in ("nodeSelector", "tolerations", "priorityClassName", "serviceAccountName",
                "volumes"):
        assert node["spec"][key] == worker["spec"][key], key
    assert [c["name"] for c in node["spec"]["containers"]] == ["node", "uploader"]
    ours, theirs = node["spec"]["containers"][0], worker["spec"]["containers"][0]
    for key in ("image", "env", "resources", "volumeMounts", "securityContext"):
        assert ours[key] == theirs[key], key


def write_module(folder: Path, body: str) -> Path:
    path = folder / f"jobs_{folder.name.replace('-', '_')}.py"
    header = "from podtemplate import PodTemplate, Role, task\n" \
             "from podtemplate_pytorch import Elastic, PyTorch\n"
    path.write_text(header + textwrap.dedent(body))
    return path


@pytest.mark.parametrize(("body", "words"), [
    ("""
     @task(image="t:1", task_config=PyTorch(master=Role(),
           elastic=Elastic(min_replicas=1, max_replicas=2)))
     def train() -> None: ...
     """, "task_config.master: an elastic job has no master role"),
    ("""
     @task(image="t:1", task_config=PyTorch(elastic=Elastic(min_replicas=3, max_replicas=2)))
     def train() -> None: ...
     """, "min_replicas (3) is greater than max_replicas (2)"),
    ("""
     @task(image="t:1", task_config=PyTorch(worker=Role(replicas=0)))
     def train() -> None: ...
     """, "replicas must be at least 1, got 0"),
    ("""
     @task(image="t:1", task_config=PyTorch(worker=Role(pod_template=PodTemplate(
           {"containers": [{"name": "main"}, {"name": "pytorch"}]},
           primary_container_name="main"))))
     def train() -> None: ...
     """, "would both become the operator's 'pytorch' container"),
    ("""
     @task(name="2nd-try", image="t:1", task_config=PyTorch())
     def train() -> None: ...
     """, "task '2nd-try', name: PyTorch task name '2nd-try' is not a DNS-1035 label"),
])
def test_bad_input_exits_2_and_writes_nothing(tmp_path: Path, body: str, words: str) -> None:
    module = write_module(tmp_path, body)
    output = tmp_path / "out"
    result = render_cli(str(module), "--output", str(output))
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], lines
    assert "fix:" in lines[0] and "Traceback" not in result.output
    assert not output.exists() or not any(output.iterdir())


def test_renamed_primary_warns_on_stderr(tmp_path: Path) -> None:
    module = write_module(tmp_path, """
        @task(image="t:1", pod_template=PodTemplate({"containers": [{"name": "main"}]},
              primary_container_name="main"), task_config=PyTorch())
        def train() -> None: ...
        """)
    result = render_cli(str(module))
    assert result.exit_code == 0, result.stderr
    assert "primary container 'main' is renamed to 'pytorch'" in result.stderr
    job = yaml.safe_load(result.stdout)
    assert job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0][
        "name"] == "pytorch"

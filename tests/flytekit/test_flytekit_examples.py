"""Issue 21: the flytesnacks-style examples (examples/flytekit_style) render with the
platform file, and their rendered manifests show each point of Flyte parity. Every
manifest is validated (pods with the client models, custom resources with the CRDs the
task types ship)."""

from __future__ import annotations

import functools
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import podtemplate
import pytest
from podtemplate.cli.targets import collect_tasks
from podtemplate.testing import rendered_documents
from podtemplate.testing.policy_kit import assert_valid_manifest

REPO = Path(__file__).resolve().parents[2]
FOLDER = REPO / "examples" / "flytekit_style"
PLATFORM = REPO / "examples" / "platform.yaml"
RENDER = "from podtemplate.cli import main; main(prog_name='podtemplate')"
# Every required input of the folder's tasks (a missing one is refused at render).
INPUTS = ("--input", "a=3", "--input", "b=0.5", "--input", "x=[1,2,2]", "--input", "n=4",
          "--input", "radius=2.0")


@functools.cache
def _rendered() -> tuple[dict[str, dict[str, Any]], str]:
    """Every manifest of the folder by (kind, name), and stderr; in a child process, so
    the one-time warnings are seen as a user sees them."""
    result = subprocess.run(
        [sys.executable, "-W", "default", "-c", RENDER, "render", str(FOLDER),
         "--platform", str(PLATFORM), *INPUTS],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    manager = podtemplate.build_plugin_manager()
    out: dict[str, dict[str, Any]] = {}
    for manifest in rendered_documents(result.stdout):
        assert_valid_manifest(manifest, manager)
        key = f"{manifest['kind']}/{manifest['metadata']['name']}"
        assert key not in out, key
        out[key] = manifest
    return out, result.stderr


def manifest(key: str) -> dict[str, Any]:
    return _rendered()[0][key]


def primary(key: str) -> dict[str, Any]:
    found: dict[str, Any] = manifest(key)["spec"]["containers"][0]
    return found


def test_flytekit_names_render_with_derived_object_names_and_keep_the_name() -> None:
    for key, written in (("Pod/task-1", "task_1"), ("Pod/calc-area", "Calc.Area"),
                         ("Pod/ellipse-area-metadata-shell", None),
                         ("Pod/count-unique-numbers", "count_unique_numbers")):
        annotations = manifest(key)["metadata"].get("annotations", {})
        assert annotations.get("podtemplate.io/task-name") == written, key
    assert manifest("ConfigMap/task-1-script")["data"]["script.sh"]


def test_two_modules_defining_t1_keep_apart_by_an_explicit_name() -> None:
    # chain_steps.t1 keeps its own name; other_steps.t1 says name= (a collision is an
    # error, never a rename).
    for key, written, module_tail in (("Pod/t1", None, "chain_steps"),
                                      ("Pod/other-steps-t1", "other_steps.t1", "other_steps")):
        pod = manifest(key)
        assert pod["metadata"]["annotations"].get("podtemplate.io/task-name") == written
        assert pod["metadata"]["labels"]["podtemplate.io/task"] == key.removeprefix("Pod/")
        assert pod["spec"]["containers"][0]["args"][1].endswith(module_tail)


def test_a_module_level_override_is_a_task_of_its_own() -> None:
    assert primary("Pod/square")["resources"]["requests"] == {
        "cpu": "1", "memory": "1Gi", "ephemeral-storage": "5Gi"}
    # with_overrides(requests=...) replaces the task's requests, as on Flyte.
    assert primary("Pod/square-big")["resources"]["requests"] == {"cpu": "4", "memory": "8Gi"}


def test_flytekit_resource_spellings_become_kubernetes_resources() -> None:
    assert primary("Pod/count-unique-numbers")["resources"] == {
        "requests": {"cpu": "1", "memory": "100Mi"}, "limits": {"cpu": "2", "memory": "150Mi"}}
    assert {"name": "OMP_NUM_THREADS", "value": "1"} in primary("Pod/square")["env"]


def test_a_template_limit_below_the_request_is_raised_with_a_warning() -> None:
    resources = primary("Pod/multiple-containers-pod-task")["resources"]
    assert resources == {"requests": {"cpu": "2", "memory": "200Mi"},
                         "limits": {"cpu": "2", "memory": "200Mi"}}
    stderr = _rendered()[1]
    assert ("the memory limit 100Mi of task template is raised to the request 200Mi of "
            "task settings") in stderr


def test_accelerator_and_gpu_get_the_node_label_and_the_resource_toleration() -> None:
    pod = manifest("Pod/gpu-available")
    assert pod["spec"]["nodeSelector"]["k8s.amazonaws.com/accelerator"] == "nvidia-tesla-a100"
    assert {"key": "nvidia.com/gpu", "operator": "Exists",
            "effect": "NoSchedule"} in pod["spec"]["tolerations"]
    # Flyte's ApplyGPUNodeSelectors: the device's toleration and required node affinity
    label = "k8s.amazonaws.com/accelerator"
    assert {"key": label, "operator": "Equal", "value": "nvidia-tesla-a100",
            "effect": "NoSchedule"} in pod["spec"]["tolerations"]
    terms = pod["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms == [{"matchExpressions": [{"key": label, "operator": "In",
                                            "values": ["nvidia-tesla-a100"]}]}]
    assert all(t["key"] != "nvidia.com/gpu"  # no GPU, no GPU toleration
               for t in manifest("Pod/square")["spec"].get("tolerations", []))


@pytest.mark.parametrize(("key", "size"), [("Pod/gpu-available", "4Gi"),
                                           ("Pod/calc-area", None)])
def test_shared_memory_is_a_memory_backed_dev_shm(key: str, size: str | None) -> None:
    pod = manifest(key)
    (volume,) = [v for v in pod["spec"]["volumes"] if v["name"] == "dshm"]
    assert volume["emptyDir"].get("medium") == "Memory"
    assert volume["emptyDir"].get("sizeLimit") == size
    assert {"name": "dshm", "mountPath": "/dev/shm"} in primary(key)["volumeMounts"]


def test_container_inputs_are_filled_into_the_command_line() -> None:
    # --input a=3 is the float 3.0, which Flyte writes as 3 (Go's %v)
    assert primary("Pod/ellipse-area-metadata-shell")["command"] == [
        "./calculate-ellipse-area.sh", "/var/outputs", "3", "0.5"]
    assert primary("Pod/calculate-ellipse-area-python")["args"] == [
        "/var/outputs", "3", "0.5"]


def _spot(template: dict[str, Any]) -> bool:
    """Whether a pod template got the example platform's interruptible fragment."""
    spec = template["spec"]
    return spec.get("nodeSelector", {}).get("node-pool") == "spot" and any(
        t.get("key") == "spot" for t in spec.get("tolerations", []))


def test_dask_interruptible_reaches_the_workers_only() -> None:
    job = manifest("DaskJob/hello-dask")["spec"]
    assert _spot(job["cluster"]["spec"]["worker"])
    assert not _spot(job["cluster"]["spec"]["scheduler"])
    assert not _spot(job["job"])
    assert job["cluster"]["spec"]["worker"]["replicas"] == 10  # number_of_workers


def test_spark_interruptible_reaches_the_executors_only() -> None:
    app = manifest("SparkApplication/hello-spark")["spec"]
    assert _spot(app["executor"]["template"]) and not _spot(app["driver"]["template"])
    # executor_pod= became the executor's template
    assert app["executor"]["template"]["spec"]["nodeSelector"]["disk"] == "nvme"
    assert "disk" not in app["driver"]["template"]["spec"].get("nodeSelector", {})


@pytest.mark.parametrize("key", ["PyTorchJob/mnist-pytorch-job", "PyTorchJob/train-elastic"])
def test_pytorch_replicas_get_a_memory_backed_dev_shm(key: str) -> None:
    for replica in manifest(key)["spec"]["pytorchReplicaSpecs"].values():
        spec = replica["template"]["spec"]
        assert {"name": "dshm", "emptyDir": {"medium": "Memory"}} in spec["volumes"]
        assert {"name": "dshm", "mountPath": "/dev/shm"} in spec["containers"][0][
            "volumeMounts"]


def test_gpu_training_gets_the_accelerator_label_and_toleration() -> None:
    worker = manifest("PyTorchJob/mnist-pytorch-job")["spec"]["pytorchReplicaSpecs"]["Worker"]
    spec = worker["template"]["spec"]
    assert spec["nodeSelector"]["k8s.amazonaws.com/accelerator"] == "nvidia-tesla-t4"
    assert any(t["key"] == "nvidia.com/gpu" for t in spec["tolerations"])
    assert worker["replicas"] == 2


def test_elastic_nnodes_is_the_worker_range() -> None:
    spec = manifest("PyTorchJob/train-elastic")["spec"]
    assert spec["elasticPolicy"]["minReplicas"] == spec["elasticPolicy"]["maxReplicas"] == 2
    assert spec["nprocPerNode"] == "2"
    assert set(spec["pytorchReplicaSpecs"]) == {"Worker"}


def test_ray_job_config_renders_groups_autoscaler_and_runtime_env() -> None:
    spec = manifest("RayJob/ray-task")["spec"]
    cluster = spec["rayClusterSpec"]
    (group,) = cluster["workerGroupSpecs"]
    assert (group["groupName"], group["minReplicas"], group["maxReplicas"]) == (
        "test-group", 0, 4)
    assert cluster["enableInTreeAutoscaling"] is True
    assert cluster["autoscalerOptions"] == {"upscalingMode": "Conservative",
                                            "idleTimeoutSeconds": 60}
    assert cluster["headGroupSpec"]["rayStartParams"]["log-color"] == "True"
    assert "numpy" in spec["runtimeEnvYAML"]
    assert spec["ttlSecondsAfterFinished"] == 3600
    assert group["template"]["metadata"]["labels"]["podtemplate.io/role"] == "worker-test-group"


@pytest.mark.parametrize("spelling", [
    "@task(container_image=...)", "@task(environment=...)", "ContainerTask(arguments=...)",
    "Scheduler(...)", "WorkerGroup(number_of_workers=...)", "Spark(executor_pod=...)",
    "Elastic(nnodes=...)", "task_config=Elastic(...)", "RayJobConfig(...)",
    "HeadNodeConfig(...)", "WorkerNodeConfig(group_name=...)"])
def test_each_flytekit_spelling_warns_once_naming_ours(spelling: str) -> None:
    stderr = _rendered()[1]
    assert stderr.count(f"MigrationWarning: {spelling} is flytekit's spelling") == 1, stderr


def _labelled(node: Any) -> Iterator[dict[str, str]]:
    """Every labels map of podtemplate's objects and pods inside a manifest."""
    if isinstance(node, dict):
        labels = node.get("labels")
        if isinstance(labels, dict) and "podtemplate.io/task" in labels:
            yield labels
        for value in node.values():
            yield from _labelled(value)
    elif isinstance(node, list):
        for item in node:
            yield from _labelled(item)


@pytest.mark.filterwarnings("ignore::podtemplate.migration.MigrationWarning")
def test_a_run_id_suffixes_every_object_and_labels_every_object_and_pod() -> None:
    tasks = collect_tasks([str(FOLDER)])
    manager = podtemplate.build_plugin_manager()
    inputs = dict(pair.split("=", 1) for pair in INPUTS[1::2])
    manifests = podtemplate.render(tasks, platform=PLATFORM, inputs=inputs,
                                   run_id="r7", plugin_manager=manager)
    plain = set(_rendered()[0])
    assert {f"{m['kind']}/{m['metadata']['name'].removesuffix('-r7')}"
            for m in manifests} == plain
    for rendered in manifests:
        assert_valid_manifest(rendered, manager)
        assert rendered["metadata"]["name"].endswith("-r7")
        labelled = list(_labelled(rendered))
        assert labelled and all(labels["podtemplate.io/run"] == "r7" for labels in labelled)
    service = next(m for m in manifests if m["kind"] == "DaskJob")
    assert service["spec"]["cluster"]["spec"]["scheduler"]["service"]["selector"][
        "dask.org/cluster-name"] == "hello-dask-r7"


@pytest.mark.parametrize(("make", "field"), [
    (lambda: podtemplate.task(image="a:1", container_image="b:1")(lambda: None), "image"),
    (lambda: podtemplate.task(env={"A": "1"}, environment={"A": "2"})(lambda: None), "env"),
])
def test_a_flytekit_spelling_beside_ours_is_refused(make: Any, field: str) -> None:
    with pytest.raises(podtemplate.DefinitionError) as caught:
        make()
    assert caught.value.field == field
    assert "both given" in str(caught.value) and "give it once" in str(caught.value)


def test_an_engine_setting_on_a_named_task_names_the_task() -> None:
    with pytest.raises(podtemplate.DefinitionError) as caught:
        podtemplate.task(name="train", retries=3)
    assert caught.value.task == "train" and caught.value.field == "retries"
    assert "drop retries=" in str(caught.value)

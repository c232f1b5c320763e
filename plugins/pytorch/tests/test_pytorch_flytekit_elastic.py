"""flytekit's ``task_config=Elastic(...)`` run as Flyte runs it (issue 30): ``nnodes=1`` is
one pod whose torchrun starts the processes with a local rendezvous (flytekitplugins-
kfpytorch's ``python-task``, its ``LaunchConfig``), a larger ``nnodes`` a PyTorchJob whose
workers start at the range's maximum (flytekit's ``replicas=self.max_nodes``), and
flytekit's default rendezvous settings reach torchrun."""

from __future__ import annotations

import pytest
from podtemplate import DefinitionError, Platform, Role, render, task
from podtemplate.testing import assert_valid_pod
from podtemplate_pytorch import Elastic, PyTorch

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")
PLATFORM = Platform(defaultImage="python:3.11")


def test_nnodes_one_is_a_single_pod_under_torchrun_standalone() -> None:
    @task(image="train:1", task_config=Elastic(nnodes=1, nproc_per_node=4))
    def single() -> None: ...

    (pod,) = render(single, platform=PLATFORM)
    assert_valid_pod(pod)
    assert pod["kind"] == "Pod" and pod["spec"]["restartPolicy"] == "Never"
    (main,) = pod["spec"]["containers"]
    assert main["command"] == ["torchrun"]
    assert main["args"] == [
        "--nnodes=1", "--nproc_per_node=4", "--rdzv_backend=c10d",
        "--rdzv_endpoint=localhost:0", "--max_restarts=0",
        "--rdzv_conf=timeout=900,join_timeout=900",
        "-m", "podtemplate.executor", "--module", __name__, "--task", "single"]
    # flytekit's default increase_shared_mem: a memory-backed /dev/shm
    assert {"name": "dshm", "mountPath": "/dev/shm"} in main["volumeMounts"]


def test_nnodes_one_with_a_worker_role_is_refused() -> None:
    with pytest.raises(DefinitionError, match="standalone elastic job is one pod"):
        PyTorch(worker=Role(replicas=1), elastic=Elastic(nnodes=1))


def test_a_standalone_range_above_one_is_refused() -> None:
    with pytest.raises(DefinitionError, match=r"runs one pod, but its range is 1\.\.2"):
        Elastic(min_replicas=1, max_replicas=2, standalone=True)


def test_a_range_starts_the_most_workers_and_passes_flytekits_rendezvous() -> None:
    @task(image="train:1", task_config=Elastic(nnodes="2:4", max_restarts=2))
    def ranged() -> None: ...

    (job,) = render(ranged, platform=PLATFORM)
    assert job["kind"] == "PyTorchJob"
    assert job["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] == 4
    assert job["spec"]["elasticPolicy"] == {
        "minReplicas": 2, "maxReplicas": 4, "rdzvBackend": "c10d", "maxRestarts": 2,
        "rdzvConf": [{"key": "timeout", "value": "900"},
                     {"key": "join_timeout", "value": "900"}]}


def test_our_own_spelling_keeps_the_minimum_and_no_rendezvous_settings() -> None:
    @task(image="train:1", task_config=PyTorch(elastic=Elastic(min_replicas=1, max_replicas=1)))
    def ours() -> None: ...

    (job,) = render(ours, platform=PLATFORM)
    assert job["kind"] == "PyTorchJob"
    assert job["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] == 1
    assert "rdzvConf" not in job["spec"]["elasticPolicy"]

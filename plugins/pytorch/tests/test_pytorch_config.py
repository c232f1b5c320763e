"""PyTorch, RunPolicy and Elastic: bad input fails when the task is defined."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from podtemplate import DefinitionError, PodTemplate, Role, task
from podtemplate_pytorch import Elastic, PyTorch, RunPolicy


@pytest.mark.parametrize(("make", "field", "words"), [
    (lambda: Role(replicas=0), "replicas", "at least 1"),
    (lambda: Role(replicas=-3), "replicas", "at least 1"),
    (lambda: PyTorch(worker={"replicas": 0}), "replicas", "at least 1"),
    (lambda: PyTorch(master=Role(replicas=2)), "task_config.master.replicas", "must be 1"),
    (lambda: Elastic(min_replicas=4, max_replicas=2), "task_config.elastic.min_replicas",
     "greater than max_replicas"),
    (lambda: Elastic(min_replicas=0, max_replicas=2), "min_replicas", "greater than or equal"),
    (lambda: PyTorch(master=Role(), elastic=Elastic(min_replicas=1, max_replicas=2)),
     "task_config.master", "elastic job has no master"),
    (lambda: PyTorch(worker=Role(replicas=9), elastic=Elastic(min_replicas=1, max_replicas=4)),
     "task_config.worker.replicas", "outside the elastic range 1..4"),
    (lambda: PyTorch(workers=4), "task_config.workers", "no argument 'workers'"),
    (lambda: PyTorch(shm_size="0"), "task_config.shm_size", "must be positive"),
    (lambda: PyTorch(shm_size="lots"), "task_config.shm_size", "not a Kubernetes quantity"),
    (lambda: PyTorch(master=Role(), typo=1), "typo", "unknown argument"),
    (lambda: RunPolicy(clean_pod_policy="none"), "clean_pod_policy", "'None', 'Running'"),
    (lambda: RunPolicy(backoff_limit=-1), "backoff_limit", "greater than or equal to 0"),
    (lambda: RunPolicy(active_deadline_seconds=0), "active_deadline_seconds",
     "greater than or equal to 1"),
    (lambda: RunPolicy(backoff_limit="3"), "backoff_limit", "valid integer"),
    (lambda: Elastic(min_replicas=1, max_replicas=2, rdzv_backend="zk"), "rdzv_backend",
     "'c10d'"),
    (lambda: Elastic(min_replicas=1, max_replicas=2, nproc_per_node="tpu"), "nproc_per_node",
     "auto"),
    (lambda: Role(pod_template_name=""), "pod_template_name", "must not be empty"),
])
def test_bad_config_fails_at_definition(make: Callable[[], Any], field: str,
                                        words: str) -> None:
    with pytest.raises(DefinitionError) as error:
        make()
    assert error.value.field is not None and field in error.value.field, error.value
    assert words in str(error.value)
    assert "fix:" in str(error.value)


def test_primary_name_conflicting_with_the_operators_is_rejected() -> None:
    template = PodTemplate({"containers": [{"name": "trainer", "image": "a:1"},
                                           {"name": "pytorch", "image": "b:1"}]},
                           primary_container_name="trainer")
    with pytest.raises(DefinitionError) as error:
        PyTorch(worker=Role(pod_template=template))
    assert error.value.field == "task_config.worker.pod_template.containers[pytorch]"
    assert "'trainer'" in str(error.value) and "primary_container_name='pytorch'" in str(
        error.value)


def test_primary_named_after_the_operator_is_fine() -> None:
    template = PodTemplate({"containers": [{"name": "pytorch", "image": "b:1"},
                                           {"name": "sidecar", "image": "s:1"}]},
                           primary_container_name="pytorch")
    assert PyTorch(master=Role(pod_template=template)).master is not None


def test_defaults_and_counts() -> None:
    assert PyTorch().worker_replicas() == 1
    assert PyTorch(worker=Role(replicas=6)).worker_replicas() == 6
    elastic = PyTorch(elastic=Elastic(min_replicas=2, max_replicas=5))
    assert (elastic.worker_replicas(), elastic.max_workers()) == (2, 5)
    assert Elastic(min_replicas=1, max_replicas=1).rdzv_backend == "c10d"


def test_policies_render_only_what_is_set() -> None:
    assert RunPolicy().to_k8s() == {}
    assert RunPolicy(clean_pod_policy="All", backoff_limit=0, active_deadline_seconds=60,
                     ttl_seconds_after_finished=0).to_k8s() == {
        "cleanPodPolicy": "All", "backoffLimit": 0, "activeDeadlineSeconds": 60,
        "ttlSecondsAfterFinished": 0}
    assert Elastic(min_replicas=1, max_replicas=3, max_restarts=0).to_k8s() == {
        "minReplicas": 1, "maxReplicas": 3, "rdzvBackend": "c10d", "maxRestarts": 0}


def test_config_selects_the_task_type_and_is_frozen() -> None:
    config = PyTorch(worker=Role(replicas=2))

    @task(image="train:1", task_config=config)
    def train() -> None: ...

    assert train.task_type == "pytorch"
    with pytest.raises(Exception, match="frozen"):
        config.shm_size = "1Gi"  # type: ignore[misc]


def test_flytekits_rdzv_configs_are_the_jobs_rdzv_conf() -> None:
    # flytekitplugins-kfpytorch Elastic(rdzv_configs={"timeout": 900, "join_timeout": 900})
    # (its default) reaches torch's rendezvous; the Training Operator v1 hands
    # elasticPolicy.rdzvConf to torchrun as PET_RDZV_CONF (key=value,...).
    elastic = Elastic(min_replicas=2, max_replicas=2,
                      rdzv_configs={"timeout": 900, "join_timeout": 900, "note": "x"})
    assert elastic.to_k8s()["rdzvConf"] == [
        {"key": "timeout", "value": "900"}, {"key": "join_timeout", "value": "900"},
        {"key": "note", "value": "x"}]
    assert "rdzvConf" not in Elastic(min_replicas=1, max_replicas=2).to_k8s()


@pytest.mark.parametrize("configs", [{"timeout": [1]}, {"a=b": 1}, {"t": "1,2"},
                                     {"t": True}, ["timeout"]])
def test_rdzv_configs_torchrun_cannot_read_are_refused(configs: object) -> None:
    with pytest.raises(DefinitionError, match=r"rdzv_configs"):
        Elastic(min_replicas=1, max_replicas=1, rdzv_configs=configs)

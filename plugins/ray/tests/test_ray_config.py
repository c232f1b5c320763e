"""Ray(...) and WorkerGroup(...): defaults and bad input, rejected at definition time."""

from __future__ import annotations

from typing import Any

import pytest
from podtemplate import DefinitionError, Role
from podtemplate_ray import Head, Ray, WorkerGroup


def test_ray_selects_the_ray_task_type() -> None:
    assert Ray.task_type == "ray"
    config = Ray()
    assert config.groups == ()
    assert config.shutdown_after_job_finishes is True
    assert config.enable_autoscaling is False


@pytest.mark.parametrize(("kwargs", "expected"), [
    ({}, (1, 1, 1)),
    ({"replicas": 3}, (3, 3, 3)),
    ({"replicas": 0}, (0, 0, 0)),
    ({"min_replicas": 2, "max_replicas": 5}, (2, 2, 5)),
    ({"replicas": 2, "max_replicas": 8}, (2, 2, 8)),
    ({"replicas": 1, "min_replicas": 0, "max_replicas": 4}, (1, 0, 4)),
])
def test_worker_group_replica_defaults(kwargs: dict[str, Any],
                                       expected: tuple[int, int, int]) -> None:
    group = WorkerGroup(name="cpu", **kwargs)
    assert (group.effective_replicas, group.effective_min, group.effective_max) == expected


def test_worker_group_is_a_role() -> None:
    group = WorkerGroup(name="gpu", image="ray:gpu", env={"A": 1})
    assert isinstance(group, Role)
    assert group.image == "ray:gpu"


def test_duplicate_group_names_are_rejected() -> None:
    with pytest.raises(DefinitionError, match="two worker groups are named 'cpu'") as info:
        Ray(worker_groups=[WorkerGroup(name="cpu"), WorkerGroup(name="cpu", replicas=2)])
    assert info.value.field == "task_config.worker_groups[cpu].name"
    assert info.value.fix


def test_min_greater_than_max_is_rejected() -> None:
    with pytest.raises(DefinitionError, match="min_replicas 4 is greater than max_replicas 2"
                       ) as info:
        WorkerGroup(name="cpu", min_replicas=4, max_replicas=2, replicas=3)
    assert info.value.field == "task_config.worker_groups[cpu].min_replicas"


@pytest.mark.parametrize("kwargs", [
    {"replicas": 5, "min_replicas": 1, "max_replicas": 4},
    {"replicas": 0, "min_replicas": 1, "max_replicas": 4},
    {"replicas": 3, "max_replicas": 2},
    {"replicas": 1, "min_replicas": 2},
])
def test_replicas_outside_the_range_are_rejected(kwargs: dict[str, Any]) -> None:
    with pytest.raises(DefinitionError, match="is outside") as info:
        WorkerGroup(name="cpu", **kwargs)
    assert info.value.field == "task_config.worker_groups[cpu].replicas"


@pytest.mark.parametrize("label", ["replicas", "min_replicas", "max_replicas"])
def test_negative_counts_are_rejected(label: str) -> None:
    with pytest.raises(DefinitionError, match=f"{label} must not be negative"):
        WorkerGroup(name="cpu", **{label: -1})


@pytest.mark.parametrize("name", ["-gpu", "", "gpu a100", "gpu/a100", "__"])
def test_group_name_must_be_a_name(name: str) -> None:
    with pytest.raises(DefinitionError, match=r"worker group name .* is not valid"):
        WorkerGroup(name=name)


@pytest.mark.parametrize(("name", "group_name"), [
    ("GPU", "gpu"), ("test_group", "test-group"), ("gpu.a100", "gpu-a100"), ("cpu", "cpu")])
def test_a_python_name_becomes_the_group_name_kuberay_gets(name: str, group_name: str) -> None:
    # flytekit's WorkerNodeConfig(group_name="test_group"): KubeRay puts the group name
    # into pod names, so it is derived by the object-name rule.
    assert WorkerGroup(name=name).group_name == group_name


def test_a_long_group_name_keeps_its_role_label_valid() -> None:
    group_name = WorkerGroup(name="g" * 64).group_name
    assert len("worker-" + group_name) <= 63 and group_name.startswith("g" * 40)


def test_two_group_names_deriving_to_one_are_refused() -> None:
    with pytest.raises(DefinitionError, match="two worker groups are named 'test-group'"):
        Ray(worker_groups=[WorkerGroup(name="test_group"), WorkerGroup(name="test-group")])


def test_head_and_submitter_take_no_replicas() -> None:
    with pytest.raises(DefinitionError, match="the head is one pod") as info:
        Ray(head=Head(replicas=2))
    assert info.value.field == "task_config.head.replicas"
    with pytest.raises(DefinitionError, match="the submitter is one pod"):
        Ray(submitter=Role(replicas=1))


@pytest.mark.parametrize(("params", "message"), [
    ({"--num-cpus": "1"}, "is not valid"),
    ({"num cpus": "1"}, "is not valid"),
    ({"num-cpus": None}, "must be a string, number or boolean"),
    ({"resources": {"a": 1}}, "must be a string, number or boolean"),
])
def test_bad_ray_start_params_are_rejected(params: dict[str, Any], message: str) -> None:
    with pytest.raises(DefinitionError, match=message):
        Ray(ray_start_params=params)
    with pytest.raises(DefinitionError, match=message):
        WorkerGroup(name="cpu", ray_start_params=params)
    with pytest.raises(DefinitionError, match=message):
        Head(ray_start_params=params)


def test_runtime_env_must_be_plain_data() -> None:
    with pytest.raises(DefinitionError, match="runtime_env is not plain data") as info:
        Ray(runtime_env={"env_vars": {"A": object()}})
    assert info.value.field == "task_config.runtime_env"


def test_ttl_needs_shutdown() -> None:
    with pytest.raises(DefinitionError, match="needs shutdown_after_job_finishes=True"):
        Ray(shutdown_after_job_finishes=False, ttl_seconds_after_finished=60)
    with pytest.raises(DefinitionError, match="must not be negative"):
        Ray(ttl_seconds_after_finished=-1)
    assert Ray(shutdown_after_job_finishes=False).ttl_seconds_after_finished is None


def test_unknown_arguments_are_rejected() -> None:
    with pytest.raises(DefinitionError, match="unknown argument 'workers'"):
        Ray(workers=2)
    with pytest.raises(DefinitionError, match="unknown argument 'group_name'"):
        WorkerGroup(name="cpu", group_name="x")


def test_config_is_frozen() -> None:
    config = Ray()
    with pytest.raises(Exception, match="frozen"):
        config.enable_autoscaling = True  # type: ignore[misc]

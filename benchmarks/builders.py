"""One workload builder per task type: the same seeded settings, shaped by each type's
public API. A builder imports its plugin lazily, so an uninstalled type costs nothing."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from podtemplate import PodTemplate, Resources, Role, Task

from .workload import TaskSettings

__all__ = ["BUILDERS", "BuildInput", "Builder"]


@dataclass(frozen=True)
class BuildInput:
    """What a builder gets for one task."""

    rng: random.Random
    settings: TaskSettings
    module: str  # the module the task is defined in (its executor entrypoint)
    attribute: str  # the task's attribute name in that module
    role_templates: dict[str, PodTemplate]  # shared role templates, by role name


Builder = Callable[[BuildInput], Task]


def _noop() -> None:
    """The function of every generated Python task."""


def build_python(given: BuildInput) -> Task:
    return Task(name=given.settings.name, task_type="python", fn=_noop, module=given.module,
                attribute=given.attribute, **given.settings.task_kwargs())


def build_container(given: BuildInput) -> Task:
    from podtemplate_container import ContainerTask

    settings = given.settings
    return ContainerTask(name=settings.name, command=["python", "-m", "app.main"],
                         args=["--date", "2026-01-01", "--shard", str(given.rng.randint(0, 63))],
                         **settings.task_kwargs())


def build_shell(given: BuildInput) -> Task:
    from podtemplate_shell import ShellTask

    settings = given.settings
    script = "set -eu\necho \"run $RUN_ID on $DAY\"\ntar czf /data/out-$DAY.tgz /etc/app\n"
    return ShellTask(name=settings.name, script=script, inputs={"DAY": "2026-01-01"},
                     **settings.task_kwargs())


def _function_task(given: BuildInput, config: Any) -> Task:
    """A function task of a distributed type, as ``@task(task_config=...)`` builds it."""
    return Task(name=given.settings.name, task_type=type(config).task_type, fn=_noop,
                module=given.module, attribute=given.attribute, task_config=config,
                **given.settings.task_kwargs())


R = TypeVar("R", bound=Role)


def _role(given: BuildInput, role_name: str, role_class: type[R], *,
          replicas: int | None = None, gpu: bool = False, **fields: Any) -> R:
    """A role with its own template (layer 5) and settings (layer 6)."""
    requests = Resources(cpu=given.rng.choice(("2", "4")), memory="8Gi",
                         gpu=1 if gpu else None)
    return role_class(pod_template=given.role_templates[role_name], requests=requests,
                      limits=Resources(memory="8Gi"), env={"ROLE_NAME": role_name},
                      replicas=replicas, **fields)


def build_pytorch(given: BuildInput) -> Task:
    from podtemplate_pytorch import PyTorch

    workers = given.rng.randint(2, 8)
    return _function_task(given, PyTorch(
        master=_role(given, "master", Role, gpu=True),
        worker=_role(given, "worker", Role, replicas=workers, gpu=True), shm_size="8Gi"))


def build_dask(given: BuildInput) -> Task:
    from podtemplate_dask import Dask

    workers = given.rng.randint(2, 16)
    return _function_task(given, Dask(scheduler=_role(given, "scheduler", Role),
                                      workers=_role(given, "worker", Role, replicas=workers)))


def build_spark(given: BuildInput) -> Task:
    from podtemplate_spark import Spark, SparkRole

    executors = given.rng.randint(2, 16)
    return _function_task(given, Spark(
        spark_conf={"spark.sql.shuffle.partitions": "64"},
        driver=_role(given, "driver", SparkRole),
        executor=_role(given, "executor", SparkRole, replicas=executors)))


def build_ray(given: BuildInput) -> Task:
    from podtemplate_ray import Head, Ray, WorkerGroup

    workers = given.rng.randint(1, 8)
    return _function_task(given, Ray(
        head=_role(given, "head", Head),
        worker_groups=[_role(given, "worker", WorkerGroup, name="gpu", replicas=workers,
                             gpu=True)],
        submitter=Role(pod_template=given.role_templates["submitter"])))


BUILDERS: dict[str, Builder] = {
    "python": build_python,
    "container": build_container,
    "shell": build_shell,
    "pytorch": build_pytorch,
    "dask": build_dask,
    "spark": build_spark,
    "ray": build_ray,
}

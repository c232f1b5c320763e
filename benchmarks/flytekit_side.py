"""The optional side by side with flytekit, measured only where flytekit is importable
(``scripts/bench-flytekit`` makes such a venv; nothing else depends on it).

The same generated tasks - image, ten env vars, requests/limits, the inline pod template
with its sidecar, the named template, interruptible, and for the distributed types their
roles (replicas, resources, and where flytekit's plugin takes one, the role's own pod
template: Spark's driver and executor, Ray's head and worker groups) - are declared with
flytekit (``@task``, ``ContainerTask``, the ``flytekitplugins`` task configs) and
serialized as ``pyflyte register`` does before it uploads them (``get_serializable``, then
the protobuf ``TaskSpec``), back to back with podtemplate's render of them to manifests in
memory. The two do not do the same work: flytekit leaves the cluster default template,
named templates, the merge of role templates and validation to the Flyte backend, which
applies them at run time; podtemplate folds and validates all of them here.

Each task type needs its flytekit plugin (``flytekitplugins-kfpytorch``, ``-dask``,
``-spark``, ``-ray``; ``scripts/bench-flytekit`` installs them): a type whose plugin is
missing is left out of both sides, with a note.
"""

from __future__ import annotations

import importlib
import types
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from podtemplate import Task

from .timing import Paired, cpu_seconds, paired, render_in_memory

__all__ = ["SideBySide", "side_by_side"]


@dataclass(frozen=True)
class SideBySide:
    """``timings``: (podtemplate's render, flytekit's serialization) of ``tasks`` tasks."""

    flytekit_version: str
    workload: str
    task_types: tuple[str, ...]
    tasks: int
    timings: Paired

    @property
    def ratio(self) -> float:
        """flytekit's time over podtemplate's, the median of the pairs."""
        return self.timings.ratio

    def as_json(self) -> dict[str, Any]:
        ours, theirs = self.timings.best
        return {"flytekit_version": self.flytekit_version, "workload": self.workload,
                "task_types": list(self.task_types), "tasks": self.tasks,
                "podtemplate_tasks_per_s": round(self.tasks / ours, 1),
                "flytekit_tasks_per_s": round(self.tasks / theirs, 1),
                "flytekit_over_podtemplate": round(self.ratio, 2)}


def side_by_side(tasks: Sequence[Task], platform: Path, repeat: int, *, workload: str,
                 clean: bool = True) -> tuple[SideBySide | None, list[str]]:
    """The side by side over ``tasks`` (those whose type flytekit can declare), and notes
    on what was left out or why nothing was measured. ``clean=False``: neither side
    collects garbage before its clock starts."""
    try:
        flytekit = importlib.import_module("flytekit")
    except ImportError:
        return None, ["flytekit is not installed: the side by side is skipped "
                      "(scripts/bench-flytekit runs the benchmarks in a venv with it)"]
    notes: list[str] = []
    missing = {name for name in {task.task_type for task in tasks}
               if name not in _DECLARE or not _plugin_present(name)}
    for name in sorted(missing):
        notes.append(f"flytekit side by side ({workload}): no flytekit plugin for task type "
                     f"{name!r}: left out of both sides")
    kept = [task for task in tasks if task.task_type not in missing]
    if not kept:
        return None, [*notes, f"no task flytekit can declare in the {workload} workload: "
                      "the side by side is skipped"]
    serialize = _flytekit_serializer([_DECLARE[task.task_type](task) for task in kept],
                                     clean=clean)
    serialize()  # warm up: flytekit's imports and caches of the process
    timings = paired(lambda: render_in_memory(kept, platform, clean=clean), serialize,
                     repeat)
    types = tuple(dict.fromkeys(task.task_type for task in kept))
    return SideBySide(str(flytekit.__version__), workload, types, len(kept), timings), notes


_PLUGINS = {"pytorch": "flytekitplugins.kfpytorch", "dask": "flytekitplugins.dask",
            "spark": "flytekitplugins.spark", "ray": "flytekitplugins.ray"}


def _plugin_present(task_type: str) -> bool:
    module = _PLUGINS.get(task_type)
    if module is None:
        return True
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def _generated() -> None:
    """The function of every generated task."""


def _function(task: Task) -> Any:
    """A module-level function for ``task``: flytekit names the task after its function
    and takes only module-level functions (it checks the code object), so one function
    per task, all with _generated's code."""
    name = task.attribute or task.name
    function = types.FunctionType(_generated.__code__, _generated.__globals__, name)
    function.__qualname__ = name
    function.__annotations__ = dict(_generated.__annotations__)
    return function


def _resources(resources: Any) -> Any:
    from flytekit import Resources as FlyteResources

    if resources is None:
        return None
    return FlyteResources(cpu=resources.cpu, mem=resources.memory, gpu=resources.gpu)


def _pod_template(template: Any, role: Any = None) -> Any:
    """``template`` as flytekit's; with ``role``, its requests/limits set on the primary
    container (flytekit's Ray plugin takes a role's template or its resources, not both)."""
    from flytekit import PodTemplate as FlytePodTemplate
    from kubernetes.client import V1PodSpec

    if template is None:
        return None
    spec = template.pod_spec
    if role is not None and (role.requests or role.limits):
        resources = {side: getattr(role, side).to_k8s() for side in ("requests", "limits")
                     if getattr(role, side) is not None}
        spec = {**spec, "containers": [
            {**container, "resources": resources}
            if container["name"] == template.primary_container_name else container
            for container in spec["containers"]]}
    return FlytePodTemplate(pod_spec=V1PodSpec.model_validate(spec),
                            primary_container_name=template.primary_container_name,
                            labels=template.labels or None,
                            annotations=template.annotations or None)


def _task_kwargs(task: Task) -> dict[str, Any]:
    """What every flytekit task takes: image, env, resources, templates, interruptible."""
    kwargs: dict[str, Any] = {"environment": dict(task.env),
                              "interruptible": task.interruptible}
    for side in ("requests", "limits"):
        value = getattr(task, side)
        if value is not None:
            kwargs[side] = _resources(value)
    if task.pod_template is not None:
        kwargs["pod_template"] = _pod_template(task.pod_template)
    if task.pod_template_name is not None:
        kwargs["pod_template_name"] = task.pod_template_name
    return kwargs


def _function_task(task: Task, config: Any = None) -> Any:
    """``task`` declared with flytekit's ``@task``, as a Flyte user writes it."""
    from flytekit import task as flyte_task

    kwargs = {"container_image": task.image, **_task_kwargs(task)}
    if config is not None:
        kwargs["task_config"] = config
    return flyte_task(**kwargs)(_function(task))


def _container_task(task: Task) -> Any:
    from flytekit import ContainerTask

    kwargs = _task_kwargs(task)
    interruptible = kwargs.pop("interruptible")
    from flytekit.core.base_task import TaskMetadata

    return ContainerTask(name=task.name, image=task.image, command=list(task.command or ()),
                         arguments=list(task.args or ()),
                         metadata=TaskMetadata(interruptible=interruptible), **kwargs)


def _pytorch_task(task: Task) -> Any:
    from flytekitplugins.kfpytorch import Master, PyTorch, Worker

    config = task.task_config
    master, worker = config.master, config.worker
    return _function_task(task, PyTorch(
        master=Master(requests=_resources(master.requests), limits=_resources(master.limits)),
        worker=Worker(replicas=worker.replicas, requests=_resources(worker.requests),
                      limits=_resources(worker.limits)),
        # flytekit adds no shared-memory volume to a template with a sidecar: it asks for
        # this, and for the volume in the template (podtemplate's shm_size adds it).
        increase_shared_mem=False))


def _dask_task(task: Task) -> Any:
    from flytekitplugins.dask import Dask, Scheduler, WorkerGroup

    config = task.task_config
    scheduler, workers = config.scheduler, config.workers
    return _function_task(task, Dask(
        scheduler=Scheduler(requests=_resources(scheduler.requests),
                            limits=_resources(scheduler.limits)),
        workers=WorkerGroup(number_of_workers=workers.replicas,
                            requests=_resources(workers.requests),
                            limits=_resources(workers.limits))))


def _spark_task(task: Task) -> Any:
    from flytekitplugins.spark import Spark

    config = task.task_config
    return _function_task(task, Spark(
        spark_conf=dict(config.spark_conf or {}),
        driver_pod=_pod_template(config.driver.pod_template),
        executor_pod=_pod_template(config.executor.pod_template)))


def _ray_task(task: Task) -> Any:
    from flytekitplugins.ray import HeadNodeConfig, RayJobConfig, WorkerNodeConfig

    config = task.task_config
    head = config.head
    return _function_task(task, RayJobConfig(
        head_node_config=HeadNodeConfig(pod_template=_pod_template(head.pod_template, head)),
        worker_node_config=[WorkerNodeConfig(
            group_name=group.name, replicas=group.replicas,
            pod_template=_pod_template(group.pod_template, group))
            for group in config.worker_groups or ()]))


_DECLARE: dict[str, Callable[[Task], Any]] = {
    "python": _function_task,
    "container": _container_task,
    "pytorch": _pytorch_task,
    "dask": _dask_task,
    "spark": _spark_task,
    "ray": _ray_task,
}


def _flytekit_serializer(flyte_tasks: list[Any], *, clean: bool = True
                         ) -> Callable[[], float]:
    """A timing of flytekit's serialization of ``flyte_tasks``, as ``pyflyte register``
    does it: ``get_serializable`` into a fresh entity map, then the protobuf."""
    from flytekit.configuration import Image, ImageConfig, SerializationSettings
    from flytekit.tools.translator import get_serializable

    image = Image(name="default", fqn="ghcr.io/acme/python", tag="3.11")
    settings = SerializationSettings(project="ml", domain="development", version="v1",
                                     image_config=ImageConfig(default_image=image,
                                                              images=[image]))

    def serialize() -> list[Any]:
        entities: OrderedDict[Any, Any] = OrderedDict()
        return [get_serializable(entities, settings, task).to_flyte_idl()
                for task in flyte_tasks]

    return lambda: cpu_seconds(serialize, clean=clean)

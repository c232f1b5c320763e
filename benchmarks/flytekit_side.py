"""The optional side by side with flytekit, measured only where flytekit is importable
(``scripts/bench-flytekit`` makes such a venv; nothing else depends on it).

The same generated Python tasks - image, ten env vars, requests/limits, the inline pod
template with its sidecar, the named template, interruptible - are declared with
flytekit's ``@task`` and serialized as ``pyflyte register`` does before it uploads them
(``get_serializable``, then the protobuf ``TaskSpec``), back to back with podtemplate's
render of them to manifests in memory. The two do not do the same work: flytekit leaves
the cluster default template, named templates and validation to the Flyte backend, which
applies them at run time; podtemplate folds and validates all of them here.
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
    tasks: int
    timings: Paired

    @property
    def ratio(self) -> float:
        """flytekit's time over podtemplate's, the median of the pairs."""
        return self.timings.ratio

    def as_json(self) -> dict[str, Any]:
        ours, theirs = self.timings.best
        return {"flytekit_version": self.flytekit_version, "task_type": "python",
                "tasks": self.tasks, "podtemplate_tasks_per_s": round(self.tasks / ours, 1),
                "flytekit_tasks_per_s": round(self.tasks / theirs, 1),
                "flytekit_over_podtemplate": round(self.ratio, 2)}


def side_by_side(tasks: Sequence[Task], platform: Path, repeat: int) -> SideBySide | str:
    """The side by side over the Python tasks of ``tasks``, or why it was not measured."""
    try:
        flytekit = importlib.import_module("flytekit")
    except ImportError:
        return ("flytekit is not installed: the side by side is skipped "
                "(scripts/bench-flytekit runs the benchmarks in a venv with it)")
    python_tasks = [task for task in tasks if task.task_type == "python"]
    if not python_tasks:
        return "no Python task to serialize with flytekit: the side by side is skipped"
    serialize = _flytekit_serializer([_flytekit_task(task) for task in python_tasks])
    serialize()  # warm up: flytekit's imports and caches of the process
    timings = paired(lambda: render_in_memory(python_tasks, platform), serialize, repeat)
    return SideBySide(str(flytekit.__version__), len(python_tasks), timings)


def _generated() -> None:
    """The function of every generated task."""


def _flytekit_task(task: Task) -> Any:
    """``task`` declared with flytekit's ``@task``, as a Flyte user writes it."""
    from flytekit import PodTemplate as FlytePodTemplate
    from flytekit import Resources as FlyteResources
    from flytekit import task as flyte_task
    from kubernetes.client import V1PodSpec

    # flytekit names the task after its function and takes only module-level functions
    # (it checks the code object): one function per task, all with _generated's code.
    name = task.attribute or task.name
    function = types.FunctionType(_generated.__code__, _generated.__globals__, name)
    function.__qualname__ = name
    function.__annotations__ = dict(_generated.__annotations__)
    kwargs: dict[str, Any] = {"container_image": task.image, "environment": dict(task.env),
                              "interruptible": task.interruptible}
    for side in ("requests", "limits"):
        resources = getattr(task, side)
        if resources is not None:
            kwargs[side] = FlyteResources(cpu=resources.cpu, mem=resources.memory)
    template = task.pod_template
    if template is not None:
        kwargs["pod_template"] = FlytePodTemplate(
            pod_spec=V1PodSpec.model_validate(template.pod_spec),
            primary_container_name=template.primary_container_name,
            labels=template.labels or None, annotations=template.annotations or None)
    if task.pod_template_name is not None:
        kwargs["pod_template_name"] = task.pod_template_name
    return flyte_task(**kwargs)(function)


def _flytekit_serializer(flyte_tasks: list[Any]) -> Callable[[], float]:
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

    return lambda: cpu_seconds(serialize)

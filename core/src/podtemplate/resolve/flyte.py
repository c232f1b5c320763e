"""What Flyte gives the pods of a task beyond its templates (issue 21): the node selector
of ``accelerator=``, the memory-backed ``/dev/shm`` of ``shared_memory=``, and the
platform's ``resourceTolerations`` on pods that request a resource."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..context import RenderContext
from ..model.task import Task
from ..platform import Platform
from .kinds import RESOURCE_TOLERATIONS
from .layers import Layer

__all__ = ["SHM_PATH", "SHM_VOLUME", "resource_tolerations",
           "shared_memory_fragment", "task_pod_settings", "tolerations_layer"]

SHM_VOLUME = "dshm"
SHM_PATH = "/dev/shm"


def shared_memory_fragment(size: bool | str | None, primary: str
                           ) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(spec fields, primary container fields)`` of a memory-backed /dev/shm; an
    unsized one (``True``) is bounded by the pod's memory limit, as on Flyte."""
    if not size:
        return {}, {}
    empty_dir: dict[str, Any] = {"medium": "Memory"}
    if isinstance(size, str):
        empty_dir["sizeLimit"] = size
    return ({"volumes": [{"name": SHM_VOLUME, "emptyDir": empty_dir}]},
            {"name": primary, "volumeMounts": [{"name": SHM_VOLUME, "mountPath": SHM_PATH}]})


def task_pod_settings(task: Task, primary: str, context: RenderContext
                      ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The pod fields the task settings layer adds for ``accelerator`` and
    ``shared_memory``: ``(spec fields, primary container fields)``, both empty when the
    task sets neither."""
    spec, container = shared_memory_fragment(task.shared_memory, primary)
    if task.accelerator:
        spec["nodeSelector"] = {context.platform.accelerator_label: task.accelerator}
    return spec, container


def _requested(acc: dict[str, Any]) -> Iterator[str]:
    spec = acc["spec"]
    for name in ("containers", "initContainers"):
        for container in spec.get(name) or ():
            resources = container.get("resources") or {}
            for kind in ("requests", "limits"):
                yield from resources.get(kind) or {}


def resource_tolerations(acc: dict[str, Any], context: RenderContext) -> Layer | None:
    """The platform's tolerations for the resources the folded pod ``acc`` requests or
    limits (a layer: tolerations are a union, so nothing the pod has is lost)."""
    table = context.platform.resource_tolerations
    if not table:
        return None
    requested = set(_requested(acc))
    wanted = [name for name in table if name in requested]
    if not wanted:
        return None
    return tolerations_layer(context.platform, wanted)


def tolerations_layer(platform: Platform, names: list[str]) -> Layer:
    """The layer of the platform's ``resourceTolerations`` for the resources ``names``."""
    table = platform.resource_tolerations
    tolerations = [dict(toleration) for name in names for toleration in table[name]]
    return Layer(RESOURCE_TOLERATIONS.name, {"spec": {"tolerations": tolerations}},
                 source=platform, variant="resourceTolerations:" + ",".join(names),
                 kind=RESOURCE_TOLERATIONS)

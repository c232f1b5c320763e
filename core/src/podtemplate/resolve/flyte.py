"""What Flyte gives the pods of a task beyond its templates (issue 21): the node
selection of ``accelerator=``, the memory-backed ``/dev/shm`` of ``shared_memory=``, and
the platform's ``resourceTolerations`` on pods that request a resource."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..context import RenderContext
from ..model.task import Task
from ..platform import Platform
from .kinds import RESOURCE_TOLERATIONS, TASK_SETTINGS
from .layers import Layer

__all__ = ["SHM_PATH", "SHM_VOLUME", "accelerator_layer", "resource_tolerations",
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
    """The pod fields the task settings layer adds for ``shared_memory``: ``(spec fields,
    primary container fields)``, both empty when the task sets none (``accelerator`` is
    :func:`accelerator_layer`'s: it depends on the folded pod)."""
    return shared_memory_fragment(task.shared_memory, primary)


def accelerator_layer(acc: dict[str, Any], task: Task, context: RenderContext
                      ) -> Layer | None:
    """``accelerator=`` on a pod whose containers ask for the platform's GPU resource, as
    Flyte's ``ApplyGPUNodeSelectors`` (flyteplugins flytek8s/pod_helper.go) gives it: the
    toleration ``<acceleratorLabel>=<device>:NoSchedule`` (Equal) and the required node
    affinity ``<acceleratorLabel> In [<device>]``, added to every term the folded pod
    ``acc`` already has (they AND with it); and, as podtemplate gave before, the same
    label as a nodeSelector. A pod that asks for no GPU gets none of it, as on Flyte."""
    device = task.accelerator
    if not device:
        return None
    gpu, label = context.platform.gpu_resource_name, context.platform.accelerator_label
    spec = acc["spec"]
    if not any(gpu in ((container.get("resources") or {}).get(kind) or {})
               for container in spec.get("containers") or ()
               for kind in ("limits", "requests")):
        return None
    requirement = {"key": label, "operator": "In", "values": [device]}
    required = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution") or {})
    terms = [dict(term) for term in required.get("nodeSelectorTerms") or ()] or [{}]
    for term in terms:
        expressions = list(term.get("matchExpressions") or ())
        if requirement not in expressions:
            term["matchExpressions"] = [*expressions, requirement]
    fragment = {"spec": {
        "nodeSelector": {label: device},
        "tolerations": [{"key": label, "operator": "Equal", "value": device,
                         "effect": "NoSchedule"}],
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            **required, "nodeSelectorTerms": terms}}}}}
    return Layer(f"{TASK_SETTINGS.name} (accelerator)", fragment, kind=TASK_SETTINGS)


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

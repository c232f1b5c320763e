"""The fields Spark sets on its own container, in the operator's native form.

Spark overwrites the image, cpu, memory, service account and image pull policy of the pod
template it is given with values from its configuration; the operator turns
``spec.driver``/``spec.executor`` fields into that configuration. So each value the
resolved pod carries for these is also written where Spark reads it, or Spark would
silently replace it with its defaults (1 core, 1g). GPUs, labels and annotations are
mapped too, as the issue asks, although Spark keeps them from the template.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from podtemplate import DefinitionError

from .units import (
    MIB,
    MIN_MEMORY_OVERHEAD,
    quantity_value,
    spark_cores,
    spark_memory,
    spark_memory_bytes,
    whole_gpus,
)

__all__ = ["cpu_fields", "memory_fields", "gpu_field", "pod_natives", "primary_container"]

_RESOURCES = "spec.containers[{name}].resources"
# Spark's smallest default overhead factor (JVM applications); Python's is larger.
_MIN_OVERHEAD_FACTOR = 0.1


def _at(where: str, rest: str) -> str:
    """A field path below ``where`` (``""`` for the task's own settings)."""
    return f"{where}.{rest}" if where else rest


# Pure functions of a few strings, called for every role of every task with the handful of
# values a platform uses: remembered. Callers copy what they return.
@functools.lru_cache(maxsize=1024)
def cpu_fields(request: str | None, limit: str | None, *, where: str) -> dict[str, Any]:
    """``cores`` (whole, for Spark's task slots), ``coreRequest`` and ``coreLimit`` (exact
    Kubernetes quantities). A pod with only a limit is requested at its limit, as in
    Kubernetes."""
    out: dict[str, Any] = {}
    effective = request if request is not None else limit
    if effective is not None:
        field = _at(where, f"{'requests' if request is not None else 'limits'}.cpu")
        out["cores"] = spark_cores(effective, field=field)
    if request is not None:
        out["coreRequest"] = request
    if limit is not None:
        if request is not None and quantity_value(limit, field=_at(where, "limits.cpu")) < (
            quantity_value(request, field=_at(where, "requests.cpu"))
        ):
            raise DefinitionError(f"cpu limit {limit} is below the cpu request {request}",
                                  field=_at(where, "limits.cpu"),
                                  fix="raise the limit or lower the request")
        out["coreLimit"] = limit
    return out


@functools.lru_cache(maxsize=1024)
def memory_fields(request: str | None, limit: str | None, overhead: str | None, *,
                  where: str) -> dict[str, Any]:
    """``memory`` (Spark's heap, from the request, else the limit), ``memoryOverhead``
    when asked, and ``memoryLimit`` when the limit differs from the request.

    Spark requests ``memory + memoryOverhead`` for the pod (request and limit); a limit
    below that would make the pod invalid, so it is an error here.
    """
    out: dict[str, Any] = {}
    if overhead is not None:
        out["memoryOverhead"] = spark_memory(overhead, field=_at(where, "memory_overhead"))
    effective = request if request is not None else limit
    if effective is None:
        return out
    kind = "requests" if request is not None else "limits"
    out["memory"] = spark_memory(effective, field=_at(where, f"{kind}.memory"))
    if request is None or limit is None:
        return out
    limit_bytes = quantity_value(limit, field=_at(where, "limits.memory"))
    if limit_bytes == quantity_value(request, field=_at(where, "requests.memory")):
        return out
    heap = spark_memory_bytes(out["memory"]) or 0
    extra = (spark_memory_bytes(out["memoryOverhead"]) or 0) if overhead is not None else (
        max(MIN_MEMORY_OVERHEAD, int(heap * _MIN_OVERHEAD_FACTOR)))
    if limit_bytes < heap + extra:
        raise DefinitionError(
            f"memory limit {limit} is below what Spark requests for the pod: memory "
            f"{out['memory']} plus an overhead of {'' if overhead else 'at least '}"
            f"{extra // MIB}Mi", field=_at(where, "limits.memory"),
            fix="raise the memory limit, or set it equal to the request (Spark then sets "
            "the limit to memory + overhead itself)")
    out["memoryLimit"] = limit
    return out


def gpu_field(requests: Mapping[str, str], limits: Mapping[str, str], gpu_name: str, *,
              where: str) -> dict[str, Any]:
    """``gpu {name, quantity}`` for the platform's GPU resource (limits, else requests)."""
    quantity = limits.get(gpu_name, requests.get(gpu_name))
    if quantity is None:
        return {}
    kind = "limits" if gpu_name in limits else "requests"
    count = whole_gpus(quantity, field=_at(where, f"{kind}.{gpu_name}"))
    return {"gpu": {"name": gpu_name, "quantity": count}}


def primary_container(pod: Mapping[str, Any], name: str) -> dict[str, Any]:
    """The Spark container of a resolved pod (resolution puts it first)."""
    for container in pod["spec"]["containers"]:
        if container["name"] == name:
            return container  # type: ignore[no-any-return]
    raise DefinitionError(f"the pod has no container {name!r}",
                          fix="report a podtemplate-spark bug")


def pod_natives(pod: Mapping[str, Any], container_name: str, *, gpu_name: str,
                overhead: str | None, reserved_labels: Sequence[str] = (),
                resources: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Every native field of one role, taken from its resolved pod (its Spark container's
    ``resources``, unless given: :func:`podtemplate_spark.origin.resource_origins`)."""
    container = primary_container(pod, container_name)
    if resources is None:
        resources = container.get("resources") or {}
    requests, limits = resources.get("requests") or {}, resources.get("limits") or {}
    where = _RESOURCES.format(name=container_name)
    out: dict[str, Any] = {}
    out.update(cpu_fields(requests.get("cpu"), limits.get("cpu"), where=where))
    out.update(memory_fields(requests.get("memory"), limits.get("memory"), overhead,
                             where=where))
    out.update(gpu_field(requests, limits, gpu_name, where=where))
    out["image"] = container["image"]
    spec = pod["spec"]
    account = spec.get("serviceAccountName") or spec.get("serviceAccount")
    if account:
        out["serviceAccount"] = account
    metadata = pod.get("metadata") or {}
    for label in reserved_labels:
        if label in (metadata.get("labels") or {}):
            raise DefinitionError(f"label {label!r} is reserved by Spark",
                                  field=f"metadata.labels.{label}",
                                  fix="rename the label: Spark sets it on its pods itself")
    for key in ("labels", "annotations"):
        if metadata.get(key):
            out[key] = dict(metadata[key])
    return out

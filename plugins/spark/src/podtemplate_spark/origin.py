"""Which layer gave the Spark container's cpu and memory (issue 30, theme 8).

Spark overwrites the pod's cpu and memory with its own configuration, so the plugin
writes what the user set where Spark reads it (:mod:`podtemplate_spark.natives`). A cpu or
memory whose request and limit only platform.yaml's ``defaultResources`` gave is not the
user's: as on Flyte, whose
spark plugin takes ``cores`` and ``memory`` from the Spark configuration alone
(flyteplugins k8s/spark/spark.go), it does not become a native field, and Spark's
configuration (``spark_conf``, else Spark's own defaults) decides. Where a native value
and ``spark_conf`` disagree, the warning names the layer that set the value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from podtemplate import RenderContext, Task
from podtemplate.plugin import TemplateLayer, template_layers

from .config import Spark
from .natives import primary_container
from .roles import CONTAINER_NAMES, role_spec

__all__ = ["DEFAULTS", "Blame", "resource_origins"]

DEFAULTS = "platform.yaml defaultResources"
_DEFAULT_CONTAINER = "default"
# A native field -> the resource entries it is read from, first found first.
_READS = {"cores": (("requests", "cpu"), ("limits", "cpu")),
          "coreRequest": (("requests", "cpu"),), "coreLimit": (("limits", "cpu"),),
          "memory": (("requests", "memory"), ("limits", "memory")),
          "memoryLimit": (("limits", "memory"),)}
Blame = Callable[[str], "str | None"]


def _setter(layers: Sequence[TemplateLayer], container: str, kind: str,
            name: str) -> str | None:
    """The label of the highest layer setting ``resources.<kind>.<name>`` on the Spark
    container (by its name, the template alias ``primary`` or ``default``)."""
    for layer in reversed(layers):
        own = {container, _DEFAULT_CONTAINER, layer.primary}
        for item in layer.spec.get("containers") or ():
            if isinstance(item, dict) and item.get("name") in own:
                values = (item.get("resources") or {}).get(kind)
                if isinstance(values, dict) and values.get(name) is not None:
                    return layer.label
    return None


def resource_origins(task: Task, config: Spark, role: str, pod: Mapping[str, Any],
                     context: RenderContext) -> tuple[dict[str, Any], Blame]:
    """The Spark container's ``resources`` without the cpu or memory whose request and
    limit only ``defaultResources`` gave,
    and who set a native field's value (a layer's label, :data:`DEFAULTS`, or None when
    the field is not a resource). The role's layers are looked at only when the platform
    has defaults, or when a warning needs its culprit."""
    container = CONTAINER_NAMES[role]
    resources: dict[str, Any] = dict(primary_container(pod, container).get("resources") or {})
    found: list[list[TemplateLayer]] = []

    def layers() -> list[TemplateLayer]:
        if not found:
            found.append(template_layers(task, role_spec(role, config.role(role)), context))
        return found[0]

    def origin(kind: str, name: str) -> str:
        return _setter(layers(), container, kind, name) or DEFAULTS

    defaults = context.platform.default_resources
    if defaults.requests or defaults.limits:
        for name in ("cpu", "memory"):  # a resource whose request and limit no layer set
            given = [kind for kind in ("requests", "limits")
                     if name in (resources.get(kind) or {})]
            if given and all(origin(kind, name) == DEFAULTS for kind in given):
                for kind in given:
                    resources[kind] = {key: value for key, value in resources[kind].items()
                                       if key != name}

    def blame(field: str) -> str | None:
        reads = _READS.get(field)
        if reads is None:
            return None
        for kind, name in reads:
            if name in (resources.get(kind) or {}):
                return origin(kind, name)
        return None

    return resources, blame

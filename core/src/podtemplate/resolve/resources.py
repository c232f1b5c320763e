"""A request above its limit, after the layers are folded (issue 21, as Flyte's resources
end up): when the request comes from a higher layer than the limit (a task's
``requests`` over a template's ``limits``), the limit rises to the request with a
warning. When the limit was set in the same or a higher layer it stays, and the final
pod's API-server check (``model.apiserver``) refuses the request above it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..context import RenderContext
from ..manifest import copy_path
from ..merge._fast import Cow
from ..merge.aliases import DEFAULT_CONTAINER
from ..model.names import parse_quantity
from .layers import Layer

__all__ = ["reconcile_limits"]


def reconcile_limits(acc: dict[str, Any], layers: Sequence[Layer], primary: str, *,
                     context: RenderContext, task: str, role: str,
                     cow: Cow | None = None) -> None:
    """Raise the primary container's limits to requests set above them (see the module
    docstring); ``acc`` is the folded pod, changed in place (through ``cow`` when the
    fold is copy-on-write: more layers are folded into it after)."""
    index, container = next((i, c) for i, c in enumerate(acc["spec"]["containers"])
                            if c.get("name") == primary)
    resources = container.get("resources") or {}
    requests, limits = resources.get("requests") or {}, resources.get("limits") or {}
    over = [name for name in requests if name in limits
            and parse_quantity(requests[name]) > parse_quantity(limits[name])]
    if not over:
        return
    raised = dict(limits)
    for name in over:
        by_request = _setter(layers, primary, "requests", name)
        by_limit = _setter(layers, primary, "limits", name)
        field = f"spec.containers[{primary}].resources.limits.{name}"
        if by_request is None or by_limit is None or by_request <= by_limit:
            continue  # the limit's own layer or a higher one: an error of the final pod
        raised[name] = requests[name]
        context.warn(f"the {name} limit {limits[name]} of {layers[by_limit].label} is "
                     f"raised to the request {requests[name]} of "
                     f"{layers[by_request].label}", task=task, role=role, field=field)
    if raised != limits:  # the container may be a template's (copy-on-write): copied
        path = ("spec", "containers", index, "resources")
        owned = copy_path(acc, *path) if cow is None else cow.own_path(acc, *path)
        owned["limits"] = raised


def _setter(layers: Sequence[Layer], primary: str, kind: str, name: str) -> int | None:
    """The index of the highest layer setting ``kind.name`` on the primary container."""
    for index in range(len(layers) - 1, -1, -1):
        layer = layers[index]
        own = {primary, DEFAULT_CONTAINER, *([layer.primary_alias] if layer.primary_alias
                                             else [])}
        for container in (layer.fragment.get("spec") or {}).get("containers") or ():
            if not isinstance(container, dict) or container.get("name") not in own:
                continue
            values = (container.get("resources") or {}).get(kind)
            if isinstance(values, dict) and values.get(name) is not None:
                return index
    return None


"""Resources as Flyte's backend gives them (issue 30; judged by flyteplugins' own
``flytek8s`` in ``tests/flyte_oracle``), after the layers are folded:

- A request above its limit: when the request comes from a higher layer than the limit
  (a task's ``requests`` over a template's ``limits``), the limit rises to the request
  with a warning. On Flyte the task's container is completed (limit = request) before
  the template is merged under it, so the template's limit gives way the same. When the
  limit was set in the same or a higher layer it stays, and the final pod's API-server
  check (``model.apiserver``) refuses the request above it (Flyte lowers the request
  silently: here it is one line naming both values).
- :func:`flyte_resources`, for the primary container: an unset request takes the limit,
  else ``defaultResources.requests``; an unset limit takes the request; and
  ``defaultResources.limits`` is only a cap, on every container: a value above it is
  lowered to it, with a warning (Flyte lowers it silently).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..context import RenderContext
from ..manifest import copy_path
from ..merge._fast import Cow
from ..merge.aliases import DEFAULT_CONTAINER
from ..model.names import parse_quantity
from ..model.roles import RoleSpec
from .kinds import DEFAULT_RESOURCES
from .layers import Layer

__all__ = ["complete_resources", "flyte_resources", "operator_sized", "reconcile_limits"]

_CONTAINER_LISTS = ("containers", "initContainers")


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


_OWN_RESOURCES = "spec.containers[primary].resources."


def operator_sized(role_spec: RoleSpec) -> frozenset[str]:
    """The resources of the role's primary container its operator sizes itself: those
    whose request or limit the role declares owned (:func:`flyte_resources`)."""
    return frozenset(decl.path.rpartition(".")[2] for decl in role_spec.owned
                     if decl.path.startswith(_OWN_RESOURCES))


def flyte_resources(acc: dict[str, Any], primary: str, context: RenderContext,
                    layers: Sequence[Layer], *, task: str | None = None,
                    role: str | None = None, operator_sized: frozenset[str] = frozenset()
                    ) -> list[Layer]:
    """The layers completing the folded pod ``acc``'s resources as Flyte does (the module
    docstring), to fold in order: the platform's (defaults and caps) and, for each value
    copied from the primary container's other side (a limit from its request...), a
    layer of the kind and source of the layer that wrote the original (``layers``), so
    that explain and the policy name the user's line, not platform.yaml. Warns (with
    ``task``) of each value lowered to the platform's cap.

    ``operator_sized``: the resources the role's operator sizes from fields of its own
    (Spark's ``memory``, ``cores``: the role declares them owned), which Flyte's Spark
    plugin does not complete either: an unset request only takes the default (never
    above the limit), and an unset limit stays unset."""
    defaults = context.platform.default_resources
    platform: dict[str, list[dict[str, Any]]] = {}
    copied: list[Layer] = []
    for key in _CONTAINER_LISTS:
        for container in acc["spec"].get(key) or ():
            name = container["name"]
            own = container.get("resources") or {}
            requests, limits = own.get("requests") or {}, own.get("limits") or {}
            if key == "containers" and name == primary:
                requests, limits = complete_resources(requests, limits, defaults.requests,
                                                      operator_sized)
            fill: dict[str, dict[str, str]] = {}
            for side, values in _capped(requests, limits, defaults.limits).items():
                other = "limits" if side == "requests" else "requests"
                for resource, value in values.items():
                    given = (own.get(side) or {}).get(resource)
                    if given == value:
                        continue
                    if given is not None and task is not None:
                        context.warn(f"the {resource} {side[:-1]} {given} is above the "
                                     f"platform's cap {value} (defaultResources.limits): "
                                     f"lowered to it", task=task, role=role,
                                     field=f"spec.{key}[{name}].resources.{side}.{resource}")
                    copy = given is None and (own.get(other) or {}).get(resource) == value
                    origin = _setter(layers, primary, other, resource) if copy else None
                    if origin is None:
                        fill.setdefault(side, {})[resource] = value
                    else:
                        copied.append(_copy_layer(layers[origin], primary, side, resource,
                                                  value))
            if fill:
                platform.setdefault(key, []).append({"name": name, "resources": fill})
    # Valid by construction: quantities of the pod or of platform.yaml, both checked.
    made = [Layer(DEFAULT_RESOURCES.name, {"spec": platform}, primary, proven=True,
                  clean=True, kind=DEFAULT_RESOURCES)] if platform else []
    return [*made, *copied]


def _copy_layer(origin: Layer, primary: str, side: str, resource: str, value: str) -> Layer:
    """A layer like ``origin`` (its kind, label and source) setting one copied value."""
    fragment = {"spec": {"containers": [{"name": primary,
                                         "resources": {side: {resource: value}}}]}}
    return Layer(origin.label, fragment, primary, origin.source,
                 f"{origin.variant}+flyte:{side}.{resource}={value}", proven=True, clean=True,
                 kind=origin.kind)


def complete_resources(requests: dict[str, str], limits: dict[str, str],
                       default_requests: dict[str, str], operator_sized: frozenset[str]
                       ) -> tuple[dict[str, str], dict[str, str]]:
    """The primary container's requests and limits as Flyte completes them: an unset
    request takes the limit, else the platform's default; an unset limit the request
    (for ``operator_sized`` resources: :func:`flyte_resources`)."""
    requests, limits = dict(requests), dict(limits)
    for name in (*default_requests, *limits):
        if name in requests:
            continue
        limit = limits.get(name)
        if name not in operator_sized:
            requests[name] = limit or default_requests[name]
        elif name in default_requests:
            low = limit is not None and parse_quantity(limit) < parse_quantity(
                default_requests[name])
            requests[name] = limit if limit is not None and low else default_requests[name]
    for name, value in requests.items():
        if name not in operator_sized:
            limits.setdefault(name, value)
    return requests, limits


def _capped(requests: dict[str, str], limits: dict[str, str], caps: dict[str, str]
            ) -> dict[str, dict[str, str]]:
    """``{"requests": ..., "limits": ...}`` with each value above its cap lowered to it."""
    def cap(values: dict[str, str]) -> dict[str, str]:
        return {name: caps[name] if name in caps
                and parse_quantity(value) > parse_quantity(caps[name]) else value
                for name, value in values.items()}

    return {"requests": cap(requests), "limits": cap(limits)}

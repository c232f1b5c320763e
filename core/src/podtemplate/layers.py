"""The layers of DESIGN §4 as data: each is a label, a PodTemplateSpec-shaped fragment and
the name its primary container goes by inside that fragment."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .model import PodTemplate, Resources, normalize_env
from .roles import SCHEDULING_FIELDS

__all__ = [
    "Layer",
    "resources_fragment",
    "scheduling_only",
    "settings_layer",
    "settings_parts",
    "template_layer",
    "without_task_resources",
]


@dataclass(frozen=True)
class Layer:
    """One layer. ``fragment`` is read only: merging copies what it takes.

    ``source`` is the long-lived object the fragment is derived from (a PodTemplate, the
    Platform), None for a fragment built for one task; ``variant`` says how it was
    derived. Equal (source, variant) means an equal fragment, so work on it - folding,
    validating - can be done once per render and reused (see ``_layer_cache``).
    ``proven`` marks a fragment valid by construction (see ``_podcheck``).
    """

    label: str
    fragment: Mapping[str, Any]
    primary_alias: str | None = None
    source: object | None = None
    variant: str = ""
    proven: bool = False

    # Read for every role a layer is folded into; computed once per layer object and kept
    # in its __dict__ (a plain dict lookup: cached_property takes a lock in Python 3.11).
    def container_names(self) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """The names of the fragment's containers and init containers, without the items
        that carry a directive (they add no container)."""
        found = self.__dict__.get("_container_names")
        if found is None:
            spec = self.fragment.get("spec") or {}
            found = self.__dict__["_container_names"] = tuple(
                tuple(c.get("name") for c in spec.get(list_name) or ()
                      if isinstance(c, dict) and c.get("$patch") is None)
                for list_name in ("containers", "initContainers"))
        return found

    def has_default_entries(self) -> bool:
        """Whether the fragment has ``default``/``default-init`` container entries, whose
        expansion depends on the role's container names."""
        found = self.__dict__.get("_has_default_entries")
        if found is None:
            spec = self.fragment.get("spec") or {}
            found = self.__dict__["_has_default_entries"] = any(
                isinstance(c, dict) and c.get("name") in ("default", "default-init")
                for name in ("containers", "initContainers") for c in spec.get(name) or ())
        return found


def template_layer(label: str, template: PodTemplate, *, alias: str | None = None) -> Layer:
    fragment: dict[str, Any] = {"spec": template.pod_spec}
    if template.labels or template.annotations:
        fragment["metadata"] = {"labels": template.labels, "annotations": template.annotations}
    return Layer(label, fragment, alias or template.primary_container_name, source=template)


def resources_fragment(requests: Resources | None, limits: Resources | None,
                       gpu_name: str) -> dict[str, dict[str, str]]:
    """requests/limits as a container ``resources`` fragment. A GPU request or limit is
    mirrored to the other side: Kubernetes requires them equal for extended resources."""
    out: dict[str, dict[str, str]] = {}
    if requests is not None:
        out["requests"] = requests.to_k8s(gpu_name)
    if limits is not None:
        out["limits"] = limits.to_k8s(gpu_name)
    gpu = (requests and requests.gpu) or (limits and limits.gpu)
    if gpu:
        out.setdefault("requests", {})[gpu_name] = gpu
        out.setdefault("limits", {})[gpu_name] = gpu
    return out


def settings_parts(env: Mapping[str, Any] | None, requests: Resources | None,
                   limits: Resources | None, gpu_name: str
                   ) -> tuple[list[dict[str, str]], dict[str, Any]]:
    """The env list and the resources of a settings layer, which do not depend on the
    role (only the primary container's name does)."""
    return normalize_env(env) if env else [], resources_fragment(requests, limits, gpu_name)


def settings_layer(label: str, parts: tuple[list[dict[str, str]], dict[str, Any]], *,
                   primary: str, image: str | None = None,
                   command: tuple[str, ...] | None = None, args: tuple[str, ...] | None = None
                   ) -> Layer | None:
    """Task or role settings applied to the primary container; None when nothing is set.
    ``parts`` is :func:`settings_parts` of the task or role (made once for all of its
    roles: the fragment only reads it)."""
    container: dict[str, Any] = {"name": primary}
    if image:
        container["image"] = image
    if command is not None:
        container["command"] = list(command)
    if args is not None:
        container["args"] = list(args)
    env_items, resources = parts
    if env_items:
        container["env"] = env_items
    if resources:
        container["resources"] = resources
    if len(container) == 1:
        return None
    # Valid by construction when image, command and args are strings: env names and
    # quantities were checked when the task was defined, the primary name is checked
    # with the final pod.
    proven = all(type(v) is str for v in (image or "", *(command or ()), *(args or ())))
    return Layer(label, {"spec": {"containers": [container]}}, primary, proven=proven)


def scheduling_only(layer: Layer) -> Layer:
    """The part of a layer a scheduling-only role takes: placement fields and metadata."""
    spec = layer.fragment.get("spec") or {}
    fragment: dict[str, Any] = {"spec": {k: v for k, v in spec.items() if k in SCHEDULING_FIELDS}}
    if "metadata" in layer.fragment:
        fragment["metadata"] = layer.fragment["metadata"]
    return Layer(f"{layer.label} (scheduling fields)", fragment, layer.primary_alias,
                 source=layer.source, variant=f"{layer.variant}/scheduling")


def without_task_resources(layer: Layer) -> Layer:
    """A cluster template layer for a scheduling-only role: the ``resources`` its primary
    (and ``default``) container would give the task are dropped, so a GPU template does
    not make a helper pod such as a job submitter request a GPU."""
    spec = layer.fragment.get("spec") or {}
    task_names = {layer.primary_alias, "default"}
    containers = [
        {k: v for k, v in c.items() if k != "resources"} if c.get("name") in task_names else c
        for c in spec.get("containers") or ()
    ]
    if not containers:
        return layer
    return Layer(layer.label, {**layer.fragment, "spec": {**spec, "containers": containers}},
                 layer.primary_alias, source=layer.source,
                 variant=f"{layer.variant}/no-task-resources")

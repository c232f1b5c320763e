"""What the kit expects in a role's pod, worked out from the sample task's own definition
and the probe with the kit's reference merge (:mod:`.reference_merge`).

Never through core's resolution or merge: a core defect (a layer skipped, a list appended
instead of merged, ``false`` ignored) would otherwise move the expectation with it and
hide itself. Never from what the plugin returns either: a role's own templates and
settings (layers 5-6) are the :class:`Role` the user wrote in the task's config, found
where the sample task put the kit's marker template for that role
(:func:`role_config_paths`), not ``RoleSpec.role``, so a plugin that rebuilds a role
without its image, env or resources cannot move the expectation with it. The layers are
the README's, lowest first, each named so that a failure can say which one did not
arrive. Not modelled: ``platform.yaml`` (the kit renders with an
empty platform) and ``default``/``default-init`` entries in the sample task's own
templates (the probe uses neither).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from ..model.roles import SCHEDULING_FIELDS, RoleSpec
from ..model.task import Task
from ..model.templates import PodTemplate, Resources, Role, normalize_env
from ..resolve.resources import complete_resources, operator_sized
from .reference_merge import reference_merge

__all__ = ["ConfigPath", "ExpectedLayer", "config_at", "expected_layers", "expected_pod",
           "filled_in", "primary_name", "role_config_paths", "GPU"]

GPU = "nvidia.com/gpu"  # the empty platform's GPU resource name
PRIMARY_ALIAS = "primary"  # a cluster template's primary container is always "primary"


@dataclass(frozen=True)
class ExpectedLayer:
    """One layer as the kit sees it: a README layer name and its PodTemplateSpec fragment,
    the primary container already named as the role names it."""

    name: str
    fragment: Mapping[str, Any]


def primary_name(task: Task, role: RoleSpec) -> str:
    """The role's primary container name: the operator's, else the task template's."""
    own = task.pod_template.primary_container_name if task.pod_template else PRIMARY_ALIAS
    return role.container_name or own


# Where a Role sits in a task config: attribute names, list indexes and mapping keys.
ConfigPath = tuple[str | int, ...]


def role_config_paths(config: Any, markers: Mapping[str, PodTemplate]) -> dict[str, ConfigPath]:
    """Role name -> where the user's :class:`Role` of that role sits in ``config``: the
    Role whose ``pod_template`` is the role's marker in ``markers`` (the per-role
    templates the kit passed to the sample task)."""
    found: dict[str, ConfigPath] = {}
    for path, value in _roles_in(config, ()):
        for name, marker in markers.items():
            if value.pod_template is not None and value.pod_template == marker:
                found.setdefault(name, path)
    return found


def config_at(config: Any, path: ConfigPath) -> Role | None:
    """The Role at ``path`` of ``config`` (another task of the same type), if there."""
    node = config
    for step in path:
        if isinstance(node, BaseModel) and isinstance(step, str):
            node = getattr(node, step, None)
        elif isinstance(node, (list, tuple)) and isinstance(step, int) and step < len(node):
            node = node[step]
        elif isinstance(node, Mapping):
            node = node.get(step)
        else:
            return None
    return node if isinstance(node, Role) else None


def _roles_in(value: Any, path: ConfigPath) -> Iterator[tuple[ConfigPath, Role]]:
    if isinstance(value, Role):
        yield path, value
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            yield from _roles_in(getattr(value, name), (*path, name))
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from _roles_in(item, (*path, index))
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(key, str):
                yield from _roles_in(item, (*path, key))


_SETTINGS = ("image", "env", "requests", "limits")


def filled_in(user: Role | None, plugin: Role | None) -> Role | None:
    """The user's Role with the settings it leaves unset that the plugin's Role fills in
    (Ray's submitter runs the head's image): a plugin may add a setting, but not drop or
    change one the user wrote."""
    if user is None or plugin is None:
        return user
    update = {name: getattr(plugin, name) for name in _SETTINGS
              if getattr(user, name) is None and getattr(plugin, name) is not None}
    return user.model_copy(update=update) if update else user


def expected_layers(task: Task, role: RoleSpec, *, config: Role | None,
                    cluster: PodTemplate | None = None, override: PodTemplate | None = None
                    ) -> list[ExpectedLayer]:
    """Layers 1-6 of ``role``, lowest first. ``config`` is the user's Role of ``role`` in
    the task's config (layers 5-6; never ``role.role``, which the plugin made);
    ``cluster`` is the template the task names (the kit's store holds it); ``override``
    the run override of the render."""
    primary = primary_name(task, role)
    scheduling = role.inherit == "scheduling"
    layers = []
    if cluster is not None:
        layers.append(ExpectedLayer("cluster template (layer 1)", _template(
            cluster, PRIMARY_ALIAS, primary, drop_primary_resources=scheduling)))
    if task.pod_template is not None:
        layers.append(ExpectedLayer("task template (layer 2)", _template(
            task.pod_template, task.pod_template.primary_container_name, primary,
            scheduling_only=scheduling)))
    if not scheduling:
        settings = _settings(task, primary, command=task.command, args=task.args)
        if settings:
            layers.append(ExpectedLayer("task settings (layer 3)", settings))
    for own in (task.override, override):
        if own is not None:
            layers.append(ExpectedLayer("run override (layer 4)", _template(
                own, own.primary_container_name, primary, scheduling_only=scheduling)))
    if config is not None:
        if config.pod_template is not None:
            layers.append(ExpectedLayer("role template (layer 5)", _template(
                config.pod_template, config.pod_template.primary_container_name, primary)))
        settings = _settings(config, primary)
        if settings:
            layers.append(ExpectedLayer("role settings (layer 6)", settings))
    return layers


def expected_pod(layers: list[ExpectedLayer], primary: str | None = None,
                 role: RoleSpec | None = None) -> dict[str, Any]:
    """The layers folded with the reference merge: the pod before the operator's layer.
    With ``primary``, its container's resources completed as Flyte's backend completes
    them (an unset limit is the request...: ``resolve/resources.py``)."""
    pod: dict[str, Any] = {}
    for layer in layers:
        pod = reference_merge(pod, layer.fragment, root="")
    if primary is None:
        return pod
    sized = operator_sized(role) if role is not None else frozenset()
    spec = pod.get("spec") or {}
    containers = []
    for container in spec.get("containers") or ():
        own = container.get("resources")
        if container.get("name") == primary and own:
            requests, limits = complete_resources(own.get("requests") or {},
                                                  own.get("limits") or {}, {}, sized)
            container = {**container, "resources": {
                **own, **({"requests": requests} if requests else {}),
                **({"limits": limits} if limits else {})}}
        containers.append(container)
    if containers:
        pod = {**pod, "spec": {**spec, "containers": containers}}
    return pod


def _template(template: PodTemplate, alias: str, primary: str, *,
              scheduling_only: bool = False, drop_primary_resources: bool = False
              ) -> dict[str, Any]:
    spec = {key: value for key, value in template.pod_spec.items()
            if not scheduling_only or key in SCHEDULING_FIELDS}
    if "containers" in spec:
        containers = []
        for container in spec["containers"]:
            if container.get("name") == alias:
                container = {**container, "name": primary}
            if drop_primary_resources and container.get("name") in (primary, "default"):
                container = {k: v for k, v in container.items() if k != "resources"}
            containers.append(container)
        spec["containers"] = containers
    fragment: dict[str, Any] = {"spec": spec}
    if template.labels or template.annotations:
        fragment["metadata"] = {"labels": dict(template.labels),
                                "annotations": dict(template.annotations)}
    return fragment


def _settings(owner: Task | Role, primary: str, *, command: Any = None, args: Any = None
              ) -> dict[str, Any] | None:
    """Image, command/args, env and requests/limits on the primary container."""
    container: dict[str, Any] = {"name": primary}
    if owner.image:
        container["image"] = owner.image
    if command is not None:
        container["command"] = list(command)
    if args is not None:
        container["args"] = list(args)
    if owner.env:
        container["env"] = normalize_env(owner.env)
    resources = _resources(owner.requests, owner.limits)
    if resources:
        container["resources"] = resources
    return {"spec": {"containers": [container]}} if len(container) > 1 else None


def _resources(requests: Resources | None, limits: Resources | None) -> dict[str, Any]:
    """A GPU count goes to both requests and limits (Kubernetes wants them equal)."""
    out: dict[str, dict[str, str]] = {}
    for side, given in (("requests", requests), ("limits", limits)):
        if given is not None:
            out[side] = given.to_k8s(GPU)
    gpu = (requests and requests.gpu) or (limits and limits.gpu)
    if gpu:
        for side in ("requests", "limits"):
            out.setdefault(side, {})[GPU] = gpu
    return out

"""Duplicate keys in the keyed lists of emitted pods, with the layer that added each.

The merge never leaves a key twice in a keyed list (an env name, a container, volume or
claim name, a port, a mount path: the kit's own table, :data:`.reference_merge.KEYED`), so
a duplicate in an emitted pod was added after it, by the plugin's build; the finding says
which of the user's layers set the key first. Every render of the kit is checked, and one
more that provokes the usual slip: a task template setting every key the plugin adds
itself (its own env var, volume, port or container), as a user may well do.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import InvalidPodSpecError, PodTemplateError
from ..model.podspec import DUPLICATE_KEY
from ..model.roles import RoleSpec
from ..model.templates import PodTemplate
from .oracle import ExpectedLayer
from .reference_merge import KEYED
from .results import Finding

if TYPE_CHECKING:
    from .kit import Kit, Rendered

__all__ = ["duplicate_findings", "keyed_items", "collision_template"]

BUILD = "the plugin's build (podtemplate_build_manifests)"
_CONTAINER_LISTS = ("containers", "initContainers")
_COLLISION_VALUE = "probe-collision"
# A keyed item a user can write with only its key: what the collision template sets.
_USER_ITEMS = {
    "container.env": lambda key: {"name": key[0], "value": _COLLISION_VALUE},
    "container.ports": lambda key: {"containerPort": int(key[0]), "protocol": key[1]},
    "spec.volumes": lambda key: {"name": key[0], "emptyDir": {}},
}


def keyed_items(pod: Mapping[str, Any]) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """``(list path, rule, key)`` of every item of every keyed list of a PodTemplateSpec:
    ``("spec.containers[main].env", "container.env", ("FOO",))``."""
    spec = pod.get("spec") if isinstance(pod.get("spec"), Mapping) else {}
    assert isinstance(spec, Mapping)
    for rule, keys in KEYED.items():
        head, _, rest = rule.partition(".")
        if head == "spec":
            yield from _items(_at(spec, rest), rule, keys, rule)
        elif head == "container":
            for list_name in _CONTAINER_LISTS:
                for container in spec.get(list_name) or ():
                    if isinstance(container, Mapping):
                        where = f"spec.{list_name}[{container.get('name')}].{rest}"
                        yield from _items(_at(container, rest), rule, keys, where)


def _at(node: Any, dotted: str) -> Any:
    for key in dotted.split("."):
        node = node.get(key) if isinstance(node, Mapping) else None
    return node


def _items(items: Any, rule: str, keys: Sequence[str], where: str
           ) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    for item in items if isinstance(items, list) else ():
        if isinstance(item, Mapping):
            yield where, rule, tuple(str(item.get(key, "TCP" if key == "protocol" else ""))
                                     for key in keys)


def duplicate_findings(kit: Kit) -> list[Finding]:
    """Every key held twice by a keyed list of a role's pod, in every render of the kit
    and in the collision render."""
    found: dict[str, Finding] = {}
    renders: list[tuple[str, Rendered]] = [("baseline", kit.baseline)]
    renders += [(layer, rendered) for layer, _, rendered in kit.renders()]
    collision = _collision_render(kit)
    if isinstance(collision, Finding):
        return [collision]
    if collision is not None:
        renders.append(("task", collision))
    for layer, rendered in renders:
        refused = _refused(kit, rendered, layer)
        if refused is not None:
            found.setdefault(f"{refused.role} {refused.field}", refused)
        for role in rendered.roles:
            for finding in _duplicates(kit, rendered, role, layer):
                found.setdefault(f"{finding.role} {finding.field}", finding)
    return list(found.values())


def _refused(kit: Kit, rendered: Rendered, layer: str) -> Finding | None:
    """Core's own check of the emitted pods refusing a key held twice, as a finding."""
    failure = rendered.failure
    if not isinstance(failure, InvalidPodSpecError) or failure.message != DUPLICATE_KEY:
        return None
    return Finding("duplicate-key", kit.plugin, f"the render fails: {rendered.error}; {BUILD} "
                   "adds an item whose key the pod already holds", role=failure.role,
                   field=failure.field, layer=layer)


def _duplicates(kit: Kit, rendered: Rendered, role: RoleSpec, layer: str) -> list[Finding]:
    located = rendered.pods.get(role.name)
    if located is None:
        return []
    seen: set[tuple[str, tuple[str, ...]]] = set()
    findings = []
    for where, rule, key in keyed_items(located.pod):
        if (where, key) not in seen:
            seen.add((where, key))
            continue
        shown = ",".join(key)
        setters = _setters(rendered.layers.get(role.name, ()), role, where, rule, key,
                           located.primary)
        said = f"the {' and the '.join(setters)} set it, and " if setters else ""
        findings.append(Finding(
            "duplicate-key", kit.plugin, f"{where} holds {shown!r} twice: {said}{BUILD} "
            f"added it again (render with the probe at the {layer} layer); merge into the "
            "item the pod already has instead of appending one", role=role.name,
            field=f"{where}[{shown}]", layer=BUILD))
    return findings


def _setters(layers: Sequence[ExpectedLayer], role: RoleSpec, where: str, rule: str,
             key: tuple[str, ...], primary: str) -> list[str]:
    """The layers (the user's, then the operator's) whose fragment holds ``key`` there."""
    named = [(layer.name, layer.fragment) for layer in layers]
    operator = role.container_name or "primary"
    named.append(("operator layer (layer 7)", _renamed(role.operator_layer, operator, primary)))
    return [name for name, fragment in named
            if any(w == where and r == rule and k == key for w, r, k in keyed_items(fragment))]


def _renamed(fragment: Mapping[str, Any], alias: str, primary: str) -> Mapping[str, Any]:
    spec = fragment.get("spec")
    if not isinstance(spec, Mapping) or not isinstance(spec.get("containers"), list):
        return fragment
    containers = [{**c, "name": primary} if isinstance(c, Mapping) and c.get("name") == alias
                  else c for c in spec["containers"]]
    return {**fragment, "spec": {**spec, "containers": containers}}


def collision_template(kit: Kit) -> PodTemplate | None:
    """A task template setting every env var, port and volume the plugin adds to a role's
    primary container or pod itself (in the plain sample task's pods, not in what the
    user's layers give), or None when it adds none."""
    rendered = kit.baseline
    spec: dict[str, Any] = {}
    for role in rendered.roles:
        located = rendered.pods.get(role.name)
        ideal = rendered.ideal.get(role.name) or {}
        if located is None:
            continue
        own = set(keyed_items(ideal))
        primary = f"spec.containers[{located.primary}]."
        for where, rule, key in keyed_items(located.pod):
            make = _USER_ITEMS.get(rule)
            if make is None or (where, rule, key) in own:
                continue
            if rule == "spec.volumes":
                spec.setdefault("volumes", {})[key] = make(key)
            elif where.startswith(primary):
                spec.setdefault(where[len(primary):], {})[key] = make(key)
    if not spec:
        return None
    volumes = list(spec.pop("volumes", {}).values())
    container = {"name": "primary", **{name: list(items.values()) for name, items in spec.items()}}
    body: dict[str, Any] = {"containers": [container]}
    if volumes:
        body["volumes"] = volumes
    try:
        return PodTemplate(body, "primary", source="collision probe (the plugin's own keys)")
    except PodTemplateError:
        return None


def _collision_render(kit: Kit) -> Rendered | Finding | None:
    """The sample task under the collision template; a finding when core refuses the pod
    it gives for a key held twice; None when there is nothing to collide with, or the
    plugin refuses the user's value itself (fine: it says so)."""
    template = collision_template(kit)
    if template is None:
        return None
    try:
        task = kit.sample_task(pod_template=template)
    except PodTemplateError:
        return None
    rendered = kit.render(task)
    failure = rendered.failure
    if isinstance(failure, InvalidPodSpecError) and failure.message == DUPLICATE_KEY:
        keys = ", ".join(_keys_of(template))
        return Finding("duplicate-key", kit.plugin, f"a task template (layer 2) setting the "
                       f"plugin's own {keys}, as a user may, makes the render fail: "
                       f"{rendered.error}; {BUILD} adds its item beside the user's instead "
                       "of merging into it", role=failure.role, field=failure.field,
                       layer=BUILD)
    return None if rendered.error is not None else rendered


def _keys_of(template: PodTemplate) -> list[str]:
    return [f"{where.rsplit('.', 1)[-1]}[{','.join(key)}]"
            for where, _, key in keyed_items({"spec": template.pod_spec})
            if key != ("primary",)]

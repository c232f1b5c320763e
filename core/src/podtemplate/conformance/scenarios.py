"""Probes of how layers combine, beyond one probe over empty layers:

- **precedence**: two layers set the same fields with different values (``false``, ``0``,
  ``""``, keyed items with one key, union lists, a sidecar listed first); the higher
  layer's value must arrive, nothing twice, unions complete;
- **settings and roles**: the sample task and each role get their own image, env and
  requests/limits, each role its own template; every role must show the task's values
  merged key by key with its own and with the templates, and no value of another role.

Expected values come from :mod:`.oracle` (the kit's reference merge over the sample
task's own definition), never from core's resolution. Each failure names the layer whose
value did not arrive.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ..errors import PodTemplateError
from ..model.roles import RoleSpec
from ..model.task import Task
from ..model.templates import PodTemplate, Resources, Role
from .compare import MISSING, field_value, walk
from .oracle import ExpectedLayer, expected_layers, expected_pod, primary_name
from .results import LAYER_NAMES, LAYERS, Finding

if TYPE_CHECKING:
    from .kit import Kit, Rendered

__all__ = ["precedence_findings", "precedence_templates", "role_findings",
           "PRECEDENCE_FIELDS"]

SIDECAR = "prec-sidecar"


def precedence_templates() -> tuple[PodTemplate, PodTemplate]:
    """The low and the high template of the precedence probe. Built on each use: a core
    defect that rejects them becomes a finding, not an import error."""
    low = PodTemplate({
        "hostNetwork": True, "terminationGracePeriodSeconds": 45,
        "nodeSelector": {"prec-a": "low", "prec-b": "low", "prec-c": "low"},
        "tolerations": [{"key": "prec-shared", "operator": "Exists"},
                        {"key": "prec-low", "operator": "Exists"}],
        "volumes": [{"name": "prec-volume", "emptyDir": {"sizeLimit": "1Mi"}}],
        "initContainers": [{"name": "prec-init", "image": "probe.example/low-init:1",
                            "args": ["low"]}],
        "containers": [{"name": "primary", "workingDir": "/low",
                        "env": [{"name": "PREC_ENV", "value": "low"},
                                {"name": "PREC_LOW", "value": "low"},
                                {"name": "PREC_GONE", "value": "low"}],
                        "envFrom": [{"configMapRef": {"name": "prec-shared"}},
                                    {"configMapRef": {"name": "prec-low"}}]}],
    }, "primary", labels={"prec.podtemplate.io/label": "low"}, source="precedence probe (low)")
    high = PodTemplate({
        "hostNetwork": False, "terminationGracePeriodSeconds": 0,
        "nodeSelector": {"prec-a": "", "prec-c": None},
        "tolerations": [{"key": "prec-shared", "operator": "Exists"},
                        {"key": "prec-high", "operator": "Exists"}],
        "volumes": [{"name": "prec-volume", "emptyDir": {"sizeLimit": "2Mi"}}],
        "initContainers": [{"name": "prec-init", "image": "probe.example/high-init:1"}],
        "containers": [{"name": SIDECAR, "image": "probe.example/sidecar:1"},
                       {"name": "primary", "workingDir": "",
                        "env": [{"name": "PREC_ENV", "value": ""},
                                {"name": "PREC_HIGH", "value": "high"},
                                {"name": "PREC_GONE", "$patch": "delete"}],
                        "envFrom": [{"configMapRef": {"name": "prec-shared"}},
                                    {"configMapRef": {"name": "prec-high"}}]}],
    }, "primary", labels={"prec.podtemplate.io/label": ""}, source="precedence probe (high)")
    return low, high


# field -> how its probed part is picked out of a value (None: the value itself)
Pick = Callable[[Any], Any]


def _items(key: str, prefix: str) -> Pick:
    """Keyed or union list items whose ``key`` (a dotted member) starts with ``prefix``,
    and items without it (what a broken directive leaves)."""
    def pick(value: Any) -> Any:
        def ident(item: Any) -> str:
            for part in key.split("."):
                item = item.get(part) if isinstance(item, Mapping) else None
            return str(item)
        items = [i for i in value or () if isinstance(i, Mapping) and (
            ident(i).startswith(prefix) or ident(i) == "None")]
        return sorted(items, key=lambda i: repr(sorted(i.items())))
    return pick


def _keys(prefix: str) -> Pick:
    return lambda value: {k: v for k, v in (value or {}).items() if k.startswith(prefix)}


def _named(name: str) -> Pick:
    return lambda value: [i for i in value or () if isinstance(i, Mapping)
                          and i.get("name") == name]


PRECEDENCE_FIELDS: dict[str, Pick | None] = {
    "metadata.labels": _keys("prec."),
    "spec.hostNetwork": None,
    "spec.terminationGracePeriodSeconds": None,
    "spec.nodeSelector": _keys("prec-"),
    "spec.tolerations": _items("key", "prec-"),
    "spec.volumes": _items("name", "prec-"),
    "spec.initContainers": _named("prec-init"),
    "spec.containers": _named(SIDECAR),
    "spec.containers[primary].workingDir": None,
    "spec.containers[primary].env": _items("name", "PREC_"),
    "spec.containers[primary].envFrom": _items("configMapRef.name", "prec-"),
}


@dataclass(frozen=True)
class _Placed:
    """The sample task with templates at some layers, and what the kit put where."""

    task: Task
    override: PodTemplate | None
    cluster: PodTemplate | None


def _place(kit: Kit, templates: Mapping[str, PodTemplate | Mapping[str, PodTemplate]]
           ) -> _Placed:
    """``templates``: layer -> template (for ``role``: one per role name, or one for all)."""
    role = templates.get("role")
    if isinstance(role, PodTemplate):
        role = dict.fromkeys(kit.role_names, role)
    cluster = templates.get("cluster")
    name = None
    if isinstance(cluster, PodTemplate):
        name = kit.add_cluster_template(cluster)
    task_template = templates.get("task")
    override = templates.get("override")
    task = kit.sample_task(pod_template=task_template if isinstance(
        task_template, PodTemplate) else None, pod_template_name=name,
        role_templates=role if isinstance(role, Mapping) else None)
    return _Placed(task, override if isinstance(override, PodTemplate) else None,
                   cluster if isinstance(cluster, PodTemplate) else None)


def _layers(kit: Kit, placed: _Placed, role: RoleSpec) -> list[ExpectedLayer]:
    """The role's layers as the user wrote them (its Role read from the task's config)."""
    return expected_layers(placed.task, role, config=kit.user_role(placed.task, role),
                           cluster=placed.cluster, override=placed.override)


# ----------------------------------------------------------------------- precedence


def precedence_findings(kit: Kit) -> list[Finding]:
    """Every pair of probe layers, low and high: the high layer's values must win."""
    try:
        templates = precedence_templates()
    except PodTemplateError as error:
        return [Finding("precedence", kit.plugin, f"the precedence probe is rejected: {error}")]
    findings: list[Finding] = []
    for low, high in itertools.combinations(LAYERS, 2):
        where = f"{LAYER_NAMES[low]} under {LAYER_NAMES[high]}"
        try:
            placed = _place(kit, dict(zip((low, high), templates, strict=True)))
        except PodTemplateError as error:
            findings.append(Finding("precedence", kit.plugin, f"make_sample_task: {error}",
                                    layer=where))
            continue
        rendered = kit.render(placed.task, placed.override)
        if rendered.error is not None:
            findings.append(Finding("precedence", kit.plugin, rendered.error, layer=where))
            continue
        for role in rendered.roles:
            if "role" in (low, high) and kit.user_role(placed.task, role) is None:
                continue  # a role without a role config: the kit reports it apart
            findings += _compare(kit, rendered, placed, role, PRECEDENCE_FIELDS,
                                 check="precedence", where=where)
            findings += _primary_first(kit, rendered, role, where)
    return findings


def _primary_first(kit: Kit, rendered: Rendered, role: RoleSpec, where: str) -> list[Finding]:
    located = rendered.pods.get(role.name)
    containers = (located.pod.get("spec") or {}).get("containers") if located else None
    if not containers or containers[0].get("name") == located.primary:  # type: ignore[union-attr]
        return []
    return [Finding("precedence", kit.plugin,
                    f"a template listing the sidecar {SIDECAR!r} first moved it before the "
                    f"primary container: containers[0] is {containers[0].get('name')!r}",
                    role=role.name, field="spec.containers", layer=where)]


def _compare(kit: Kit, rendered: Rendered, placed: _Placed, role: RoleSpec,
             fields: Mapping[str, Pick | None], *, check: str, where: str) -> list[Finding]:
    located = rendered.pods.get(role.name)
    if located is None:
        return [Finding(check, kit.plugin, f"no pod found at {role.template_path!r}",
                        role=role.name, layer=where)]
    layers = _layers(kit, placed, role)
    primary = primary_name(placed.task, role)
    ideal = expected_pod(layers, primary, role)
    findings = []
    for path, pick in fields.items():
        if role.declared(path, located.pod, located.primary) is not None:
            continue
        chosen = pick or (lambda value: value)
        expected = chosen(field_value(ideal, path, primary))
        actual = chosen(field_value(located.pod, path, located.primary))
        if expected == actual or (expected is MISSING and actual in (MISSING, [], {})):
            continue
        sources = [layer.name for layer in layers
                   if chosen(field_value(layer.fragment, path, primary)) not in _NOTHING]
        came = f"the value of the {' over the '.join(reversed(sources))}" if sources else \
            "the value the layers leave"
        findings.append(Finding(check, kit.plugin, f"{came} did not arrive: expected "
                                f"{_short(expected)}, found {_short(actual)}",
                                role=role.name, field=path, layer=where))
    return findings


_NOTHING: tuple[Any, ...] = (MISSING, [], {})


# -------------------------------------------------------------- settings and roles

TASK_SETTINGS: dict[str, Any] = {"image": "probe.example/task-settings:1",
                 "env": {"PROBE_TASK_ENV": "task", "PROBE_SHARED_ENV": "task"},
                 "requests": Resources(cpu="123m"), "limits": Resources(memory="2345Mi")}
SETTINGS_TEMPLATE = PodTemplate({"containers": [{
    "name": "primary", "env": [{"name": "PROBE_TEMPLATE_ENV", "value": "template"}],
    "resources": {"requests": {"ephemeral-storage": "1Gi"},
                  "limits": {"ephemeral-storage": "2Gi"}}}]}, "primary",
    source="settings probe (task template)")
ROLE_FIELDS: dict[str, Pick | None] = {
    "metadata.labels": _keys("probe.podtemplate.io/role"),
    "spec.nodeSelector": _keys("probe.podtemplate.io/role"),
    "spec.tolerations": _items("key", "probe-role-"),
    "spec.containers[primary].image": None,
    "spec.containers[primary].env": _items("name", "PROBE_"),
    **{f"spec.containers[primary].resources.{side}.{name}": None
       for side in ("requests", "limits") for name in ("cpu", "memory", "ephemeral-storage")},
}


def role_settings(index: int, role: RoleSpec) -> dict[str, Any]:
    """The settings probe of one role: its replicas too where it declares them."""
    settings = {"image": f"probe.example/role-{index}:1",
                "env": {"PROBE_SHARED_ENV": f"role {role.name}", "PROBE_ROLE_ENV": role.name},
                "requests": Resources(memory=f"{101 + index}Mi"),
                "limits": Resources(cpu=f"{201 + index}m")}
    if role.replicas_path is not None:
        settings["replicas"] = 5 + index
    return settings


def role_template(role: str) -> PodTemplate:
    return PodTemplate({"nodeSelector": {"probe.podtemplate.io/role": _label(role)},
                        "tolerations": [{"key": f"probe-role-{_label(role)}",
                                         "operator": "Exists"}],
                        "containers": [{"name": "primary", "env": [
                            {"name": "PROBE_ROLE_TEMPLATE_ENV", "value": role}]}]},
                       "primary", labels={"probe.podtemplate.io/role": _label(role)},
                       source=f"per-role probe ({role})")


def role_findings(kit: Kit) -> list[Finding]:
    """Task settings, each role's own settings and template: each arrives on its role,
    merged key by key, and on no other role."""
    names = kit.role_names
    try:
        placed = _place(kit, {"task": SETTINGS_TEMPLATE,
                              "role": {name: role_template(name) for name in names}})
        task = with_settings(placed.task, kit.baseline.roles)
    except PodTemplateError as error:
        return [Finding("roles", kit.plugin, f"make_sample_task: {error}")]
    placed = _Placed(task, None, None)
    rendered = kit.render(task)
    if rendered.error is not None:
        return [Finding("roles", kit.plugin, rendered.error, layer="settings")]
    findings = []
    for role in rendered.roles:
        findings += _compare(kit, rendered, placed, role, ROLE_FIELDS, check="roles",
                             where=_ROLE_LAYERS)
        if role.role is None:
            findings += _no_role(kit, role)
        else:
            findings += _leaks(kit, rendered, placed, role, names)
            findings += _replicas(kit, rendered, role, names.index(role.name))
    return findings


_ROLE_LAYERS = "task and role settings (layers 3, 6), role template (layer 5)"


def _no_role(kit: Kit, role: RoleSpec) -> list[Finding]:
    if role.no_role_config is not None:
        return []
    return [Finding("roles", kit.plugin, "the role has no role config (RoleSpec.role is "
                    "None), so its role template and settings are silently lost; pass "
                    "role=... to its RoleSpec, or say why it takes none with "
                    "RoleSpec(no_role_config=...)", role=role.name, field="RoleSpec.role",
                    layer="role template (layer 5)")]


def _leaks(kit: Kit, rendered: Rendered, placed: _Placed, role: RoleSpec, names: list[str]
           ) -> list[Finding]:
    """Another role's config on this role, or another role's values in its pod that its
    own layers do not explain."""
    assert role.role is not None
    owner = {role_template(name): name for name in names}.get(role.role.pod_template)  # type: ignore[arg-type]
    if owner is not None and owner != role.name:
        return [Finding("roles", kit.plugin, f"the role carries role {owner!r}'s config: "
                        f"its RoleSpec.role is the Role given to {owner!r}, so {owner!r}'s "
                        "template and settings land here", role=role.name,
                        field="RoleSpec.role", layer="role template (layer 5)")]
    located = rendered.pods.get(role.name)
    if located is None:
        return []
    text, explained = repr(located.pod), repr(expected_pod(_layers(kit, placed, role)))
    findings = []
    for index, other in enumerate(names):
        marks = [f"probe-role-{_label(other)}'", f"'role {other}'",
                 f"probe.example/role-{index}:1"]
        leaked = [mark.strip("'") for mark in marks if mark in text and mark not in explained]
        if other != role.name and leaked:
            findings.append(Finding("roles", kit.plugin, f"values of role {other!r} "
                                    f"leaked into this role's pod: {', '.join(leaked)}",
                                    role=role.name, layer=_ROLE_LAYERS))
    return findings


def _replicas(kit: Kit, rendered: Rendered, role: RoleSpec, index: int) -> list[Finding]:
    located = rendered.pods.get(role.name)
    if role.replicas_path is None or located is None:
        return []
    expected = role_settings(index, role)["replicas"]
    found = walk(located.manifest, role.replicas_path)
    if found == expected:
        return []
    return [Finding("roles", kit.plugin, f"the role's replicas={expected} did not arrive at "
                    f"{role.replicas_path}: found {_short(found)}", role=role.name,
                    field="replicas", layer="role settings (layer 6)")]


def with_settings(task: Task, roles: Iterable[RoleSpec]) -> Task:
    """``task`` with the task settings probe, and each role's settings probe on the Role
    that carries that role's template probe, wherever it sits in the task's config."""
    settings = {role_template(role.name): role_settings(index, role)
                for index, role in enumerate(roles)}
    config = _replace_roles(task.task_config, settings)
    return dataclasses.replace(task, task_config=config, **TASK_SETTINGS)


def _replace_roles(value: Any, settings: Mapping[PodTemplate, dict[str, Any]]) -> Any:
    if isinstance(value, Role) and value.pod_template is not None and (
            value.pod_template in settings):
        return value.model_copy(update=settings[value.pod_template])
    if isinstance(value, BaseModel):
        changed = {name: new for name in type(value).model_fields
                   if (new := _replace_roles(old := getattr(value, name), settings)) is not old}
        return value.model_copy(update=changed) if changed else value
    if isinstance(value, (list, tuple)):
        items = [_replace_roles(item, settings) for item in value]
        if any(new is not old for new, old in zip(items, value, strict=True)):
            return type(value)(items)
    return value


def _label(role: str) -> str:
    """A role name as a label value (``worker:cpu`` -> ``worker-cpu``)."""
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in role)


def _short(value: Any) -> str:
    text = "nothing" if value is MISSING else repr(value)
    return text if len(text) <= 200 else text[:197] + "..."

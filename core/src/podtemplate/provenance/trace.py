"""``explain``: where every value of every pod came from.

Each role's pod is resolved as ``render`` resolves it, with provenance recorded and the
pod looked at after every layer. Between two looks, a value the layer set is a new value
(and what it replaced goes to ``overridden``), a value that is gone was removed by it.
The layers, files and lines come from :mod:`.sources`.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pluggy

from ..context import RenderContext
from ..dispatch import define_roles
from ..errors import InputError, PodTemplateError
from ..inputs import check_inputs_known
from ..manifest import get_path
from ..model.roles import RoleSpec
from ..model.task import Task
from ..model.templates import PodTemplate
from ..platform import Platform
from ..render import check_task_manifests, make_context
from ..resolve.layers import Layer
from ..resolve.pod import resolve_pod
from .sources import LAYERS, OPERATOR, Origin, Sources, layer_name
from .walk import Leaf, leaves

__all__ = ["LAYERS", "Explained", "RoleExplained", "ValueOrigin", "explain", "explain_task",
           "explain_tasks", "under"]


@dataclass
class ValueOrigin:
    """One value at one path, who set it, and what it replaced (lowest first)."""

    path: str
    value: Any
    origin: Origin
    overridden: list[ValueOrigin] = field(default_factory=list)
    parts: tuple[str, ...] = ()  # the path's steps: keys, and [key] or [index] of items


@dataclass
class RoleExplained:
    role: str
    values: list[ValueOrigin]
    removed: list[ValueOrigin]  # origin: who removed it

    def as_dict(self, prefix: str | None = None) -> dict[str, Any]:
        return {"role": self.role,
                "values": [_value_dict(v) for v in self.values if under(v.path, prefix)],
                "removed": [_removed_dict(v) for v in self.removed if under(v.path, prefix)]}

    def changes(self, prefix: str | None = None) -> list[dict[str, Any]]:
        """The layer stack as patches: per layer application, lowest first, what it set
        (and what that replaced) and what it removed."""
        steps: dict[int, dict[str, Any]] = {}

        def at(origin: Origin) -> dict[str, Any]:
            return steps.setdefault(origin.step, {"layer": origin.layer, "label": origin.label,
                                                  "set": [], "removed": []})
        for value in self.values:
            if not under(value.path, prefix):
                continue
            chain = [*value.overridden, value]
            for lower, higher in zip([None, *chain], chain, strict=False):
                at(higher.origin)["set"].append(_change(lower, higher))
        for gone in self.removed:
            if under(gone.path, prefix):
                for lower, higher in zip([None, *gone.overridden], gone.overridden,
                                         strict=False):
                    at(higher.origin)["set"].append(_change(lower, higher))
                at(gone.origin)["removed"].append(_removed_dict(gone))
        return [steps[step] for step in sorted(steps)]


@dataclass
class TaskExplained:
    task: str
    task_type: str
    roles: list[RoleExplained]


@dataclass
class Explained:
    """What :func:`explain` found, with ways to narrow it and to show it."""

    tasks: list[TaskExplained]

    def role_names(self) -> list[str]:
        return sorted({role.role for task in self.tasks for role in task.roles})

    def narrowed(self, role: str | None = None) -> Explained:
        """Only ``role``; an unknown role is bad input naming those that exist."""
        if role is None:
            return self
        if role not in self.role_names():
            raise InputError(f"no role {role!r} in the selected tasks",
                             field="--role", fix=f"use one of: {', '.join(self.role_names())}")
        return Explained([TaskExplained(t.task, t.task_type,
                                        [r for r in t.roles if r.role == role])
                          for t in self.tasks if any(r.role == role for r in t.roles)])

    def as_dict(self, prefix: str | None = None) -> dict[str, Any]:
        return {"tasks": [{"task": t.task, "roles": [r.as_dict(prefix) for r in t.roles]}
                          for t in self.tasks]}

    def diff_dict(self, prefix: str | None = None) -> dict[str, Any]:
        return {"tasks": [{"task": t.task, "roles": [{"role": r.role,
                                                      "layers": r.changes(prefix)}
                                                     for r in t.roles]}
                          for t in self.tasks]}


def _change(lower: ValueOrigin | None, higher: ValueOrigin) -> dict[str, Any]:
    entry = {"path": higher.path, "value": higher.value, "source": _source_dict(higher.origin)}
    if lower is not None:
        entry["was"] = {"value": lower.value, "layer": lower.origin.layer}
    return entry


def under(path: str, prefix: str | None) -> bool:
    """Whether ``path`` is ``prefix`` or below it (no prefix: every path)."""
    return not prefix or path == prefix or path.startswith((prefix + ".", prefix + "["))


def _source_dict(origin: Origin) -> dict[str, Any] | None:
    return origin.source.as_dict() if origin.source is not None else None


def _value_dict(value: ValueOrigin) -> dict[str, Any]:
    return {"path": value.path, "value": value.value, "layer": value.origin.layer,
            "source": _source_dict(value.origin), "detail": value.origin.detail,
            "overridden": [{"value": low.value, "layer": low.origin.layer,
                            "source": _source_dict(low.origin), "detail": low.origin.detail}
                           for low in value.overridden]}


def _removed_dict(value: ValueOrigin) -> dict[str, Any]:
    return {"path": value.path, "value": value.value, "layer": value.origin.layer,
            "source": _source_dict(value.origin), "detail": value.origin.detail}


# -------------------------------------------------------------------------- the fold


class _RoleTrace:
    """The pod of one role seen after each layer: what is current, what was removed."""

    def __init__(self, sources: Sources) -> None:
        self.sources = sources
        self.provenance: dict[str, str] = {}
        self.current: dict[str, ValueOrigin] = {}
        self.removed: list[ValueOrigin] = []
        self.step = 0
        self.last: dict[str, Leaf] = {}  # the previous look, for the paths of what goes

    def __call__(self, layer: Layer, pod: dict[str, Any]) -> None:
        self.step += 1
        now = leaves(pod, self.provenance)
        for ident, leaf in now.items():
            old = self.current.get(ident)
            if leaf.setter == layer.label and not _restated(old, leaf, layer) and not (
                    old is not None and old.origin.label == layer.label
                    and old.value == leaf.value):  # the same layer again (resolve/resources)
                origin = self.sources.origin(layer, self.step, leaf)
                lower = [] if old is None else [*old.overridden, _bare(old)]
                self.current[ident] = ValueOrigin(leaf.path, _copied(leaf.value), origin, lower,
                                                  leaf.parts)
            elif old is None:  # no layer set it: the primary container's own name
                self.current[ident] = ValueOrigin(leaf.path, _copied(leaf.value),
                                                  self.sources.finished(leaf, 0),
                                                  parts=leaf.parts)
            else:  # a union item moves when one before it goes
                old.path, old.parts = leaf.path, leaf.parts
        for ident in [i for i in self.current if i not in now]:
            gone = self.current.pop(ident)
            if _filled(gone.value, ident, now):
                continue  # an empty object or list a layer put values into: not removed
            seen = self.last.get(ident)
            leaf = Leaf(gone.path, ident, gone.value, seen.steps if seen else (), None)
            self.removed.append(ValueOrigin(
                gone.path, gone.value, self.sources.removal(layer, self.step, leaf, gone.origin),
                [*gone.overridden, _bare(gone)], gone.parts))
        self.last = now

    def finish(self, pod: dict[str, Any]) -> None:
        """Take in what resolution added after the layers (system labels...)."""
        self.step += 1
        current = {}
        for ident, leaf in leaves(pod, self.provenance).items():
            found = self.current.get(ident)
            if found is None or found.value != leaf.value:
                found = ValueOrigin(leaf.path, _copied(leaf.value),
                                    self.sources.finished(leaf, self.step), parts=leaf.parts)
            current[ident] = found
        self.current = current

    def built(self, template: Mapping[str, Any], kind: str) -> None:
        """Take in what the task type changed in the pod when it built its manifest
        (``template``: the role's PodTemplateSpec in it)."""
        self.step += 1
        current = {}
        now = leaves({k: template[k] for k in ("metadata", "spec") if k in template}, {})
        for ident, leaf in now.items():
            found = self.current.get(ident)
            if found is None or found.value != leaf.value:
                lower = [] if found is None else [*found.overridden, _bare(found)]
                origin = self.sources.built(leaf, self.step, kind)
                found = ValueOrigin(leaf.path, _copied(leaf.value), origin, lower, leaf.parts)
            current[ident] = found
        for ident, gone in self.current.items():
            if ident not in now:
                leaf = Leaf(gone.path, ident, gone.value, (), None)
                self.removed.append(ValueOrigin(
                    gone.path, gone.value, self.sources.built(leaf, self.step, kind, gone.origin),
                    [*gone.overridden, _bare(gone)], gone.parts))
        self.current = current

    def explained(self, role: str) -> RoleExplained:
        return RoleExplained(role, list(self.current.values()), self.removed)


def _filled(value: Any, ident: str, now: Mapping[str, Leaf]) -> bool:
    if value not in ({}, []):
        return False
    return any(other.startswith((ident + ".", ident + "[", ident + "{")) for other in now)


def _restated(old: ValueOrigin | None, leaf: Leaf, layer: Layer) -> bool:
    """Whether ``leaf`` is a keyed item's key that a layer only repeated to name the item
    it merges into (every layer that touches a container names it): the item's origin
    stays. The operator, which owns such names, is the exception."""
    if old is None or old.value != leaf.value or len(leaf.steps) < 2:
        return False
    item, key = leaf.steps[-2], leaf.steps[-1]
    return (item.kind == "keyed" and key.key in item.node.keys
            and layer_name(layer) != OPERATOR)


def _bare(value: ValueOrigin) -> ValueOrigin:
    return ValueOrigin(value.path, value.value, value.origin)


def _copied(value: Any) -> Any:
    return copy.deepcopy(value) if isinstance(value, (dict, list)) else value


def explain_role(task: Task, role: RoleSpec, context: RenderContext,
                 platform_file: str | None, files: dict[Any, Any]
                 ) -> tuple[_RoleTrace, dict[str, Any]]:
    """One role resolved with provenance: its trace, and its pod (for the manifests)."""
    own_primary = task.pod_template.primary_container_name if task.pod_template else "primary"
    primary = role.container_name or own_primary
    # A platform loaded from a file may remember it (``Platform.source``).
    platform_file = platform_file or getattr(context.platform, "source", None)
    trace = _RoleTrace(Sources(task, role, primary, context.platform, platform_file, files))
    pod = resolve_pod(task, role, context, provenance=trace.provenance, trace=trace)
    trace.finish(pod)
    return trace, pod


def explain_task(task: Task, context: RenderContext, *, platform_file: str | None = None,
                 files: dict[Any, Any] | None = None) -> TaskExplained:
    """Every role of one task explained. The task's manifests are built and checked as
    ``render`` does (so bad input fails here exactly as it fails there), and what the
    task type changes in a pod as it builds them is explained too."""
    files = {} if files is None else files
    try:
        roles = define_roles(task, context)
        traces, pods = {}, {}
        for role in roles:
            traces[role.name], pods[role.name] = explain_role(task, role, context,
                                                              platform_file, files)
        manifests = check_task_manifests(task, roles, pods, context)
    except PodTemplateError as error:
        raise error.located(task=task.name) from None
    for role in roles:
        for manifest in manifests:
            template = get_path(manifest, role.template_path)
            if isinstance(template, Mapping) and "spec" in template:
                traces[role.name].built(template, str(manifest.get("kind")))
                break
    return TaskExplained(task.name, task.task_type,
                         [traces[role.name].explained(role.name) for role in roles])


def explain_tasks(tasks: Iterable[Task], context: RenderContext, *,
                  platform_file: str | None = None) -> Explained:
    tasks = list(tasks)
    check_inputs_known(tasks, context.inputs)
    files: dict[Any, Any] = {}
    return Explained([explain_task(task, context, platform_file=platform_file, files=files)
                      for task in tasks])


def explain(tasks: Task | Iterable[Task], *, platform: Platform | str | Path | None = None,
            templates: str | Path | None = None, namespace: str | None = None,
            override: PodTemplate | str | Path | None = None,
            inputs: Mapping[str, str] | None = None,
            plugin_manager: pluggy.PluginManager | None = None) -> dict[str, Any]:
    """Where every value of every pod of ``tasks`` came from, as ``render`` would make
    them (same arguments). Returns ``{"tasks": [{"task", "roles": [{"role", "values":
    [{"path", "value", "layer", "source", "detail", "overridden"}], "removed": [...]}]}]}``.
    """
    if isinstance(tasks, Task):
        tasks = [tasks]
    context = make_context(platform=platform, templates=templates, namespace=namespace,
                           override=override, inputs=inputs, plugin_manager=plugin_manager,
                           provenance=True)
    platform_file = None if platform is None or isinstance(platform, Platform) else str(platform)
    return explain_tasks(tasks, context, platform_file=platform_file).as_dict()

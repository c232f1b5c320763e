"""The conformance kit's engine: render a task type's sample task with the probe at each
layer, find every role's pod and report, per role and field, what reached it.

Pure library code (no pytest): :class:`~podtemplate.testing.ConformanceSuite` and
``podtemplate coverage`` are thin shells over :class:`Kit`.

How a field is judged, for one role at one layer: the kit works out the role's pod from
the sample task's own definition with its reference merge, never core's resolution (the
*ideal* pod, :mod:`.oracle`, without the plugin's operator layer), keeps the part of the
probe value that survives there (a task's own image, say, overrides a template's image at
layers 1-2), and requires that part in the rendered pod found at ``RoleSpec.template_path``,
and not pruned by the operator's CRD. Declarations on the role (``owned``/``unsupported``
:class:`~podtemplate.FieldDecl`) exempt a field; a declaration whose reason starts with
``native:`` names the manifest path where the operator takes the value instead, and the
kit checks the value is there.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..dispatch import build_plugin_manager, define_roles, make_sample_task, task_types
from ..errors import PluginError, PodTemplateError
from ..hookspecs import hookimpl
from ..manifest import ROLE_LABEL, role_label_value
from ..model.roles import SCHEDULING_FIELDS, FieldDecl, RoleSpec, TaskType, applies
from ..model.task import Task
from ..model.templates import PodTemplate, Role
from ..platform import Platform
from ..render import make_context, render_task
from .compare import MISSING, contains, field_value, overlap, walk, without
from .oracle import (
    ConfigPath,
    ExpectedLayer,
    config_at,
    expected_layers,
    expected_pod,
    filled_in,
    role_config_paths,
)
from .pod_checks import pruned_fields
from .probe import PRIMARY, Probe, ProbeField, default_probe, top_path
from .results import LAYER_NAMES, LAYERS, NATIVE, Finding, Outcome, Result, native_path

__all__ = ["Kit", "Finding", "Outcome", "Rendered", "RolePod", "LAYERS", "LAYER_NAMES",
           "NATIVE", "SampleTaskFactory"]

SampleTaskFactory = Callable[[PodTemplate | None, str | None, Mapping[str, PodTemplate]], Task]


@dataclass(frozen=True)
class RolePod:
    """Where a role's pod was found: the manifest, its index and the pod inside it."""

    index: int
    manifest: Mapping[str, Any]
    pod: Mapping[str, Any]
    path: str
    primary: str


@dataclass
class Rendered:
    """One render of the sample task, with what the kit derived from it."""

    task: Task | None
    manifests: list[dict[str, Any]] = field(default_factory=list)
    roles: list[RoleSpec] = field(default_factory=list)
    pods: dict[str, RolePod | None] = field(default_factory=dict)
    ideal: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    layers: dict[str, list[ExpectedLayer]] = field(default_factory=dict)
    error: str | None = None
    failure: PodTemplateError | None = None  # the error behind ``error``


class ProbeStore:
    """A template store plugin holding the probe variants as cluster templates."""

    def __init__(self, templates: Mapping[str, PodTemplate]) -> None:
        self.templates = dict(templates)

    @hookimpl
    def podtemplate_make_template_store(self, context: Any) -> ProbeStore:
        return self

    def get(self, namespace: str, name: str) -> PodTemplate | None:
        return self.templates.get(name)

    def names(self) -> list[tuple[str, str]]:
        return sorted(("default", name) for name in self.templates)


def store_name(variant: int) -> str:
    return f"podtemplate-probe-{variant}"


class Kit:
    """The conformance kit for one task type.

    ``make_sample_task(pod_template, pod_template_name, role_templates)`` builds the
    sample task; by default the plugins' ``podtemplate_make_sample_task`` hook does.
    ``extra_plugins`` are registered on the plugin manager besides the installed ones.
    ``variant`` names one of the task type's :attr:`TaskType.variants`: the kit renders
    with those ``taskTypes`` settings on the platform.
    """

    def __init__(self, task_type: str, *, extra_plugins: Iterable[object] = (),
                 make_sample_task: SampleTaskFactory | None = None,
                 probe: Probe | None = None, platform: Platform | None = None,
                 variant: str | None = None) -> None:
        self.task_type = task_type
        self.variant = variant
        self.probe = probe or default_probe()
        self.store = ProbeStore({store_name(v): t for v, t in enumerate(self.probe.templates)})
        self.manager = build_plugin_manager([*extra_plugins, self.store])
        self.platform = self._with_variant(platform or Platform())
        self._make = make_sample_task or self._from_hook
        self._renders: dict[tuple[str, int], Rendered] = {}
        self._layers: dict[str, tuple[list[Outcome], list[Finding]]] = {}
        self._paths: dict[tuple[str, ...], dict[str, ConfigPath]] = {}
        self._snapshot = _fingerprint(self.probe.templates)

    # ------------------------------------------------------------------ the task type

    @cached_property
    def info(self) -> TaskType:
        try:
            return task_types(self.manager)[self.task_type]
        except KeyError:
            raise PluginError(f"task type {self.task_type!r} is not installed",
                              fix=f"pip install podtemplate-{self.task_type}") from None

    @property
    def plugin(self) -> str:
        variant = f", variant '{self.variant}'" if self.variant else ""
        return f"plugin {self.info.distribution} (task type '{self.task_type}'{variant})"

    @property
    def label(self) -> str:
        """The task type, with its variant: ``pytorch[trainer]``."""
        return f"{self.task_type}[{self.variant}]" if self.variant else self.task_type

    def _with_variant(self, platform: Platform) -> Platform:
        if self.variant is None:
            return platform
        settings = self.info.variants.get(self.variant)
        if settings is None:
            raise PluginError(f"task type {self.task_type!r} has no variant "
                              f"{self.variant!r} (it has: {', '.join(self.info.variants)})",
                              fix="name one of the task type's TaskType.variants")
        task_types = {**platform.task_types, self.task_type: dict(settings)}
        return platform.model_copy(update={"task_types": task_types})

    def _from_hook(self, pod_template: PodTemplate | None, pod_template_name: str | None,
                   role_templates: Mapping[str, PodTemplate]) -> Task:
        return make_sample_task(self.manager, self.task_type, pod_template=pod_template,
                                pod_template_name=pod_template_name,
                                role_templates=role_templates)

    def sample_task(self, pod_template: PodTemplate | None = None,
                    pod_template_name: str | None = None,
                    role_templates: Mapping[str, PodTemplate] | None = None) -> Task:
        return self._make(pod_template, pod_template_name, dict(role_templates or {}))

    def add_cluster_template(self, template: PodTemplate) -> str:
        """Put ``template`` in the kit's template store; returns the name to use."""
        name = f"podtemplate-probe-extra-{len(self.store.templates)}"
        self.store.templates[name] = template
        return name

    @cached_property
    def baseline(self) -> Rendered:
        """The sample task rendered without any probe."""
        return self.render(self.sample_task())

    @property
    def role_names(self) -> list[str]:
        return [role.name for role in self.baseline.roles]

    def role_paths(self, names: Sequence[str]) -> dict[str, ConfigPath]:
        """Where the :class:`Role` of each role of ``names`` sits in the task config,
        found once from a sample task given a marker template per role: what the user
        wrote for a role is read there, never from the plugin's ``RoleSpec.role``."""
        key = tuple(names)
        if key not in self._paths:
            from .scenarios import role_template

            markers = {name: role_template(name) for name in names}
            try:
                task = self.sample_task(role_templates=markers)
            except PodTemplateError:
                task = None  # the probe renders report the sample task's error
            self._paths[key] = {} if task is None else role_config_paths(task.task_config,
                                                                         markers)
        return self._paths[key]

    def user_role(self, task: Task, role: RoleSpec, names: Sequence[str] | None = None
                  ) -> Role | None:
        """The Role the user gave ``role`` in ``task``'s config, if any, with what the
        plugin's Role adds to it (:func:`~.oracle.filled_in`); ``names``: the task type's
        roles, by default the sample task's."""
        path = self.role_paths(self.role_names if names is None else names).get(role.name)
        return None if path is None else filled_in(config_at(task.task_config, path),
                                                     role.role)

    # ------------------------------------------------------------------ rendering

    def render(self, task: Task, override: PodTemplate | None = None) -> Rendered:
        """Render ``task`` and locate every role's pod and ideal pod."""
        # The kit checks the CRD itself (pod_checks), field by field: a pruned field is
        # LOST there, where the render would fail as a whole.
        context = make_context(platform=self.platform, override=override,
                               plugin_manager=self.manager, check_crds=False)
        try:
            manifests = render_task(task, context)
            roles = define_roles(task, context)
        except PodTemplateError as error:
            return Rendered(task=task, error=str(error), failure=error)
        rendered = Rendered(task=task, manifests=manifests, roles=roles)
        cluster = self.store.templates.get(task.pod_template_name or "")
        for role in roles:
            rendered.pods[role.name] = self._locate(role, manifests, task)
            config = self.user_role(task, role, [r.name for r in roles])
            layers = expected_layers(task, role, config=config, cluster=cluster,
                                     override=override)
            rendered.layers[role.name] = layers
            rendered.ideal[role.name] = expected_pod(layers)
        return rendered

    def _locate(self, role: RoleSpec, manifests: Sequence[dict[str, Any]],
                task: Task) -> RolePod | None:
        own = task.pod_template.primary_container_name if task.pod_template else PRIMARY
        primary = role.container_name or own
        found = []
        for index, manifest in enumerate(manifests):
            pod = walk(manifest, role.template_path)
            if isinstance(pod, Mapping) and isinstance(pod.get("spec"), Mapping):
                found.append(RolePod(index, manifest, pod, role.template_path, primary))
        for candidate in found:
            labels = (candidate.pod.get("metadata") or {}).get("labels") or {}
            if labels.get(ROLE_LABEL) == role_label_value(role.name):
                return candidate
        return found[0] if found else None

    def layer_render(self, layer: str, variant: int) -> Rendered:
        """The sample task with probe variant ``variant`` at ``layer`` (cached)."""
        key = (layer, variant)
        if key not in self._renders:
            template = self.probe.templates[variant]
            try:
                if layer == "cluster":
                    task = self.sample_task(pod_template_name=store_name(variant))
                elif layer == "task":
                    task = self.sample_task(pod_template=template)
                elif layer == "role":
                    task = self.sample_task(role_templates=dict.fromkeys(self.role_names,
                                                                         template))
                else:
                    task = self.sample_task()
            except PodTemplateError as error:
                self._renders[key] = Rendered(task=None, error=f"make_sample_task: {error}")
                return self._renders[key]
            self._renders[key] = self.render(task, template if layer == "override" else None)
        return self._renders[key]

    def renders(self) -> Iterable[tuple[str, int, Rendered]]:
        for layer in LAYERS:
            for variant in range(len(self.probe.templates)):
                yield layer, variant, self.layer_render(layer, variant)

    # ------------------------------------------------------------------ the probe check

    def probe_layer(self, layer: str) -> tuple[list[Outcome], list[Finding]]:
        """Outcomes of every probed field for every role at ``layer``, and the failures,
        each saying whether the field arrives from other layers (then this layer is what
        the role drops) or from none."""
        outcomes, findings = self._judged(layer)
        return outcomes, [self._name_dropped(finding) for finding in findings]

    def _judged(self, layer: str) -> tuple[list[Outcome], list[Finding]]:
        if layer not in self._layers:
            self._layers[layer] = self._probe_layer(layer)
        return self._layers[layer]

    def _name_dropped(self, finding: Finding) -> Finding:
        if finding.check != "probe" or finding.layer is None:
            return finding
        reached = [other for other in LAYERS if other != finding.layer and any(
            o.role == finding.role and o.field == finding.field and o.result == "reached"
            for o in self._judged(other)[0])]
        this = LAYER_NAMES[finding.layer]
        if reached:
            why = (f"the field arrives from the {', '.join(LAYER_NAMES[r] for r in reached)}"
                   f" but not from the {this}: the {this} is dropped for this role")
        else:
            why = "the field arrives from no layer: the role drops it whatever sets it"
        return dataclasses.replace(finding, message=f"{finding.message}; {why}")

    def _probe_layer(self, layer: str) -> tuple[list[Outcome], list[Finding]]:
        outcomes: list[Outcome] = []
        findings: list[Finding] = []
        for variant in range(len(self.probe.templates)):
            rendered = self.layer_render(layer, variant)
            fields = [f for f in self.probe.fields if f.variant == variant]
            if rendered.error is not None:
                findings.append(Finding("render", self.plugin, rendered.error, layer=layer))
                outcomes += [Outcome(role, f.label, layer, "lost", f"render failed: "
                                     f"{rendered.error}")
                             for role in self.role_names for f in fields]
                continue
            pruned = pruned_fields(self, rendered)
            for role in rendered.roles:
                carried = self._carried(layer, variant, rendered, role)
                if carried is not None:
                    if carried:
                        findings.append(Finding("sample", self.plugin, carried,
                                                role=role.name, layer=layer))
                    why = carried or role.no_role_config or "the role takes no role template"
                    outcomes += [Outcome(role.name, f.label, layer, "n/a", why) for f in fields]
                    continue
                for f in fields:
                    outcome = self._judge(layer, rendered, role, f, pruned)
                    outcomes.append(outcome)
                    if outcome.result == "lost":
                        findings.append(Finding("probe", self.plugin, outcome.reason,
                                                role=role.name, field=f.label, layer=layer))
        return outcomes, findings

    def _carried(self, layer: str, variant: int, rendered: Rendered,
                 role: RoleSpec) -> str | None:
        """None when the probe went into the task as asked; else "" for a role that has no
        role template (layer 5 does not apply), or what the sample task got wrong."""
        task = rendered.task
        assert task is not None
        template = self.probe.templates[variant]
        if layer == "cluster" and task.pod_template_name != store_name(variant):
            return "make_sample_task ignored pod_template_name"
        if layer == "task" and task.pod_template != template:
            return "make_sample_task ignored pod_template"
        if layer == "role":
            config = self.user_role(task, role)
            if config is None and role.role is None:
                return ""
            if config is None or config.pod_template != template:
                return (f"make_sample_task ignored role_templates[{role.name!r}]: no Role of "
                        "the task's config carries the template passed in")
        return None

    def _judge(self, layer: str, rendered: Rendered, role: RoleSpec, probe_field: ProbeField,
               pruned: Mapping[tuple[str, str], str]) -> Outcome:
        path, shown = probe_field.path, probe_field.label
        located = rendered.pods.get(role.name)
        decl = role.declared(path, *((located.pod, located.primary) if located else ()))
        if decl is not None and native_path(decl) is None:
            kind: Result = "owned" if decl in role.owned else "unsupported"
            return Outcome(role.name, shown, layer, kind, _reason(decl))
        if located is None:
            return Outcome(role.name, shown, layer, "lost",
                           f"no pod found at template_path {role.template_path!r} in any "
                           "manifest of the task")
        expected, consumed = self._expected(rendered, role, probe_field, located)
        if expected is MISSING and consumed is not None:  # the probed part is declared
            kind = "owned" if consumed in role.owned else "unsupported"
            return Outcome(role.name, shown, layer, kind, f"{consumed.path}: {_reason(consumed)}")
        if expected is MISSING:
            return Outcome(role.name, shown, layer, "untestable",
                           _why_untestable(layer, role, path))
        if decl is not None:
            plain = self.baseline.pods.get(role.name)
            return _judge_native(role, shown, layer, decl, located, expected,
                                 plain.manifest if plain is not None else None)
        if (role.name, top_path(path)) in pruned:
            return Outcome(role.name, shown, layer, "lost",
                           pruned[(role.name, top_path(path))])
        actual = field_value(located.pod, path, located.primary)
        if contains(actual, expected) or self._as_if_unset(role, path, expected, actual):
            return Outcome(role.name, shown, layer, "reached")
        where = f"{located.path or 'the manifest'} of manifest #{located.index}"
        return Outcome(role.name, shown, layer, "lost",
                       f"probe value did not reach the pod at {where}: expected "
                       f"{_short(expected)}, found {_short(actual)}")

    def _as_if_unset(self, role: RoleSpec, path: str, expected: Any, actual: Any) -> bool:
        """An empty string or list is no value to the API server (its Go types omit it):
        a pod holding what the plain sample task's pod holds there is right too."""
        if expected not in ("", []):
            return False
        plain = self.baseline.pods.get(role.name)
        return plain is not None and actual == field_value(plain.pod, path, plain.primary)

    def _expected(self, rendered: Rendered, role: RoleSpec, probe_field: ProbeField,
                  located: RolePod) -> tuple[Any, FieldDecl | None]:
        """The part of the probe value the role must deliver, and the declaration that
        took the last of it when declared sub-fields leave nothing."""
        ideal = rendered.ideal.get(role.name)
        resolved = (field_value(ideal, probe_field.path, located.primary) if ideal is not None
                    else probe_field.value)
        expected = overlap(probe_field.value, resolved)
        for decl, subpath in sub_declarations(role, probe_field.path, located.pod,
                                              located.primary):
            if expected is not MISSING:
                expected = without(expected, subpath)
                if expected is MISSING:
                    return MISSING, decl
        return expected, None

    # ------------------------------------------------------------------ all layers

    def outcomes(self) -> list[Outcome]:
        return [o for layer in LAYERS for o in self.probe_layer(layer)[0]]

    def unproven(self) -> list[Finding]:
        """Fields never reached at any layer, for a role, without being lost or declared:
        the sample task's own settings hide the probe everywhere, so nothing shows the
        plugin would deliver them."""
        settled: set[tuple[str, str]] = set()
        seen: dict[tuple[str, str], list[str]] = {}
        for outcome in self.outcomes():
            key = (outcome.role, outcome.field)
            if outcome.result in ("untestable", "n/a"):
                seen.setdefault(key, []).append(outcome.reason)
            else:
                settled.add(key)
        return [Finding("unproven", self.plugin, "the probe reached no layer for this role: "
                        + "; ".join(sorted(set(reasons))), role=role, field=field)
                for (role, field), reasons in seen.items() if (role, field) not in settled]

    def inputs_unmutated(self) -> list[Finding]:
        """The probe templates (inputs of every render) are unchanged after all renders."""
        list(self.renders())
        if _fingerprint(self.probe.templates) == self._snapshot:
            return []
        return [Finding("mutation", self.plugin, "a render mutated its input templates "
                        "(a probe template changed); hooks must copy what they change")]


def sub_declarations(role: RoleSpec, path: str, pod: Mapping[str, Any] | None = None,
                     primary: str = PRIMARY) -> list[tuple[FieldDecl, str]]:
    """Declared parts of the field ``path``, relative to it: ``resources.claims`` for a
    declaration ``spec.containers[*].resources.claims`` and the field
    ``spec.containers[x].resources``; with ``pod``, only those whose condition holds."""
    item = re.search(r"\[([^\]]+)\]", path)
    parts = []
    for decl in (*role.owned, *role.unsupported):
        concrete = decl.path.replace("[*]", f"[{item.group(1)}]") if item else decl.path
        if concrete.startswith(path + ".") and applies(decl, pod, primary):
            parts.append((decl, concrete[len(path) + 1:]))
    return parts


def _judge_native(role: RoleSpec, path: str, layer: str, decl: FieldDecl, located: RolePod,
                  expected: Any, plain: Mapping[str, Any] | None) -> Outcome:
    """The value at the native path; an empty one may also leave what the plain sample
    task's manifest (``plain``) holds there (see :meth:`Kit._as_if_unset`)."""
    target = native_path(decl)
    assert target is not None
    found = walk(located.manifest, target)
    unset = expected in ("", []) and plain is not None and found == walk(plain, target)
    if contains(found, expected) or unset:
        return Outcome(role.name, path, layer, "native", decl.reason)
    return Outcome(role.name, path, layer, "lost",
                   f"declared {decl.reason!r}, but {target} holds {_short(found)}, not "
                   f"{_short(expected)}")


def _reason(decl: FieldDecl) -> str:
    return f"{decl.reason} ({decl.when})" if decl.when is not None else decl.reason


def _why_untestable(layer: str, role: RoleSpec, path: str) -> str:
    top = path.split(".")[1].split("[")[0] if path.startswith("spec.") else path
    if role.inherit == "scheduling" and layer in ("task", "override") and (
            top not in SCHEDULING_FIELDS and not path.startswith("metadata.")):
        return "the role inherits only scheduling fields from the task (inherit='scheduling')"
    return "the sample task's own settings override the probe value at this layer"


def _short(value: Any) -> str:
    text = "nothing" if value is MISSING else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 160 else text[:157] + "..."


def _fingerprint(templates: Sequence[PodTemplate]) -> str:
    return json.dumps([copy.deepcopy((t.pod_spec, t.labels, t.annotations)) for t in templates],
                      sort_keys=True)

"""Resolution: fold the layers of a pod (docs/design.md) into the final pod of one role."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..context import RenderContext
from ..errors import DefinitionError, PodTemplateError
from ..files.store import find_template
from ..images import resolve_pod_images
from ..manifest import SYSTEM_LABELS, add_system_metadata
from ..merge._fast import Cow
from ..merge.aliases import MAGIC_CONTAINER_NAMES, PRIMARY_CONTAINER
from ..merge.engine import expand_container_aliases, merge_into
from ..merge.rules import DELETE, PATCH
from ..model.names import parse_quantity
from ..model.podspec import validate_pod_template_spec
from ..model.roles import RoleSpec
from ..model.task import Task
from ..model.templates import PodTemplate, Role
from ..policy.attribution import layer_kind
from ..policy.enforce import enforce_layer, fold_enforce
from ._fast import (
    Fold,
    aliases_expanded,
    composed_runs,
    composed_valid,
    empty_pod,
    expanded_spec,
    has_magic_names,
    layer_proven,
    primary_only,
    shareable,
    started_pod,
)
from .flyte import resource_tolerations, task_pod_settings, tolerations_layer
from .layers import (
    Layer,
    resources_fragment,
    scheduling_only,
    settings_layer,
    settings_parts,
    template_layer,
    without_task_resources,
)
from .resources import reconcile_limits

__all__ = [
    "LAYER_ORDER",
    "SYSTEM_LABELS",
    "Trace",
    "cluster_template",
    "late_platform_layers",
    "named_template",
    "resolve_pod",
    "role_primary",
    "task_layers",
    "operator_layer",
    "platform_pod",
]



def cluster_template(task: Task, context: RenderContext) -> tuple[str, PodTemplate] | None:
    """Layer 1: the task's named template, else the platform default, else None."""
    name = task.pod_template_name or context.platform.default_template
    if name is None:
        return None
    try:
        found = named_template(name, context, required=task.pod_template_name is not None)
    except PodTemplateError as error:
        raise error.located(task=task.name) from None
    if found is None:
        return None
    namespace, template = found
    return f"cluster template {namespace}/{name}", template


def named_template(name: str, context: RenderContext, *, required: bool
                   ) -> tuple[str, PodTemplate] | None:
    """``(namespace, template)`` of the cluster template ``name``, looked up once per
    render; a required template that is missing is an error naming what exists."""
    key = f"cluster:{name}"
    if key not in context.cache or (required and context.cache[key] is None):
        context.cache[key] = find_template(context.store, name,
                                           context.platform.lookup_namespaces,
                                           required=required)
    found: tuple[str, PodTemplate] | None = context.cache[key]
    return found


def _interruptible(task: Task, role_spec: RoleSpec) -> bool:
    if role_spec.interruptible is not None:
        return role_spec.interruptible
    if role_spec.role is not None and role_spec.role.interruptible is not None:
        return role_spec.role.interruptible
    return task.interruptible and role_spec.task_interruptible


def task_layers(task: Task, role_spec: RoleSpec, context: RenderContext,
                primary: str) -> list[Layer]:
    """Layers 1-6 of one role, lowest first. Kept on the role spec (made for one task
    and one render) while the task renders: a plugin that inspects them (before or after
    resolution) does not build them again."""
    return [layer for layer, _ in _layer_entries(task, role_spec, context, primary)]


def _layer_entries(task: Task, role_spec: RoleSpec, context: RenderContext,
                   primary: str) -> tuple[tuple[Layer, bool], ...]:
    """``(layer, made from the definition alone)`` of layers 1-6, remembered on the role
    spec while the task renders."""
    return role_spec.remember_layers(
        task, context, primary, lambda: tuple(_task_layers(task, role_spec, context, primary)))


def _settings_parts(owner: Task | Role, gpu: str
                    ) -> tuple[list[dict[str, str]], dict[str, Any]]:
    """The env list and resources of a task's or role's settings: the env list as it was
    compiled when the task or role was defined (kept on it, read by every role of every
    render), the resources made here (small, and they depend on the platform)."""
    env: list[dict[str, str]] = owner.compiled("env", lambda: settings_parts(
        owner.env, None, None, gpu)[0])
    return env, resources_fragment(owner.requests, owner.limits, gpu)


@dataclass(frozen=True)
class _RoleInputs:
    """What the layer builders of one role read."""

    task: Task
    role_spec: RoleSpec
    context: RenderContext
    primary: str
    scheduling: bool  # the role takes only the scheduling fields of the task's layers
    warm: bool  # the task rendered this role before (see _renders)


def _cluster_template_layer(of: _RoleInputs) -> Layer | None:
    found = cluster_template(of.task, of.context)
    if found is None:
        return None
    return _template_layer(of.context, found[0], found[1], PRIMARY_CONTAINER,
                           without_task_resources if of.scheduling else None)


def _interruptible_layer(of: _RoleInputs) -> Layer | None:
    if not (_interruptible(of.task, of.role_spec) and of.context.platform.interruptible):
        return None
    return _platform_layer(of.context, "interruptible")


def _task_template_layer(of: _RoleInputs) -> Layer | None:
    own = of.task.pod_template
    return None if own is None else _own_template_layer(of, "task template", own)


def _task_override_layer(of: _RoleInputs) -> Layer | None:
    own = of.task.override
    return None if own is None else _own_template_layer(of, "task override", own)


def _run_override_layer(of: _RoleInputs) -> Layer | None:
    own = of.context.override
    return None if own is None else _own_template_layer(of, "run override", own)


def _own_template_layer(of: _RoleInputs, label: str, own: PodTemplate) -> Layer:
    """A template the task or the run brings, narrowed to the scheduling fields for a
    role that inherits only those."""
    return _template_layer(of.context, label, own, None,
                           scheduling_only if of.scheduling else None)


def _task_settings_layer(of: _RoleInputs) -> Layer | None:
    if of.scheduling:
        return None
    task, platform = of.task, of.context.platform
    gpu = platform.gpu_resource_name
    accelerator = platform.accelerator_label if task.accelerator else None

    def make() -> Layer | None:
        parts = _settings_parts(task, gpu)
        pod = task_pod_settings(task, of.primary, of.context)  # accelerator, shared memory
        return settings_layer("task settings", parts, primary=of.primary, image=task.image,
                              command=task.command, args=task.args, pod=pod)

    return _settings_kept(of, task, ("settings layer", of.primary, gpu, accelerator), make)


def _role_named_template_layer(of: _RoleInputs) -> Layer | None:
    role = of.role_spec.role
    if role is None or not role.pod_template_name:
        return None
    return _role_named_template(role.pod_template_name, of.role_spec.name, of.context,
                                config_role=of.role_spec.config_role)


def _role_template_layer(of: _RoleInputs) -> Layer | None:
    role = of.role_spec.role
    if role is None or role.pod_template is None:
        return None
    return _template_layer(of.context, f"role template ({of.role_spec.name})",
                           role.pod_template, None, None)


def _role_settings_layer(of: _RoleInputs) -> Layer | None:
    role = of.role_spec.role
    if role is None:
        return None
    gpu, name = of.context.platform.gpu_resource_name, of.role_spec.name

    def make() -> Layer | None:
        return settings_layer(f"role settings ({name})", _settings_parts(role, gpu),
                              primary=of.primary, image=role.image)

    return _settings_kept(of, role, ("settings layer", name, of.primary, gpu), make)


def _settings_kept(of: _RoleInputs, owner: Task | Role, key: Hashable,
                   make: Callable[[], Layer | None]) -> Layer | None:
    """A settings layer, from the task's second render on kept on its owner (the task or
    the role) under ``key``: the same layer object every render, so what is composed from
    it is kept too (_fast). A one-off render keeps nothing: its memory stays flat in the
    tasks."""
    return owner.compiled(key, make) if of.warm else make()


# The layers made from the task and its roles alone (not from the platform or the run):
# where they follow one another, the fold takes them composed once (resolve._fast).
DEFINITION_LAYERS = frozenset({"task template", "task settings", "task override",
                               "role template", "role settings"})
# The layers of one role, lowest first: where two set the same field, the later one wins.
# This list is the order; nothing else in the code base restates it. After these come the
# platform's defaultResources (filling only what is still unset) and, last, the operator
# layer of the task type (RoleSpec.operator_layer).
LAYER_ORDER: tuple[tuple[str, Callable[[_RoleInputs], Layer | None]], ...] = (
    ("cluster template", _cluster_template_layer),            # 1: named, else default
    ("platform interruptible", _interruptible_layer),         # 1: interruptible tasks
    ("task template", _task_template_layer),                  # 2: the task's own
    ("task settings", _task_settings_layer),                  # 3: image, env, resources
    ("task override", _task_override_layer),                  # 4: task.with_overrides()
    ("run override", _run_override_layer),                    # 4: render --override
    ("role cluster template", _role_named_template_layer),    # 5: a role's named template
    ("role template", _role_template_layer),                  # 5: a role's inline template
    ("role settings", _role_settings_layer),                  # 6: a role's image, env...
)


def _renders(task: Task, role: str, primary: str) -> list[int]:
    """How many renders made this role's layers for the task: a counter kept on the task
    (a few bytes), so that what only later renders reuse - settings layers kept, layers
    composed - is made from the second render on, not by a one-off render."""
    counter: list[int] = task.compiled(("renders", role, primary), lambda: [0])
    return counter


def _task_layers(task: Task, role_spec: RoleSpec, context: RenderContext,
                 primary: str) -> list[tuple[Layer, bool]]:
    counter = _renders(task, role_spec.name, primary)
    counter[0] += 1  # once per render: the layers are remembered on the role spec
    inputs = _RoleInputs(task, role_spec, context, primary,
                         scheduling=role_spec.inherit == "scheduling", warm=counter[0] > 1)
    return [(layer, name in DEFINITION_LAYERS) for name, build in LAYER_ORDER
            if (layer := build(inputs)) is not None]


def _template_layer(context: RenderContext, label: str, template: PodTemplate,
                    alias: str | None, narrow: Callable[[Layer], Layer] | None) -> Layer:
    """The layer of a template: made once and kept on the template."""
    return template_layer(label, template, alias=alias, narrow=narrow)


def _platform_layer(context: RenderContext, variant: str) -> Layer:
    """The platform's interruptible fragment as a layer, made once per platform."""
    return context.platform.compiled(
        variant, lambda: Layer("platform interruptible",
                               {"spec": context.platform.interruptible},
                               source=context.platform, variant=variant))


def _role_named_template(name: str, role: str, context: RenderContext, *,
                         config_role: str | None = None) -> Layer:
    """Layer 5a: the cluster template a role names (before the role's inline template);
    an error names the config field the user wrote (``config_role``'s when set)."""
    try:
        found = named_template(name, context, required=True)
    except PodTemplateError as error:
        error.field = f"task_config.{config_role or role}.pod_template_name"
        raise error.located() from None
    assert found is not None  # a required template is never missing without an error
    namespace, template = found
    return _template_layer(context, f"role cluster template ({role}) {namespace}/{name}",
                           template, PRIMARY_CONTAINER, None)


def _container_names(layers: list[Layer], primary: str) -> tuple[list[str], list[str]]:
    """The role's container names (primary first) and init container names, in the
    order the layers introduce them."""
    names: list[str] = [primary]
    init_names: list[str] = []
    for layer in layers:
        containers, init_containers = layer.container_names()
        alias = layer.primary_alias
        for name in containers:
            if name == alias:
                name = primary
            if name not in MAGIC_CONTAINER_NAMES and name not in names:
                names.append(name)
        for name in init_containers:
            if name not in MAGIC_CONTAINER_NAMES and name not in init_names:
                init_names.append(name)
    return names, init_names


def _fold(acc: dict[str, Any], layer: Layer, *, primary: str, names: Sequence[str],
          init_names: Sequence[str], provenance: dict[str, str] | None,
          cow: Cow | None) -> None:
    """Fold one layer into ``acc``: the layer's magic container names resolved for this
    role, then the one merge (copy-on-write, unless provenance is recorded)."""
    fragment = layer.fragment
    if provenance is None and layer.proven:
        container = primary_only(fragment, primary, acc, cow)
        if container is not None:
            # The one merge, entered at the primary container instead of the pod's root.
            if cow is not None:
                cow.share = layer.clean
            merge_into(container, fragment["spec"]["containers"][0],
                       root="spec.containers[]", cow=cow)
            return
    expansion = None
    spec = fragment.get("spec")
    if spec is not None and has_magic_names(spec, primary, layer.primary_alias):
        def expand() -> Mapping[str, Any]:
            return aliases_expanded(spec, primary, layer.primary_alias, lambda: (
                expand_container_aliases(
                    spec, primary_name=primary, layer_primary_name=layer.primary_alias,
                    container_names=names, init_container_names=init_names)))

        expansion, expanded = expanded_spec(layer, primary, names, init_names, expand)
        fragment = {**fragment, "spec": expanded}
    if cow is not None:
        cow.share = shareable(layer, fragment, expansion)
    merge_into(acc, fragment, root="", layer=layer.label, provenance=provenance, cow=cow)


def _check_primary_kept(acc: dict[str, Any], primary: str, layers: list[Layer]) -> None:
    """The layers may delete any container but the task's own."""
    if any(c.get("name") == primary for c in acc["spec"].get("containers") or ()):
        return
    culprit = next((layer.label for layer in reversed(layers) if any(
        isinstance(c, Mapping) and c.get("name") == primary and c.get(PATCH) == DELETE
        for c in (layer.fragment.get("spec") or {}).get("containers") or ())), None)
    raise DefinitionError(
        f"{culprit or 'a layer'} deletes the primary container {primary!r}",
        field=f"spec.containers[{primary}]",
        fix="the task's own container cannot be deleted; delete its fields instead")


def _fill_default_resources(acc: dict[str, Any], primary: str, context: RenderContext
                            ) -> Layer | None:
    """Fill the primary container's unset requests/limits from ``defaultResources``,
    never producing a request above its limit (a default limit rises to the request, a
    default request falls to the limit)."""
    defaults = context.platform.default_resources
    container = next(c for c in acc["spec"]["containers"] if c["name"] == primary)
    resources = container.get("resources") or {}
    requests, limits = resources.get("requests") or {}, resources.get("limits") or {}
    fill: dict[str, dict[str, str]] = {}
    for name, value in defaults.requests.items():
        if name not in requests:
            limit: str | None = limits.get(name)
            low = limit is not None and parse_quantity(limit) < parse_quantity(value)
            fill.setdefault("requests", {})[name] = limit if limit is not None and low else value
    for name, value in defaults.limits.items():
        if name not in limits:
            request: str | None = requests.get(name) or fill.get("requests", {}).get(name)
            high = request is not None and parse_quantity(request) > parse_quantity(value)
            fill.setdefault("limits", {})[name] = request if request is not None and high else value
    if not fill:
        return None
    # Valid by construction: quantities of the task or of platform.yaml, both checked.
    return Layer("platform defaultResources",
                 {"spec": {"containers": [{"name": primary, "resources": fill}]}}, primary,
                 proven=True, clean=True)


Trace = Callable[[Layer, dict[str, Any]], None]


def resolve_pod(task: Task, role_spec: RoleSpec, context: RenderContext, *,
                provenance: dict[str, str] | None = None,
                trace: Trace | None = None) -> dict[str, Any]:
    """The final PodTemplateSpec of one role: layers folded lowest first, operator-owned
    fields on top, system labels added, validated strictly. The result is fresh.

    With ``provenance``, every leaf's path is mapped to the label of the layer that set
    it; ``trace(layer, pod)`` is then called after each layer is folded (read ``pod``,
    do not keep or change it): ``explain`` sees the pod grow layer by layer.
    """
    try:
        return _resolve(task, role_spec, context, provenance, trace)
    except PodTemplateError as error:
        raise error.located(task=task.name, role=role_spec.name) from None


def role_primary(task: Task, role_spec: RoleSpec) -> str:
    """The primary container name of a role's pod: the operator's, else the task's own."""
    template = task.pod_template
    own_primary = template.primary_container_name if template else PRIMARY_CONTAINER
    return role_spec.container_name or own_primary


def late_platform_layers(context: RenderContext) -> list[Layer]:
    """The platform's layers folded over the task's and roles' layers, whole: every
    toleration of ``resourceTolerations`` (a pod takes those of the resources it
    requests) and the policy. A check of what a pod's layers may put in it (a CRD's pod
    schema) looks at these too. Made once per platform."""
    platform = context.platform
    found: list[Layer] = []
    if platform.resource_tolerations:
        found.append(platform.compiled("resource tolerations, all", lambda: (
            tolerations_layer(platform, list(platform.resource_tolerations)))))
    policy = enforce_layer(context)
    if policy is not None:
        found.append(policy)
    return found


def operator_layer(task: Task, role_spec: RoleSpec) -> Layer:
    """Layer 7: the fields the task type's operator requires, for one role."""
    return Layer(f"operator ({task.task_type})", role_spec.operator_layer,
                 role_spec.container_name or PRIMARY_CONTAINER)


def _resolve(task: Task, role_spec: RoleSpec, context: RenderContext,
             provenance: dict[str, str] | None, trace: Trace | None) -> dict[str, Any]:
    primary = role_primary(task, role_spec)
    entries = _layer_entries(task, role_spec, context, primary)
    layers = [layer for layer, _ in entries]
    operator = operator_layer(task, role_spec)
    policy = enforce_layer(context)
    _warn_renamed(task, role_spec, layers, context)
    names, init_names = _container_names([*layers, operator, *([policy] if policy else [])],
                                         primary)
    cow = Cow() if provenance is None else None  # explain records the plain fold

    def fold_one(acc: dict[str, Any], layer: Layer) -> None:
        _fold(acc, layer, primary=primary, names=names, init_names=init_names,
              provenance=provenance, cow=cow)

    fold: Fold = fold_one
    if provenance is not None and trace is not None:
        fold = _traced(fold, trace)
    # Layers 1-6 (LAYER_ORDER), lowest first; explain records each on its own.
    warm = _renders(task, role_spec.name, primary)[0] > 1
    plan = layers if provenance is not None or not warm else composed_runs(
        entries, primary, task.compiled(("composed runs", role_spec.name, primary), dict))
    # The first fold is kept on the first layer: a platform's layer, which many tasks
    # share, or, from a task's second render on, one of its own.
    keep_first = bool(plan) and (warm or not entries[0][1])
    acc = _started(plan[0], primary, names, init_names, cow) \
        if cow is not None and keep_first else None
    if acc is None:
        acc = empty_pod(primary)
    else:
        plan = plan[1:]
    for layer in plan:
        fold(acc, layer)
    proven = all(layer_proven(layer) for layer in layers)
    _check_primary_kept(acc, primary, layers)
    reconcile_limits(acc, layers, primary, context=context, task=task.name,
                     role=role_spec.name, cow=cow)
    fill = _fill_default_resources(acc, primary, context)
    if fill is not None:  # platform defaultResources
        fold(acc, fill)
        proven = proven and layer_proven(fill)
    for last in (resource_tolerations(acc, context), operator):  # then layer 7
        if last is not None:
            fold(acc, last)
            proven = proven and layer_proven(last)
    if policy is not None:  # layer 8: the platform's policy, above everything
        fold_enforce(acc, policy, fold, primary=primary, names=names, init_names=init_names,
                     lower=[*layers, *([fill] if fill else []), operator], context=context,
                     task=task.name, role=role_spec.name)
        proven = proven and layer_proven(policy)
    return _finalize(acc, task, role_spec, primary, context, proven=proven)


def _started(first: Layer, primary: str, names: list[str], init_names: list[str],
             cow: Cow) -> dict[str, Any] | None:
    """The pod once ``first`` is folded, the fold made once per role shape (_fast)."""
    def fold_over_empty() -> dict[str, Any]:
        acc = empty_pod(primary)
        _fold(acc, first, primary=primary, names=names, init_names=init_names,
              provenance=None, cow=Cow())
        return acc

    return started_pod(first, primary, names, init_names, fold_over_empty, cow)


def _traced(fold: Fold, trace: Trace) -> Fold:
    def traced(acc: dict[str, Any], layer: Layer) -> None:
        fold(acc, layer)
        trace(layer, acc)
    return traced


def platform_pod(task: Task, role_spec: RoleSpec, context: RenderContext) -> dict[str, Any]:
    """The pod of one role as the platform's layers alone make it - cluster templates,
    platform.yaml, the operator-owned fields, the policy - with the task's own layers
    left out, for telling what those changed. Not validated: it may lack an image."""
    primary = role_primary(task, role_spec)
    every = task_layers(task, role_spec, context, primary)
    operator = operator_layer(task, role_spec)
    policy = enforce_layer(context)
    names, init_names = _container_names([*every, operator, *([policy] if policy else [])],
                                         primary)
    acc = empty_pod(primary)
    cow = Cow()
    for layer in every:
        if layer_kind(layer.label) == "platform":
            _fold(acc, layer, primary=primary, names=names, init_names=init_names,
                  provenance=None, cow=cow)
    fill = _fill_default_resources(acc, primary, context)
    for last in (fill, operator, policy):
        if last is not None:
            _fold(acc, last, primary=primary, names=names, init_names=init_names,
                  provenance=None, cow=cow)
    containers = _primary_first(acc, primary)
    _fill_default_image(containers, context)
    add_system_metadata(acc, task, role_spec.name, primary, context)
    return acc


def _warn_renamed(task: Task, role_spec: RoleSpec, layers: list[Layer],
                  context: RenderContext) -> None:
    if role_spec.container_name is None:
        return
    for layer in layers:
        alias = layer.primary_alias
        containers = (layer.fragment.get("spec") or {}).get("containers") or ()
        if alias not in (None, PRIMARY_CONTAINER, role_spec.container_name) and any(
            c.get("name") == alias for c in containers
        ):
            context.warn(f"{layer.label}: primary container {alias!r} is renamed to "
                         f"{role_spec.container_name!r}, the name the operator requires",
                         task=task.name, role=role_spec.name,
                         field=f"spec.containers[{alias}].name")


def _primary_first(acc: dict[str, Any], primary: str) -> list[dict[str, Any]]:
    """The pod's container list with the primary container first, a copy of it when it
    was not (copy-on-write: the list may be a template's); its first item a copy too."""
    spec = acc["spec"]
    containers: list[dict[str, Any]] = spec["containers"]
    if containers[0]["name"] != primary:  # it is already first, unless a merge moved it
        # stable: the rest keep their order
        containers = spec["containers"] = sorted(containers, key=lambda c: c["name"] != primary)
    else:
        containers = spec["containers"] = list(containers)
    containers[0] = dict(containers[0])
    return containers


def _finalize(acc: dict[str, Any], task: Task, role_spec: RoleSpec, primary: str,
              context: RenderContext, *, proven: bool = False) -> dict[str, Any]:
    containers = _primary_first(acc, primary)
    _fill_default_image(containers, context)
    resolve_pod_images(acc["spec"], context.platform.images, task=task.name, role=role_spec.name)
    containers = acc["spec"]["containers"]
    if not containers[0].get("image"):
        raise DefinitionError(
            "the primary container has no image", field=f"spec.containers[{primary}].image",
            fix="set image= on the task or role, or an image in its template "
            "(or defaultImage in platform.yaml)")
    containers[0] = _readable(containers[0])
    add_system_metadata(acc, task, role_spec.name, primary, context)
    if not (proven and composed_valid(acc, primary)):
        validate_pod_template_spec(acc)
    return acc


def _fill_default_image(containers: list[dict[str, Any]], context: RenderContext) -> None:
    if not containers[0].get("image") and context.platform.default_image:
        containers[0]["image"] = context.platform.default_image  # fills, never overrides



_LEADING_KEYS = ("name", "image", "command", "args")


def _readable(container: dict[str, Any]) -> dict[str, Any]:
    """The primary container with name, image, command and args first, for people."""
    ordered = {k: container[k] for k in _LEADING_KEYS if k in container}
    ordered.update((k, v) for k, v in container.items() if k not in ordered)
    return ordered

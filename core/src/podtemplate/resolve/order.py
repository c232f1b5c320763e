"""The layers of one role, built in the order :data:`~.kinds.KINDS` declares: one
builder per kind, each returning the role's layer of that kind or None."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import PodTemplateError
from ..files.store import find_template
from ..merge.aliases import PRIMARY_CONTAINER
from ..model.compiled import ENV
from ..model.roles import RoleSpec, removals_as_null
from ..model.task import Task
from ..model.templates import PodTemplate, Role, normalize_env
from ..policy.enforce import enforce_layer
from ..stash import StashKey
from .flyte import task_pod_settings, tolerations_layer
from .kinds import (
    CLUSTER_TEMPLATE,
    INTERRUPTIBLE,
    KINDS,
    OPERATOR,
    ROLE_CLUSTER_TEMPLATE,
    ROLE_SETTINGS,
    ROLE_TEMPLATE,
    RUN_OVERRIDE,
    TASK_OVERRIDE,
    TASK_SETTINGS,
    TASK_TEMPLATE,
    LayerKind,
)
from .layers import (
    Layer,
    Narrow,
    resources_fragment,
    scheduling_only,
    settings_layer,
    template_layer,
    without_task_resources,
)

if TYPE_CHECKING:
    from ..context import RenderContext

__all__ = [
    "LAYER_ORDER",
    "cluster_template",
    "late_platform_layers",
    "named_template",
    "operator_layer",
    "build_layers",
    "role_primary",
]

# The cluster templates this render looked up, by name: (namespace, template) or None.
_CLUSTER_TEMPLATES = StashKey[dict[str, "tuple[str, PodTemplate] | None"]](
    "cluster templates found, by name")
# Kept on the platform: its layers of every resourceToleration and of interruptible.
_ALL_RESOURCE_TOLERATIONS = StashKey["Layer"]("the layer of every resourceToleration")
_INTERRUPTIBLE = StashKey["Layer"]("the platform's interruptible layer")
# Kept on a task or role: a settings layer, by what it is made from (_kept_settings).
_SETTINGS = StashKey["list[Layer | None]"]("a settings layer, noted or kept")


def role_primary(task: Task, role_spec: RoleSpec) -> str:
    """The primary container name of a role's pod: the operator's, else the task's own."""
    template = task.pod_template
    own_primary = template.primary_container_name if template else PRIMARY_CONTAINER
    return role_spec.container_name or own_primary


def build_layers(task: Task, role_spec: RoleSpec, context: RenderContext,
                 primary: str) -> list[Layer]:
    """Layers 1-6 of one role, lowest first: one per kind of :data:`LAYER_ORDER` that
    the task, the role, the platform and the run give it."""
    inputs = _RoleInputs(task, role_spec, context, primary,
                         scheduling=role_spec.inherit == "scheduling")
    return [layer for _, build in LAYER_ORDER if (layer := build(inputs)) is not None]


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
    return f"{CLUSTER_TEMPLATE.name} {namespace}/{name}", template


def named_template(name: str, context: RenderContext, *, required: bool
                   ) -> tuple[str, PodTemplate] | None:
    """``(namespace, template)`` of the cluster template ``name``, looked up once per
    render; a required template that is missing is an error naming what exists."""
    found = context.stash.setdefault(_CLUSTER_TEMPLATES, {})
    if name not in found or (required and found[name] is None):
        found[name] = find_template(context.store, name, context.platform.lookup_namespaces,
                                    required=required)
    return found[name]


def late_platform_layers(context: RenderContext) -> list[Layer]:
    """The platform's layers folded over the task's and roles' layers, whole: every
    toleration of ``resourceTolerations`` (a pod takes those of the resources it
    requests) and the policy. A check of what a pod's layers may put in it (a CRD's pod
    schema) looks at these too. Made once per platform."""
    platform = context.platform
    found: list[Layer] = []
    if platform.resource_tolerations:
        found.append(platform.compiled(_ALL_RESOURCE_TOLERATIONS, lambda: (
            tolerations_layer(platform, list(platform.resource_tolerations)))))
    policy = enforce_layer(context)
    if policy is not None:
        found.append(policy)
    return found


def operator_layer(task: Task, role_spec: RoleSpec) -> Layer:
    """Layer 7: the fields the task type's operator requires, for one role."""
    return Layer(f"{OPERATOR.name} ({task.task_type})",
                 removals_as_null(role_spec.operator_layer),
                 role_spec.container_name or PRIMARY_CONTAINER, kind=OPERATOR)


# ------------------------------------------------------------------ one builder per kind


class _RoleInputs(NamedTuple):
    """What the layer builders of one role read."""

    task: Task
    role_spec: RoleSpec
    context: RenderContext
    primary: str
    scheduling: bool  # the role takes only the scheduling fields of the task's layers


def _cluster_template_layer(of: _RoleInputs) -> Layer | None:
    found = cluster_template(of.task, of.context)
    if found is None:
        return None
    narrow = without_task_resources if of.scheduling else None
    return template_layer(CLUSTER_TEMPLATE, found[0], found[1], alias=PRIMARY_CONTAINER,
                          narrow=narrow)


def _interruptible_layer(of: _RoleInputs) -> Layer | None:
    platform = of.context.platform
    if not (_interruptible(of.task, of.role_spec) and platform.interruptible):
        return None
    return platform.compiled(_INTERRUPTIBLE, lambda: Layer(
        INTERRUPTIBLE.name, {"spec": platform.interruptible}, source=platform,
        variant="interruptible", kind=INTERRUPTIBLE))


def _interruptible(task: Task, role_spec: RoleSpec) -> bool:
    if role_spec.interruptible is not None:
        return role_spec.interruptible
    if role_spec.role is not None and role_spec.role.interruptible is not None:
        return role_spec.role.interruptible
    return task.interruptible and role_spec.task_interruptible


def _task_template_layer(of: _RoleInputs) -> Layer | None:
    return _own_template_layer(of, TASK_TEMPLATE, of.task.pod_template)


def _task_override_layer(of: _RoleInputs) -> Layer | None:
    return _own_template_layer(of, TASK_OVERRIDE, of.task.override)


def _run_override_layer(of: _RoleInputs) -> Layer | None:
    return _own_template_layer(of, RUN_OVERRIDE, of.context.override)


def _own_template_layer(of: _RoleInputs, kind: LayerKind, own: PodTemplate | None
                        ) -> Layer | None:
    """A template the task or the run brings, narrowed to the scheduling fields for a
    role that inherits only those."""
    if own is None:
        return None
    narrow: Narrow | None = scheduling_only if of.scheduling else None
    return template_layer(kind, kind.name, own, narrow=narrow)


def _task_settings_layer(of: _RoleInputs) -> Layer | None:
    if of.scheduling:
        return None
    task, platform, primary = of.task, of.context.platform, of.primary
    gpu = platform.gpu_resource_name
    accelerator = platform.accelerator_label if task.accelerator else None
    # What the layer is made from, known before it is made: the task keeps the layer
    # under it (see _kept_settings).
    made_from = (TASK_SETTINGS, primary, gpu, accelerator)
    return _kept_settings(task, made_from, lambda: settings_layer(
        TASK_SETTINGS, TASK_SETTINGS.name, _settings_parts(task, gpu), primary=primary,
        image=task.image, command=task.command, args=task.args,
        pod=task_pod_settings(task, primary, of.context),  # shared memory
        made_from=made_from))


def _role_named_template_layer(of: _RoleInputs) -> Layer | None:
    role, name = of.role_spec.role, of.role_spec.name
    if role is None or not role.pod_template_name:
        return None
    try:
        found = named_template(role.pod_template_name, of.context, required=True)
    except PodTemplateError as error:  # named by the config field the user wrote
        error.field = f"task_config.{of.role_spec.config_role or name}.pod_template_name"
        raise error.located() from None
    assert found is not None  # a required template is never missing without an error
    namespace, template = found
    label = f"{ROLE_CLUSTER_TEMPLATE.name} ({name}) {namespace}/{role.pod_template_name}"
    return template_layer(ROLE_CLUSTER_TEMPLATE, label, template, alias=PRIMARY_CONTAINER)


def _role_template_layer(of: _RoleInputs) -> Layer | None:
    role = of.role_spec.role
    if role is None or role.pod_template is None:
        return None
    return template_layer(ROLE_TEMPLATE, f"{ROLE_TEMPLATE.name} ({of.role_spec.name})",
                          role.pod_template)


def _role_settings_layer(of: _RoleInputs) -> Layer | None:
    role = of.role_spec.role
    if role is None:
        return None
    gpu, name, primary = of.context.platform.gpu_resource_name, of.role_spec.name, of.primary
    made_from = (ROLE_SETTINGS, role, name, primary, gpu)
    return _kept_settings(role, (ROLE_SETTINGS, name, primary, gpu), lambda: settings_layer(
        ROLE_SETTINGS, f"{ROLE_SETTINGS.name} ({name})", _settings_parts(role, gpu),
        primary=primary, image=role.image, made_from=made_from))


def _kept_settings(owner: Task | Role, key: tuple[Hashable, ...],
                   make: Callable[[], Layer | None]) -> Layer | None:
    """The settings layer of ``owner`` that ``key`` names (its kind and what it is made
    from besides the owner), kept on the owner once it is asked for a second time: the
    task and the role are immutable, so a task's later renders find the same layer -
    what is known of it (:meth:`Layer.fact`) and the composition it is part of
    (``resolve._fast``) with it - without making it again. Asked once, it is only noted,
    as a run of layers is: a task rendered once (the CLI's) keeps no layer. The fragment
    is read only, like a template's; the copy-on-write fold takes it by reference as
    before (it is clean). A task or role that sets nothing has no layer (None)."""
    held = owner.compiled(_SETTINGS, list, *key)  # [] new, [None] noted
    if len(held) == 2:
        return held[1]
    layer = make()
    held.append(layer if held else None)
    return layer


def _settings_parts(owner: Task | Role, gpu: str
                    ) -> tuple[list[dict[str, str]], dict[str, Any]]:
    """The env list of a task's or role's settings as compiled when it was defined, and
    its resources (they depend on the platform's GPU resource name)."""
    env = owner.compiled(ENV, lambda: _env(owner))
    return env, resources_fragment(owner.requests, owner.limits, gpu)


def _env(owner: Task | Role) -> list[dict[str, str]]:
    return normalize_env(owner.env) if owner.env else []


Builder = Callable[[_RoleInputs], "Layer | None"]
_BUILDERS: dict[LayerKind, Builder] = {
    CLUSTER_TEMPLATE: _cluster_template_layer,
    INTERRUPTIBLE: _interruptible_layer,
    TASK_TEMPLATE: _task_template_layer,
    TASK_SETTINGS: _task_settings_layer,
    TASK_OVERRIDE: _task_override_layer,
    RUN_OVERRIDE: _run_override_layer,
    ROLE_CLUSTER_TEMPLATE: _role_named_template_layer,
    ROLE_TEMPLATE: _role_template_layer,
    ROLE_SETTINGS: _role_settings_layer,
}
# Layers 1-6 of a role: the kinds the task, its roles and the run bring, in KINDS' order.
LAYER_ORDER: tuple[tuple[LayerKind, Builder], ...] = tuple(
    (kind, _BUILDERS[kind]) for kind in KINDS if kind in _BUILDERS)

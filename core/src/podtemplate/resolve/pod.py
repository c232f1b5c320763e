"""Resolution: the layers of one role folded, lowest first, into its final pod.

The whole of it is :func:`resolve_pod`: build the role's layers in the declared order
(:mod:`.order`, :data:`.kinds.KINDS`), fold each through the one merge, fill the
platform's defaults, put the operator's fields and the policy on top, validate. With
``provenance`` the fold is the plain one below; without, the copy-on-write fold of
:mod:`._fast` gives the same pod with less copying (``core/tests/test_layer_cache.py``
compares the two).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import DefinitionError, PlatformConfigError, PodTemplateError
from ..handover import independent
from ..images import resolve_pod_images
from ..manifest import SYSTEM_LABELS, add_system_metadata
from ..merge.aliases import DEFAULT_CONTAINER, MAGIC_CONTAINER_NAMES, PRIMARY_CONTAINER
from ..merge.engine import expand_container_aliases, merge_into
from ..merge.rules import DELETE, PATCH
from ..model.podspec import validate_pod_template_spec
from ..model.roles import RoleSpec
from ..model.task import Task
from ..policy.enforce import enforce_layer, fold_enforce
from ..stash import StashKey
from ._fast import COMPOSED_SLOTS, FastFold, composed_valid, layer_proven
from .flyte import accelerator_layer, resource_tolerations
from .kinds import KINDS, TASK_SETTINGS
from .layers import Layer, empty_pod, has_magic_names
from .order import (
    LAYER_ORDER,
    build_layers,
    cluster_template,
    late_platform_layers,
    named_template,
    operator_layer,
    role_primary,
)
from .resources import flyte_resources, operator_sized, reconcile_limits

if TYPE_CHECKING:
    from ..context import RenderContext

__all__ = [
    "LAYER_ORDER",
    "SYSTEM_LABELS",
    "Fold",
    "Trace",
    "cluster_template",
    "late_platform_layers",
    "named_template",
    "operator_layer",
    "platform_pod",
    "resolve_pod",
    "role_primary",
    "task_layers",
]

Trace = Callable[[Layer, dict[str, Any]], None]
Fold = Callable[[dict[str, Any], Layer], None]


def resolve_pod(task: Task, role_spec: RoleSpec, context: RenderContext, *,
                provenance: dict[str, str] | None = None,
                trace: Trace | None = None, copy: bool = True) -> dict[str, Any]:
    """The final PodTemplateSpec of one role: layers folded lowest first, operator-owned
    fields on top, system labels added, validated strictly.

    The result is the caller's, sharing nothing with the templates and the layers kept
    for later renders. ``copy=False`` skips the copy that guarantees this, for a caller
    that only reads the pod or hands it over as render does (the build gets a copy of
    its own): the fold then shares unchanged subtrees with the templates, copy-on-write,
    and a change to the pod would reach them. With ``provenance`` the fold is the plain
    one, whose pod is its own.

    With ``provenance``, every leaf's path is mapped to the label of the layer that set
    it; ``trace(layer, pod)`` is then called after each layer is folded (read ``pod``,
    do not keep or change it): ``explain`` sees the pod grow layer by layer.
    """
    try:
        pod = _resolve(task, role_spec, context, provenance, trace)
    except PodTemplateError as error:
        raise error.located(task=task.name, role=role_spec.name) from None
    return independent(pod) if copy and provenance is None else pod


def _resolve(task: Task, role_spec: RoleSpec, context: RenderContext,
             provenance: dict[str, str] | None, trace: Trace | None) -> dict[str, Any]:
    primary = role_primary(task, role_spec)
    layers = task_layers(task, role_spec, context, primary)  # 1-6, in LAYER_ORDER
    operator = operator_layer(task, role_spec)  # 7
    policy = enforce_layer(context)  # 8
    _warn_renamed(task, role_spec, layers, context)
    names, init_names = _container_names([*layers, operator, *([policy] if policy else [])],
                                         primary)
    fast = FastFold(primary, names, init_names) if provenance is None else None
    fold: Fold
    if fast is None:  # the plain fold, each layer recorded (explain, policy attribution)
        def fold(acc: dict[str, Any], layer: Layer) -> None:
            fold_layer(acc, layer, primary, names, init_names, provenance)
            if trace is not None:
                trace(layer, acc)

        acc, rest = empty_pod(primary), layers
    else:
        fold = fast
        acc, rest = fast.start(layers, task.compiled(COMPOSED_SLOTS, dict, role_spec.name,
                                                     primary))
    for layer in rest:
        fold(acc, layer)
    restored = _check_primary_kept(acc, primary, layers)
    if restored is not None:
        fold(acc, restored)
    reconcile_limits(acc, layers, primary, context=context, task=task.name,
                     role=role_spec.name, cow=fast.cow if fast else None)
    filled = flyte_resources(acc, primary, context, layers, task=task.name,
                             role=role_spec.name, operator_sized=operator_sized(role_spec))
    late = [*filled, resource_tolerations(acc, context), accelerator_layer(acc, task, context),
            operator]
    for last in late:  # Flyte's resource rules, resourceTolerations, accelerator, layer 7
        if last is not None:
            fold(acc, last)
    if policy is not None:  # layer 8: the platform's policy, above everything
        kept = _has_primary(acc, primary)
        fold_enforce(acc, policy, fold, primary=primary, names=names, init_names=init_names,
                     lower=[*layers, *filled, operator], context=context,
                     task=task.name, role=role_spec.name)
        if kept and not _has_primary(acc, primary):
            raise PlatformConfigError(
                f"policy.enforce removes the primary container {primary!r} (the task's own)",
                field="policy.enforce.containers", file=context.platform.source,
                fix="enforce fields of the containers "
                "(a `default` or `primary` entry without `$patch`); never delete them, "
                "replace their list or set it to null")
    proven = fast is not None and all(
        layer_proven(each) for each in (*layers, *late, policy) if each is not None)
    return _finalize(acc, task, role_spec, primary, context, proven=proven)


# Each role's layers, built once per render: the fold, the policy's attribution and the
# CRD checks of a task's manifests all read them.
_ROLE_LAYERS = StashKey[dict[Any, Any]]("the layers of the roles being rendered")


def task_layers(task: Task, role_spec: RoleSpec, context: RenderContext,
                primary: str) -> list[Layer]:
    """Layers 1-6 of one role, lowest first (:func:`.order.build_layers`), built once
    per render for a role spec: the fold, the policy's attribution, the CRD checks and
    the task type's plugin may all ask for them."""
    table = context.memo(_ROLE_LAYERS, limit=64)
    key = (id(role_spec), id(task), primary)
    found = table.get(key)
    if found is None or found[0] is not role_spec or found[1] is not task:
        found = table[key] = (role_spec, task, build_layers(task, role_spec, context, primary))
    layers: list[Layer] = found[2]
    return layers


def fold_layer(acc: dict[str, Any], layer: Layer, primary: str, names: Sequence[str],
               init_names: Sequence[str], provenance: dict[str, str] | None = None) -> None:
    """Fold one layer into ``acc``: the layer's magic container names (``primary``,
    ``default``) resolved for this role, then the one merge."""
    fragment = layer.fragment
    spec = fragment.get("spec")
    if spec is not None and has_magic_names(spec, primary, layer.primary_alias):
        fragment = {**fragment, "spec": expand_container_aliases(
            spec, primary_name=primary, layer_primary_name=layer.primary_alias,
            container_names=names, init_container_names=init_names)}
    merge_into(acc, fragment, root="", layer=layer.label, provenance=provenance)


def _container_names(layers: list[Layer], primary: str) -> tuple[list[str], list[str]]:
    """The role's container names (primary first) and init container names, in the
    order the layers introduce them, without those a layer deletes and no higher layer
    gives again."""
    names: list[str] = [primary]
    init_names: list[str] = []
    for layer in layers:
        containers, init_containers = layer.container_names()
        alias = layer.primary_alias
        # A container a layer deletes is no longer in the pod: a default entry of a
        # higher layer must not bring it back (unless a layer gives it again).
        gone, init_gone = layer.deleted_names()
        names = [name for name in names if name == primary or name not in gone]
        init_names = [name for name in init_names if name not in init_gone]
        for name in containers:
            if name == alias:
                name = primary
            if name not in MAGIC_CONTAINER_NAMES and name not in names:
                names.append(name)
        for name in init_containers:
            if name not in MAGIC_CONTAINER_NAMES and name not in init_names:
                init_names.append(name)
    return names, init_names


def _has_primary(acc: dict[str, Any], primary: str) -> bool:
    return any(c.get("name") == primary for c in acc["spec"].get("containers") or ())


# A `$patch: replace` of the whole spec below the task's settings loses no value of the
# task's: what a layer above gave its container would have named it again.
_BELOW_SETTINGS = frozenset(KINDS[:KINDS.index(TASK_SETTINGS)])


def _check_primary_kept(acc: dict[str, Any], primary: str, layers: list[Layer]
                        ) -> Layer | None:
    """The layers may delete any container but the task's own. A layer below the task's
    settings that replaces the whole spec (`$patch: replace`) starts the pod from its
    own: the task's container is then given back, named (the layer to fold, else None)."""
    if _has_primary(acc, primary):
        return None
    culprit = None
    for layer in reversed(layers):
        spec = layer.fragment.get("spec") or {}
        meant = {primary, DEFAULT_CONTAINER, layer.primary_alias} - {None}  # default: all
        containers = spec.get("containers")
        if "containers" in spec and (containers is None or isinstance(containers, Mapping)):
            culprit = layer.label  # the list set to null, or `{$patch: delete}`
            break
        if any(isinstance(c, Mapping) and c.get("name") in meant and c.get(PATCH) == DELETE
               for c in containers or ()):
            culprit = layer.label
            break
        if spec.get(PATCH) == "replace":  # everything below it
            if layer.kind in _BELOW_SETTINGS:
                return Layer(TASK_SETTINGS.name, {"spec": empty_pod(primary)["spec"]},
                             kind=TASK_SETTINGS, clean=True)
            raise DefinitionError(
                f"{layer.label} replaces the whole pod spec (`$patch: replace`), so the "
                f"primary container {primary!r} is gone", field=f"spec.containers[{primary}]",
                fix="drop `$patch: replace` from this template, or replace single lists "
                "and maps (`$patch: replace` inside them)")
    raise DefinitionError(
        f"{culprit or 'a layer'} deletes the primary container {primary!r}",
        field=f"spec.containers[{primary}]",
        fix="the task's own container cannot be deleted; delete its fields instead")


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
    for layer in every:
        if layer.kind.owner == "platform":
            fold_layer(acc, layer, primary, names, init_names)
    platform_layers = [layer for layer in every if layer.kind.owner == "platform"]
    filled = flyte_resources(acc, primary, context, platform_layers,
                             operator_sized=operator_sized(role_spec))
    for last in (*filled, operator, policy):
        if last is not None:
            fold_layer(acc, last, primary, names, init_names)
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
              context: RenderContext, *, proven: bool) -> dict[str, Any]:
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
    # Proven layers (_fast) make a valid pod but for the few values no layer gave.
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

"""The fast paths of the CRD check at render: the speed work of this subpackage, fenced
here. ``core/tests/test_crd_fast.py`` compares them with the plain paths on generated
values, valid and not, against the shipped CRDs and a schema using every keyword.

- **A verdict, not a report.** Nearly every custom resource and template layer is valid,
  and the plain walk (:meth:`podtemplate.schemas._compiled.Node.check`) builds a path for
  every step in case a problem turns up there. :func:`fits` and :func:`surely_valid`
  walk the same compiled nodes with the same tests, but only say yes or no: the first
  problem ends the walk and nothing is built. On a no, the plain walk runs and names every
  problem, so what is reported is the plain path's, word for word.
- **Proofs with the per-role work done once.** :func:`proven_pods` is
  :func:`podtemplate.schemas.resources.proven_pods` with the per-role work done once per
  role path and schema node (the target node, whether core's own fields fit it) and the
  verdicts of templates read from their layers' facts.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..resolve.pod import late_platform_layers, role_primary, task_layers
from ..stash import StashKey
from ._compiled import Node, type_ok
from .crd import Crd

if TYPE_CHECKING:
    from ..context import RenderContext
    from ..model.roles import RoleSpec
    from ..model.task import Task

__all__ = ["fits", "proven_pods", "surely_valid"]

_NOTHING: frozenset[int] = frozenset()
# Kept on a template's layer, per schema node: whether the layer fits the node.
_FITS = StashKey[bool]("the layer fits a CRD's pod schema node (fast walk)")


def fits(node: Node, fragment: Any) -> bool:
    """What :meth:`Node.fits` says (a fragment: required members and duplicates left to
    the merge), without making a problem list."""
    return _ok(node, fragment, True, _NOTHING)


def surely_valid(manifest: Mapping[str, Any], crd: Crd, skip: frozenset[int]) -> bool:
    """True when :func:`~podtemplate.schemas.crd.validate_custom_resource` would find
    no problem (``skip`` as there); False when it would, or may."""
    group, _, version = str(manifest.get("apiVersion", "")).rpartition("/")
    if group != crd.group or manifest.get("kind") != crd.kind:
        return False
    root = crd.root(version)
    return root is not None and _ok(root, manifest, False, skip)


def _ok(node: Node, value: Any, partial: bool, skip: frozenset[int]) -> bool:
    """Node.check's tests, in its order, stopping at the first that fails."""
    if node.simple:
        return type(value) in node.types or type_ok(value, node.types)
    if value is None:
        return node.nullable or partial
    if node.int_or_string:
        return not isinstance(value, bool) and isinstance(value, int | str)
    if node.types and not type_ok(value, node.types):
        return False
    if node.enum is not None and value not in node.enum:
        return False
    if node.bounds and node.out_of_bounds(value):
        return False
    pattern = node.pattern
    if pattern is not None and type(value) is str and not pattern.search(value):
        return False
    kind = node.kind
    if kind == "object":
        return _object_ok(node, value, partial, skip)
    if kind == "array":
        return _array_ok(node, value, partial, skip)
    return True


def _object_ok(node: Node, value: Mapping[str, Any], partial: bool,
               skip: frozenset[int]) -> bool:
    if not partial:
        for name in node.required:
            if name not in value:
                return False
    implicit, children, is_open = node.implicit, node.children, node.open
    for key, sub in value.items():
        child = children.get(key) or (None if key in implicit else node.child(key))
        if child is None:
            if is_open or key in implicit:
                continue
            return False
        if child.simple and type(sub) in child.types:
            continue
        if skip and id(sub) in skip:
            continue
        if child.plain_object and type(sub) is dict:
            if not _object_ok(child, sub, partial, skip):
                return False
        elif not _ok(child, sub, partial, skip):
            return False
    return True


def _array_ok(node: Node, value: Sequence[Any], partial: bool, skip: frozenset[int]) -> bool:
    item = node.item()
    if item is not None:
        simple, types = item.simple, item.types
        for entry in value:
            if not (simple and type(entry) in types) and not _ok(item, entry, partial, skip):
                return False
    if partial:
        return True
    return not node.duplicates(value)


# ------------------------------------------------------------------ proofs of role pods


def proven_pods(task: Task, roles: Sequence[RoleSpec], manifest: Mapping[str, Any],
                crd: Crd, context: RenderContext,
                changes: Mapping[int, Mapping[str, Any]]) -> frozenset[int]:
    """What :func:`podtemplate.schemas.resources.proven_pods` gives, cheaper."""
    root = crd.root(str(manifest.get("apiVersion", "")).rpartition("/")[2])
    if root is None:
        return _NOTHING
    proven: list[int] = []
    for role in roles:
        prefix, node = _pod_target(root, role.template_path)
        if node is None:
            continue
        pod = _walk(manifest, prefix)
        if (type(pod) is dict and id(pod) in changes
                and _ok(node, changes[id(pod)], True, _NOTHING)
                and _layers_fit(task, role, node, context)):
            for key in ("metadata", "spec"):
                if key in pod:
                    proven.append(id(pod[key]))
    return frozenset(proven)


@functools.lru_cache(maxsize=256)
def _pod_target(root: Node, template_path: str) -> tuple[tuple[str | int, ...], Node | None]:
    """A role's template path as segments, and the schema node there when core's own
    fields fit it (None otherwise: the role's pod is not proven, but walked)."""
    from .resources import core_fields_fit, target

    prefix, node = target(root, template_path)
    return prefix, node if node is not None and core_fields_fit(node) else None


def _walk(node: Any, segments: Sequence[str | int]) -> Any:
    for segment in segments:
        kind = type(node)
        if type(segment) is int:
            node = node[segment] if kind is list and segment < len(node) else None
        elif kind is dict:
            node = node.get(segment)
        else:
            node = node.get(segment) if isinstance(node, Mapping) else None
    return node


def _layers_fit(task: Task, role: RoleSpec, node: Node, context: RenderContext) -> bool:
    for layer in [*task_layers(task, role, context, role_primary(task, role)),
                  *late_platform_layers(context)]:
        if layer.source is None:
            if layer.proven:
                continue  # a settings layer: its fields are among core's own
            if not _ok(node, layer.fragment, True, _NOTHING):
                return False
        elif not layer.fact(_FITS, functools.partial(_ok, node, layer.fragment, True, _NOTHING),
                            node):
            return False
    return True

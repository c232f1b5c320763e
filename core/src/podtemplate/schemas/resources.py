"""Custom resources checked against the CRDs their task type declares.

Used at render time (:func:`check_rendered`: a violation fails the render, a pruned field
the role declares unsupported is a warning) and by ``podtemplate validate``
(:func:`crd_index` finds the CRD of any installed task type's kind). A problem inside a
role's pod is located like any pod error: the role, and the field path relative to the
pod with list items named (``spec.containers[primary].resizePolicy``).

At render time a role's pod is proven by its layers rather than walked: the merge puts at
a field path only what some layer held there, so when every layer of the role holds only
fields the CRD's pod schema declares, with values it allows, the pod does too (its
required members and keyed-list uniqueness are core's checks of every pod). Templates are
proven once (kept on the template's layer); settings and what core adds (image, default
resources, system labels) once per CRD; what the build changed in the pod (core
compares the pod it finds in the manifest with the resolved one) on every render, like a
layer; the operator layer is the plugin's own, which the conformance kit validates in
full on every render of its sample tasks.
Only the pods of roles with a template or build change that does not fit are walked; the
rest of the resource always is.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..resolve.pod import late_platform_layers, role_primary, task_layers
from ..stash import StashKey
from . import _fast as fast
from ._compiled import Node
from .crd import Crd, CrdProblem, shipped_crd, validate_custom_resource

if TYPE_CHECKING:
    from ..context import RenderContext
    from ..model.roles import RoleSpec, TaskType
    from ..model.task import Task

__all__ = ["CrdIndex", "LocatedProblem", "crd_index", "locate", "check_rendered",
           "core_fields_fit", "path_segments", "pod_field", "proven_pods", "target"]

CrdIndex = Mapping[tuple[str, str], Crd]  # (group, kind) -> CRD
_TOKEN = re.compile(r"\[(\d+)\]|([^.\[\]]+)")
_DEFAULT_CONTAINER = "kubectl.kubernetes.io/default-container"
_PRIMARY = "primary"
# Kept on a template's layer, per schema node: whether the layer fits the node.
_FITS = StashKey[bool]("the layer fits a CRD's pod schema node")


def crd_index(task_types: Iterable[TaskType]) -> CrdIndex:
    """The CRDs the task types declare, by (group, kind); each file is read once."""
    index: dict[tuple[str, str], Crd] = {}
    for task_type in task_types:
        index.update(_declared(task_type.crds))
    return index


@functools.cache
def _declared(crds: tuple[str, ...]) -> dict[tuple[str, str], Crd]:
    """The CRDs of a task type, by its ``crds`` (hashed far cheaper than the type)."""
    return {(crd.group, crd.kind): crd for crd in map(shipped_crd, crds)}


def crd_of(index: CrdIndex, manifest: Mapping[str, Any]) -> Crd | None:
    """The CRD of ``manifest``'s group and kind, if the index has it."""
    group = str(manifest.get("apiVersion", "")).rpartition("/")[0]
    return index.get((group, str(manifest.get("kind", ""))))


@functools.lru_cache(maxsize=256)
def path_segments(path: str) -> tuple[str | int, ...]:
    """``spec.groups[0].template`` -> ``("spec", "groups", 0, "template")``."""
    return tuple(int(index) if index else key for index, key in _TOKEN.findall(path))


@dataclass(frozen=True)
class LocatedProblem:
    """A CRD problem with its role (when it lies in a role's pod) and the field path:
    relative to the pod, items named, for a role; from the manifest root otherwise."""

    problem: CrdProblem
    role: RoleSpec | None
    field: str


def locate(problem: CrdProblem, manifest: Mapping[str, Any],
           roles: Sequence[RoleSpec]) -> LocatedProblem:
    """Which role's pod ``problem`` lies in, and its field path there."""
    segments = problem.segments
    for role in roles:
        prefix = path_segments(role.template_path)
        if prefix and segments[:len(prefix)] == prefix:
            pod = _walk(manifest, prefix)
            if isinstance(pod, Mapping):
                return LocatedProblem(problem, role, pod_field(pod, segments[len(prefix):]))
    return LocatedProblem(problem, None, problem.path)


def pod_field(pod: Mapping[str, Any], rest: Sequence[str | int]) -> str:
    """The path ``rest`` inside ``pod`` with list items named as declarations name them:
    the primary container ``[primary]``, an item with a ``name`` by it, else its index."""
    annotations = (pod.get("metadata") or {}).get("annotations") or {}
    primary = annotations.get(_DEFAULT_CONTAINER)
    text = ""
    node: Any = pod
    for segment in rest:
        if isinstance(segment, int):
            item = node[segment] if isinstance(node, list) and segment < len(node) else None
            name = item.get("name") if isinstance(item, Mapping) else None
            if isinstance(name, str) and name:
                text += f"[{_PRIMARY if name == primary else name}]"
            else:
                text += f"[{segment}]"
            node = item
        else:
            text += f".{segment}" if text else segment
            node = node.get(segment) if isinstance(node, Mapping) else None
    return text


def _walk(node: Any, segments: Sequence[str | int]) -> Any:
    for segment in segments:
        if type(segment) is int:
            node = node[segment] if type(node) is list and segment < len(node) else None
        else:
            node = node.get(segment) if isinstance(node, Mapping) else None
    return node


def describe(located: LocatedProblem, crd: Crd) -> str:
    """The message of a problem: what is wrong and which CRD says so."""
    problem = located.problem
    what = f"the {crd.kind} CRD of {crd.operator}"
    if problem.pruned:
        return f"{what} has no such field: the API server would silently drop it"
    return f"{problem.message} ({what})"


def check_rendered(task: Task, task_type: TaskType, roles: Sequence[RoleSpec],
                   manifests: Sequence[Mapping[str, Any]], context: RenderContext, *,
                   changes: Mapping[int, Mapping[str, Any]] | None = None) -> None:
    """Validate every custom resource of one task against the CRDs its task type declares:
    raise :class:`~podtemplate.errors.ManifestValidationError` on the first problem; a
    pruned field the role declares unsupported is a warning with the declared reason.

    ``changes`` maps the id of each role pod in ``manifests`` to what the build changed
    in it (:class:`podtemplate.handover.BuiltPod`): a pod is proven by its layers only
    when those changes fit the CRD too; a pod it does not name is walked."""
    if not task_type.crds:
        return
    index = _declared(task_type.crds)
    changed = {} if changes is None else changes
    for manifest in manifests:
        crd = crd_of(index, manifest)
        if crd is None:
            continue
        skip = fast.proven_pods(task, roles, manifest, crd, context, changed)
        if fast.surely_valid(manifest, crd, skip):
            continue
        for problem in validate_custom_resource(manifest, crd, skip=skip):
            _report(locate(problem, manifest, roles), crd, task.name, context)


def proven_pods(task: Task, roles: Sequence[RoleSpec], manifest: Mapping[str, Any],
                crd: Crd, context: RenderContext,
                changes: Mapping[int, Mapping[str, Any]]) -> frozenset[int]:
    """The ids of the ``metadata`` and ``spec`` objects of every role pod in ``manifest``
    that its layers and the build's ``changes`` to it (by the pod's id) prove valid
    against the CRD."""
    root = crd.root(str(manifest.get("apiVersion", "")).rpartition("/")[2])
    if root is None:
        return frozenset()
    proven: list[int] = []
    for role in roles:
        prefix, node = target(root, role.template_path)
        if node is None:
            continue
        pod = _walk(manifest, prefix)
        if (type(pod) is dict and id(pod) in changes and node.fits(changes[id(pod)])
                and _layers_fit(task, role, node, context)):
            proven += [id(pod[key]) for key in ("metadata", "spec") if key in pod]
    return frozenset(proven)


# What core itself puts in a pod besides the templates: settings layers (image, command,
# args, env of name/value, requests/limits), platform defaultResources, the default image
# and the system labels and annotation. All strings, resource and label maps.
_CORE_SAMPLE = {
    "metadata": {"labels": {"k": "v"}, "annotations": {"k": "v"}},
    "spec": {"containers": [{"name": "n", "image": "i", "command": ["c"], "args": ["a"],
                             "env": [{"name": "E", "value": "v"}],
                             "resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "1"}}}]},
}
_CORE_MAPS = (("metadata", "labels"), ("metadata", "annotations"),
              ("spec", "containers", 0, "resources", "requests"),
              ("spec", "containers", 0, "resources", "limits"))


@functools.cache
def core_fields_fit(node: Node) -> bool:
    """Whether a pod schema declares every field core adds to a pod, maps as maps."""
    maps = [node.descend(path) for path in _CORE_MAPS]
    return node.fits(_CORE_SAMPLE) and all(m is not None and m.is_map() for m in maps)


@functools.lru_cache(maxsize=256)
def target(root: Node, template_path: str) -> tuple[tuple[str | int, ...], Node | None]:
    """A role's template path as segments, and the schema node there (None for none)."""
    prefix = path_segments(template_path)
    return prefix, root.descend(prefix) if prefix else None


def _layers_fit(task: Task, role: RoleSpec, node: Node, context: RenderContext) -> bool:
    if not core_fields_fit(node):
        return False
    layers = [*task_layers(task, role, context, role_primary(task, role)),
              *late_platform_layers(context)]
    for layer in layers:
        if layer.source is None:
            if layer.proven:
                continue  # a settings layer: its fields are among _CORE_SAMPLE's
            if not node.fits(layer.fragment):
                return False
            continue
        # Once per template and schema node, kept on the template's layer.
        if not layer.fact(_FITS, functools.partial(node.fits, layer.fragment), node):
            return False
    # The operator layer is the plugin's own, like the resource around the pods: the
    # conformance kit validates both in full on every render of the sample tasks.
    return True


def _report(located: LocatedProblem, crd: Crd, task_name: str,
            context: RenderContext) -> None:
    from ..errors import ManifestValidationError

    role = located.role
    if role is not None and located.problem.pruned:
        declared = role.declared(located.field)
        if declared is not None and declared in role.unsupported:
            context.warn(f"{declared.reason}: {describe(located, crd)}", task=task_name,
                         role=role.name, field=located.field)
            return
    if role is not None:
        fix = ("remove this field where it is set: the templates of the task and its "
               "roles, or the platform's templates or policy (podtemplate explain --field "
               "shows which)" if located.problem.pruned
               else "correct this field in the task's templates")
    else:
        fix = "correct the task's config; if you did not set this field, report a plugin bug"
    raise ManifestValidationError(describe(located, crd), task=task_name,
                                  role=role.name if role else None, field=located.field,
                                  fix=fix)

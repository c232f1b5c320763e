"""Policy on manifests that already exist (``podtemplate validate --platform``): every pod
template inside each manifest judged by the same checks as a render."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from .enforce import enforce_layer, enforced_values
from .engine import check_policy
from .subject import LayerInfo, PolicySubject, Provenance
from .violations import NOT_SET, Violation

if TYPE_CHECKING:
    import pluggy

    from ..context import RenderContext
    from ..platform import Platform

__all__ = ["pods_in", "check_manifests"]

_CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")


def pods_in(manifest: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """``(where, pod)`` for each pod of ``manifest``: a Pod itself (``where`` is ``""``),
    else every object holding a pod spec (``spec.containers``) wherever the kind nests
    it: ``spec.pytorchReplicaSpecs.Worker.template``, ``spec.job``,
    ``spec.submitterPodTemplate``."""
    yield from _pods(manifest, "")


def _pods(node: Any, path: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    if isinstance(node, Mapping):
        if _is_pod(node):
            yield path, node
            return
        for key, value in node.items():
            yield from _pods(value, f"{path}.{key}" if path else str(key))
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _pods(item, f"{path}[{index}]")


def _is_pod(value: Mapping[str, Any]) -> bool:
    spec = value.get("spec")
    return isinstance(spec, Mapping) and isinstance(spec.get("containers"), list)


def check_manifests(manifests: Iterable[tuple[str | None, Mapping[str, Any]]],
                    platform: Platform,
                    plugin_manager: pluggy.PluginManager | None = None) -> list[Violation]:
    """Every policy violation of the pods in ``manifests`` (``(file, manifest)`` pairs):
    the Pod Security Standard, registries, ceilings, the plugins' checks, and the
    values ``enforce`` would have set. Locked fields cannot be told apart from the
    platform's own values in a finished manifest and are not judged. Each violation is
    attributed to the manifest's file; its role is where the pod sits in the manifest."""
    from ..render import make_context

    context = make_context(platform=platform, plugin_manager=plugin_manager)
    found: list[Violation] = []
    for file, manifest in manifests:
        metadata = manifest.get("metadata") or {}
        labels = metadata.get("labels") or {}
        task = labels.get("podtemplate.io/task") or metadata.get("name") or "?"
        for where, pod in pods_in(manifest):
            layer = LayerInfo("manifest", "manifest", file)
            subject = PolicySubject(
                task=str(task), role=where or str(manifest.get("kind")),
                task_type=str(labels.get("podtemplate.io/task-type") or manifest.get("kind")),
                pod=pod, policy=platform.policy, provenance=Provenance([layer], None))
            found += check_policy(subject, context)
            found += [v.located(task=subject.task, role=subject.role)
                      for v in _not_enforced(pod, context)]
    return found


def _not_enforced(pod: Mapping[str, Any], context: RenderContext) -> list[Violation]:
    layer = enforce_layer(context)
    if layer is None:
        return []
    spec = pod.get("spec") or {}
    names, init_names = ([str(c.get("name")) for c in spec.get(k) or () if isinstance(c, Mapping)]
                         for k in ("containers", "initContainers"))
    primary = names[0] if names else "primary"
    found = []
    for path, wanted, actual in enforced_values(layer, pod, primary, names, init_names,
                                                context):
        if actual != wanted:
            found.append(Violation(path, "enforce", NOT_SET if actual is None else actual,
                                   f"the platform enforces {wanted!r} here: render the "
                                   "manifest again with this platform"))
    return found

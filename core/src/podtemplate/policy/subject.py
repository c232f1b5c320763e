"""What a policy check receives: one role's final pod, the policy, and where each of
the pod's values came from."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .model import Policy
from .paths import is_under, parse_path
from .violations import Origin

__all__ = ["Provenance", "PolicySubject", "LayerOwner", "LayerInfo"]

# Who owns a layer: the platform (cluster templates, platform.yaml), the task's author
# (task and role templates and settings, run and task overrides), the task type's
# operator-owned fields, the policy's enforce fragment, or an existing manifest.
LayerOwner = Literal["platform", "task", "operator", "policy", "manifest"]


@dataclass(frozen=True)
class LayerInfo:
    """One layer of a role, as the checks see it: provenance names it ``label``."""

    label: str
    kind: LayerOwner
    file: str | None = None


class Provenance:
    """Which layer set each field path of a pod, computed on first use: recording
    provenance costs a fold with the fast paths off, and most pods pass every check."""

    def __init__(self, layers: Sequence[LayerInfo] | Callable[[], Sequence[LayerInfo]],
                 record: Callable[[], Mapping[str, str]] | None) -> None:
        self._layers = layers
        self._record = record
        self._paths: Mapping[str, str] | None = None
        self._by_label: dict[str, LayerInfo] | None = None

    @property
    def layers(self) -> list[LayerInfo]:
        """The role's layers, lowest first."""
        if callable(self._layers):
            self._layers = list(self._layers())
        return list(self._layers)

    def _index(self) -> dict[str, LayerInfo]:
        if self._by_label is None:
            self._by_label = {layer.label: layer for layer in self.layers}
        return self._by_label

    @property
    def paths(self) -> Mapping[str, str]:
        """Field path -> label of the layer that set it."""
        if self._paths is None:
            self._paths = self._record() if self._record is not None else {}
        return self._paths

    def layer(self, label: str) -> LayerInfo:
        """The layer provenance calls ``label``."""
        return self._index().get(label) or LayerInfo(label, "task")

    def setters(self, path: str) -> list[LayerInfo]:
        """The layers that set ``path`` or anything inside it, lowest first; when none
        did, the layer that set the nearest enclosing value (an atomic list, say)."""
        paths = self.paths
        labels = {label for recorded, label in paths.items() if is_under(recorded, path)}
        if not labels:
            enclosing = _enclosing(path, paths)
            labels = {paths[enclosing]} if enclosing is not None else set()
        rank = {label: position for position, label in enumerate(self._index())}
        return sorted((self.layer(label) for label in labels),
                      key=lambda layer: rank.get(layer.label, len(rank)))

    def origin(self, path: str) -> Origin | None:
        """The highest layer that set ``path`` (or inside it), with its file."""
        setters = self.setters(path)
        if not setters:
            return self._fallback()
        top = setters[-1]
        return Origin(top.label, top.file)

    def _fallback(self) -> Origin | None:
        only = [layer for layer in self.layers if layer.kind == "manifest"]
        return Origin(only[0].label, only[0].file) if only else None


def _enclosing(path: str, paths: Mapping[str, str]) -> str | None:
    cut = len(path)
    while cut > 0:
        cut = max(path.rfind(".", 0, cut), path.rfind("[", 0, cut))
        if cut <= 0:
            return None
        if path[:cut] in paths:
            return path[:cut]
    return None


@dataclass(frozen=True)
class PolicySubject:
    """One role's final pod under judgement.

    - ``pod``: the final PodTemplateSpec dict (read only).
    - ``provenance``: which layer (and file) set each value; for an existing manifest
      every value is attributed to the manifest.
    - ``platform_pod``: the pod as the platform's layers alone make it (cluster
      templates, platform.yaml, operator-owned fields, the policy's enforce), for
      comparing what the task's layers changed; None when unknown (a manifest).
    - ``owned``: the task type's operator-owned field declarations for the role, by
      path, with the reason, so a violation they cause can say why it is needed.
    """

    task: str
    role: str
    task_type: str
    pod: Mapping[str, Any]
    policy: Policy
    provenance: Provenance
    platform_pod: Callable[[], Mapping[str, Any]] | None = None
    owned: Mapping[str, str] = field(default_factory=dict)
    task_fragments: Callable[[], Sequence[Mapping[str, Any]]] | None = None

    def touched(self, patterns: Sequence[str]) -> bool:
        """Whether the task's own layers could have set anything under ``patterns``:
        False only when none of their fragments holds the first field a pattern names
        below ``spec``/``metadata`` (nor a directive that could replace it), so the
        costlier comparison with :attr:`platform_pod` can be skipped."""
        if self.task_fragments is None:
            return True
        fragments = self.task_fragments()
        for pattern in patterns:
            steps = parse_path(pattern)
            top = steps[0][1]
            below = steps[1][1] if len(steps) > 1 else None
            for fragment in fragments:
                part = fragment.get(top)
                if isinstance(part, Mapping) and (below is None or below in part
                                                  or "$patch" in part):
                    return True
        return False

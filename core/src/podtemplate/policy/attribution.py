"""Who owns each layer of a role, and which file it came from: what a violation names."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..model.templates import PodTemplate
from ..platform import Platform
from .subject import LayerInfo, LayerKind

if TYPE_CHECKING:
    from ..context import RenderContext
    from ..model.task import Task
    from ..resolve.layers import Layer

__all__ = ["POLICY_LAYER", "layer_infos", "task_file"]

POLICY_LAYER = "policy"  # the label of the enforce layer, as provenance and explain name it

# Who owns each layer, by the name resolution's LAYER_ORDER gives it (a layer's label is
# its name, or its name and what it came from: "cluster template platform/gpu"). What
# is not the platform's is the task author's, so an unknown layer is judged as theirs.
LAYER_OWNERS: dict[str, LayerKind] = {
    "cluster template": "platform",
    "platform interruptible": "platform",
    "task template": "task",
    "task settings": "task",
    "task override": "task",
    "run override": "task",
    "role cluster template": "platform",
    "role template": "task",
    "role settings": "task",
    "platform defaultResources": "platform",
    "platform defaultImage": "platform",
    "platform resourceTolerations": "platform",
}


def layer_kind(label: str) -> LayerKind:
    """Who owns the layer provenance calls ``label``."""
    if label == POLICY_LAYER:
        return "policy"
    if label.startswith("operator"):
        return "operator"
    for name, kind in LAYER_OWNERS.items():
        if label == name or label.startswith(name + " "):
            return kind
    return "task"


def layer_infos(layers: Sequence[Layer], task: Task, context: RenderContext
                ) -> list[LayerInfo]:
    """The layers of one role (lowest first) as policy checks see them."""
    return [LayerInfo(layer.label, layer_kind(layer.label), _file_of(layer, task, context))
            for layer in layers]


def _file_of(layer: Layer, task: Task, context: RenderContext) -> str | None:
    source = layer.source
    if isinstance(source, PodTemplate) and source.source:
        return source.source
    if isinstance(source, Platform) or layer_kind(layer.label) in ("platform", "policy"):
        return context.platform.source
    if layer.label == "run override" and context.override is not None:
        return context.override.source
    if layer_kind(layer.label) == "operator":
        return None
    return task_file(task)


def task_file(task: Task) -> str | None:
    """The Python file that defines ``task``, where its templates and settings are."""
    if task.fn is not None:
        try:
            return inspect.getsourcefile(task.fn)
        except TypeError:
            pass
    module = sys.modules.get(task.module or "")
    return getattr(module, "__file__", None)

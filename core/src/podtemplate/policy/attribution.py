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

# Labels of the layers the platform owns, by prefix; the operator's and the policy's
# are told apart by theirs; every other layer comes from the task's author.
_PLATFORM_PREFIXES = ("cluster template", "role cluster template", "platform ")


def layer_kind(label: str) -> LayerKind:
    if label == POLICY_LAYER:
        return "policy"
    if label.startswith("operator"):
        return "operator"
    if label.startswith(_PLATFORM_PREFIXES):
        return "platform"
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

"""Who owns each layer of a role, and which file it came from: what a violation names."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..model.templates import PodTemplate
from ..platform import Platform
from .subject import LayerInfo, LayerOwner

if TYPE_CHECKING:
    from ..context import RenderContext
    from ..model.task import Task
    from ..resolve.kinds import Owner
    from ..resolve.layers import Layer

__all__ = ["layer_infos", "owner_of", "task_file"]


# Policy checks know one author: the task's, whether the task, a role or the run wrote it.
_POLICY_OWNERS: dict[Owner, LayerOwner] = {
    "task": "task", "role": "task", "run": "task",
    "platform": "platform", "operator": "operator", "policy": "policy",
}


def owner_of(layer: Layer) -> LayerOwner:
    """Who a policy check says owns ``layer``."""
    return _POLICY_OWNERS[layer.kind.owner]


def layer_infos(layers: Sequence[Layer], task: Task, context: RenderContext
                ) -> list[LayerInfo]:
    """The layers of one role (lowest first) as policy checks see them."""
    return [LayerInfo(layer.label, owner_of(layer), _file_of(layer, task, context))
            for layer in layers]


def _file_of(layer: Layer, task: Task, context: RenderContext) -> str | None:
    source = layer.source
    if isinstance(source, PodTemplate) and source.source:
        return source.source
    owner = layer.kind.owner
    if isinstance(source, Platform) or owner in ("platform", "policy"):
        return context.platform.source
    if owner == "run" and context.override is not None:
        return context.override.source
    if owner == "operator":
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

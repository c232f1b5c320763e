"""The layers of one role as a plugin may read them: what each user or platform layer
under the operator's sets, for checks a task type makes on them (a port its operator
owns), without the fold's own types and caches."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ..merge.aliases import PRIMARY_CONTAINER
from .order import role_primary
from .pod import task_layers

if TYPE_CHECKING:
    from ..context import RenderContext
    from ..model.roles import RoleSpec
    from ..model.task import Task

__all__ = ["TemplateLayer", "template_layers"]


@dataclass(frozen=True)
class TemplateLayer:
    """One layer under the operator's, as written:

    - ``label``: the layer as errors and ``explain`` name it (``task template``,
      ``role template (worker)``...);
    - ``spec``: its PodSpec fragment, read only; containers keep the layer's own names
      (``primary``, ``default``...);
    - ``primary``: the name this layer gives the role's primary container.
    """

    label: str
    spec: Mapping[str, Any]
    primary: str


def template_layers(task: Task, role: RoleSpec, context: RenderContext
                    ) -> list[TemplateLayer]:
    """Layers 1-6 of ``role`` (cluster template to role settings), lowest first, those
    that set anything; the operator's layer and the policy are not among them."""
    layers = task_layers(task, role, context, role_primary(task, role))
    return [TemplateLayer(layer.label, MappingProxyType(dict(layer.fragment.get("spec") or {})),
                          layer.primary_alias or PRIMARY_CONTAINER)
            for layer in layers]

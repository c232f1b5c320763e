"""What each layer of a pod is (docs/design.md), declared once: its name, who owns it and
what ``explain`` calls it, in the order the layers fold, lowest first. Where two layers
set the same field, the later one wins.

A :class:`~podtemplate.resolve.layers.Layer` carries its kind: policy attribution and
``explain`` read ``layer.kind`` instead of parsing the layer's label.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = [
    "CLUSTER_TEMPLATE",
    "COMPOSED",
    "DEFAULT_RESOURCES",
    "INTERRUPTIBLE",
    "KINDS",
    "OPERATOR",
    "POLICY",
    "RESOURCE_TOLERATIONS",
    "ROLE_CLUSTER_TEMPLATE",
    "ROLE_SETTINGS",
    "ROLE_TEMPLATE",
    "RUN_OVERRIDE",
    "TASK_OVERRIDE",
    "TASK_SETTINGS",
    "TASK_TEMPLATE",
    "LayerKind",
    "Owner",
]

# Who writes a layer: the task's author (in the task, one of its roles, or the render's
# --override), the platform (cluster templates, platform.yaml), the task type's operator,
# or the platform's policy.
Owner = Literal["task", "role", "run", "platform", "operator", "policy"]


@dataclass(frozen=True, slots=True, eq=False)
class LayerKind:
    """One kind of layer. ``name`` starts the label of each layer of this kind (a label
    may say more: ``cluster template platform/gpu``); ``shown`` is the name ``explain``
    gives it; ``definition`` marks the layers made from the task and its roles alone,
    the same for every render."""

    name: str
    owner: Owner
    shown: str
    definition: bool = False

    @property
    def authored(self) -> bool:
        """Written by the task's author: what a policy judges as the task's own."""
        return self.owner in ("task", "role", "run")

    def __repr__(self) -> str:
        return f"LayerKind({self.name!r})"


CLUSTER_TEMPLATE = LayerKind("cluster template", "platform", "cluster-template")
INTERRUPTIBLE = LayerKind("platform interruptible", "platform", "interruptible")
TASK_TEMPLATE = LayerKind("task template", "task", "task-template", definition=True)
TASK_SETTINGS = LayerKind("task settings", "task", "task-settings", definition=True)
TASK_OVERRIDE = LayerKind("task override", "task", "run-override", definition=True)
RUN_OVERRIDE = LayerKind("run override", "run", "run-override")
ROLE_CLUSTER_TEMPLATE = LayerKind("role cluster template", "platform", "role-template")
ROLE_TEMPLATE = LayerKind("role template", "role", "role-template", definition=True)
ROLE_SETTINGS = LayerKind("role settings", "role", "role-settings", definition=True)
DEFAULT_RESOURCES = LayerKind("platform defaultResources", "platform", "default-resources")
RESOURCE_TOLERATIONS = LayerKind("platform resourceTolerations", "platform",
                                 "resource-tolerations")
OPERATOR = LayerKind("operator", "operator", "operator")
POLICY = LayerKind("policy", "policy", "policy")

# The fold order. The first nine come from the task, its roles and the run (the
# builders of resolve.pod.LAYER_ORDER, one per kind); defaultResources fills only what
# is still unset; the operator's fields and then the policy go on top.
KINDS: tuple[LayerKind, ...] = (
    CLUSTER_TEMPLATE,       # 1: the task's named template, else the platform default
    INTERRUPTIBLE,          # 1: platform.yaml interruptible, for interruptible tasks
    TASK_TEMPLATE,          # 2: the task's own template
    TASK_SETTINGS,          # 3: image, env, resources...
    TASK_OVERRIDE,          # 4: task.with_overrides(pod_template=...)
    RUN_OVERRIDE,           # 4: render --override
    ROLE_CLUSTER_TEMPLATE,  # 5: a role's named template
    ROLE_TEMPLATE,          # 5: a role's inline template
    ROLE_SETTINGS,          # 6: a role's image, env, resources
    DEFAULT_RESOURCES,      # platform.yaml defaultResources, filling what is unset
    RESOURCE_TOLERATIONS,   # platform.yaml resourceTolerations of the resources asked
    OPERATOR,               # 7: the fields the task type's operator requires
    POLICY,                 # 8: platform.yaml policy.enforce, above everything
)

# Definition layers merged into one by the fast path (resolve._fast): a run of them
# folds as they would one by one.
COMPOSED = LayerKind("composed", "task", "task-template", definition=True)

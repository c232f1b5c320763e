"""What a task type declares about itself: its name and its pod roles."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .templates import Role

__all__ = ["FieldDecl", "RoleSpec", "TaskType", "SCHEDULING_FIELDS", "covers"]

# The pod fields a role with ``inherit="scheduling"`` takes from the task's own layers:
# what it needs to be scheduled where the task may run, and nothing that costs resources.
SCHEDULING_FIELDS = (
    "tolerations",
    "nodeSelector",
    "affinity",
    "imagePullSecrets",
    "serviceAccountName",
    "priorityClassName",
)


@dataclass(frozen=True)
class FieldDecl:
    """A pod field a role does not take from templates, and why.

    ``path`` is relative to the role's PodTemplateSpec, naming the primary container
    ``[primary]``: ``spec.restartPolicy``, ``spec.containers[primary].ports``.
    """

    path: str
    reason: str


@dataclass(frozen=True)
class RoleSpec:
    """One pod role of a task, as its task type declares it.

    - ``template_path``: where the role's PodTemplateSpec sits in the manifest
      (``spec.pytorchReplicaSpecs.Worker.template``); ``""`` when the manifest is the Pod.
    - ``container_name``: the primary container name the operator needs (``pytorch``);
      None keeps the task template's own primary name.
    - ``role``: the user's role config (layers 5 and 6), if any.
    - ``operator_layer``: a PodTemplateSpec fragment that is folded last (layer 7); name the
      primary container ``container_name`` (or ``"primary"`` when that is None).
    - ``owned`` / ``unsupported``: fields declared operator-owned or unsupported, with reasons.
    - ``inherit``: ``"all"`` takes every task layer; ``"scheduling"`` takes only
      :data:`SCHEDULING_FIELDS` and labels/annotations from the task's template and override
      (the cluster template is always taken whole).
    - ``manifest_name``: the name used for this role's pod objects, if it has its own.
    """

    name: str
    template_path: str
    container_name: str | None = None
    role: Role | None = None
    operator_layer: Mapping[str, Any] = field(default_factory=dict)
    owned: tuple[FieldDecl, ...] = ()
    unsupported: tuple[FieldDecl, ...] = ()
    inherit: Literal["all", "scheduling"] = "all"
    interruptible: bool | None = None

    def declared(self, path: str) -> FieldDecl | None:
        """The declaration covering ``path`` (itself or an ancestor), if any. ``[*]`` in a
        declared path matches any list item: ``spec.containers[*].resizePolicy``."""
        for decl in (*self.owned, *self.unsupported):
            if covers(decl.path, path):
                return decl
        return None


def covers(declared: str, path: str) -> bool:
    """Whether the declared path ``declared`` is ``path`` or an ancestor of it."""
    if "[*]" in declared:
        pattern = re.escape(declared).replace(re.escape("[*]"), r"\[[^\]]+\]")
        return re.match(pattern + r"($|[.\[])", path) is not None
    return path == declared or path.startswith((declared + ".", declared + "["))


@dataclass(frozen=True)
class TaskType:
    """A task type: its name (the entry-point name), the distribution that provides it
    (named in 'not installed' errors), the kind of its main manifest and, for a custom
    resource, the file name of the operator's CRD (``kubeflow.org_pytorchjobs.yaml``) that
    the conformance kit validates against."""

    name: str
    distribution: str
    kind: str = "Pod"
    api_version: str = "v1"
    crd_file: str | None = None
    description: str = ""

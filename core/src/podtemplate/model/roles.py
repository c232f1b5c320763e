"""What a task type declares about itself: its name and its pod roles."""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar

from pydantic import BaseModel

from ..errors import DefinitionError
from .templates import Role

if TYPE_CHECKING:
    from .task import Task


__all__ = ["FieldDecl", "POD_ROLE", "REMOVE", "Remove", "RoleSpec", "TaskType",
           "SCHEDULING_FIELDS", "WhenField", "applies", "config_of", "covers",
           "removals_as_null", "single_pod_role"]

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


_STEP = re.compile(r"([^.\[\]]+)(?:\[([^\]]*)\])?")


@dataclass(frozen=True)
class WhenField:
    """The condition of a conditional :class:`FieldDecl`: the role's pod holds ``value``
    at ``path`` (a PodTemplateSpec path, ``[primary]`` for the primary container):
    ``WhenField("spec.hostNetwork", True)``."""

    path: str
    value: str | int | bool

    def holds(self, pod: Mapping[str, Any], primary: str = "primary") -> bool:
        """Whether ``pod`` (a PodTemplateSpec) holds ``value`` at ``path``."""
        node: Any = pod
        for name, selector in _STEP.findall(self.path):
            node = node.get(name) if isinstance(node, Mapping) else None
            if selector:
                wanted = primary if selector == "primary" else selector
                node = next((item for item in node if isinstance(item, Mapping)
                             and item.get("name") == wanted), None) if isinstance(
                    node, list) else None
        return node == self.value and type(node) is type(self.value)

    def __str__(self) -> str:
        return f"when {self.path} is {json.dumps(self.value)}"


class Remove(enum.Enum):
    """The type of :data:`REMOVE`."""

    REMOVE = "REMOVE"

    def __repr__(self) -> str:
        return "REMOVE"


# In an operator layer, the value of a field the operator owns and removes from the role's
# pods whatever a lower layer set (``{"name": "worker", "args": REMOVE}``). A plain None
# removes too, but the conformance kit takes an owned field set to None for a field the
# plugin drops by mistake: REMOVE says the removal is meant. An empty list is a value.
REMOVE: Final = Remove.REMOVE


def removals_as_null(fragment: Mapping[str, Any]) -> Mapping[str, Any]:
    """``fragment`` with every :data:`REMOVE` as the merge's null (which removes), or
    ``fragment`` itself when it holds none."""
    return fragment if not _holds_remove(fragment) else _nulled(fragment)


def _holds_remove(node: Any) -> bool:
    if node is REMOVE:
        return True
    if isinstance(node, Mapping):
        return any(_holds_remove(value) for value in node.values())
    if isinstance(node, list):
        return any(_holds_remove(item) for item in node)
    return False


def _nulled(node: Any) -> Any:
    if node is REMOVE:
        return None
    if isinstance(node, Mapping):
        return {key: _nulled(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_nulled(item) for item in node]
    return node


@dataclass(frozen=True)
class FieldDecl:
    """A pod field a role does not take from templates, and why (docs/plugins.md,
    "Declarations").

    ``path`` is relative to the role's PodTemplateSpec, naming the primary container
    ``[primary]``: ``spec.restartPolicy``, ``spec.containers[primary].ports``; ``[*]``
    matches every item. ``reason`` says why; its prefix says how the conformance kit
    checks the declaration:

    - no prefix (``owned``): the operator layer sets the field, and the pod holds that;
      (``unsupported``): the operator's CRD lacks the field;
    - ``native: <manifest path> ...``: the operator reads the value at that path of its
      own resource instead; the value must be there, and the CRD must keep the path;
    - ``runtime: ...``: the operator fills the field in when it creates the pod; where
      that exempts a whole probed field, the operator layer must set or remove it, a
      ``native:`` declaration map it, or the CRD beside the role's pod template name it;
    - ``lost with <path>: ...`` (``unsupported``): the CRD prunes ``<path>``, and the API
      server then refuses this field.

    ``when``: the declaration holds only for a pod where that :class:`WhenField` holds
    (the operator forces ``dnsPolicy`` only when ``hostNetwork`` is true); elsewhere the
    field must arrive like any other.
    """

    path: str
    reason: str
    when: WhenField | None = None


@dataclass(frozen=True)
class RoleSpec:
    """One pod role of a task, as its task type declares it.

    - ``template_path``: where the role's PodTemplateSpec sits in the manifest
      (``spec.pytorchReplicaSpecs.Worker.template``); ``""`` when the manifest is the Pod.
    - ``container_name``: the primary container name the operator needs (``pytorch``);
      None keeps the task template's own primary name.
    - ``role``: the user's role config (layers 5 and 6), if any.
    - ``operator_layer``: a PodTemplateSpec fragment that is folded last (layer 7); name the
      primary container ``container_name`` (or ``"primary"`` when that is None). A field
      set to :data:`REMOVE` is removed from the role's pod, whatever a lower layer set;
      declare it ``owned`` like any field the operator layer sets.
    - ``owned`` / ``unsupported``: fields declared operator-owned or unsupported, with reasons.
    - ``inherit``: ``"all"`` takes every task layer; ``"scheduling"`` takes only
      :data:`SCHEDULING_FIELDS` and labels/annotations from the task's template and override
      (the cluster template is always taken whole).
    - ``interruptible``: forces the role on (True) or off (False) the platform's
      interruptible layer, whatever the task and role say; None lets them decide.
    - ``task_interruptible``: whether the task's ``interruptible=True`` reaches this role.
      False for a role that must not be preempted when the task's work is (Flyte keeps
      the Spark driver and the Dask scheduler and job runner on demand); the role's own
      ``Role(interruptible=True)`` still opts it in.
    - ``manifest_name``: the name used for this role's pod objects, if it has its own.
    - ``replicas_path``: where the manifest holding the role's pod carries the role's
      replica count (``spec.pytorchReplicaSpecs.Worker.replicas``), for a role whose
      ``replicas`` setting counts its pods; the conformance kit checks it arrives there.
    - ``no_role_config``: why the role takes no role template and no role settings (a
      task type with one pod and no roles); the conformance kit requires it of every role
      whose ``role`` is None, so that a forgotten ``role=`` does not pass unnoticed.
    - ``config_role``: the name the user gave ``role`` in the task config, when the pods
      are another role's (Kubeflow Trainer's ``node`` pods come from ``worker=Role(...)``),
      so that what the role's config did is told as that role's (``explain``).
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
    task_interruptible: bool = True
    replicas_path: str | None = None
    no_role_config: str | None = None
    config_role: str | None = None
    def declared(self, path: str, pod: Mapping[str, Any] | None = None,
                 primary: str = "primary") -> FieldDecl | None:
        """The declaration covering ``path`` (itself or an ancestor), if any. ``[*]`` in a
        declared path matches any list item: ``spec.containers[*].resizePolicy``. With
        ``pod`` (the role's PodTemplateSpec, its primary container named ``primary``), a
        conditional declaration counts only where its condition holds."""
        for decl in (*self.owned, *self.unsupported):
            if covers(decl.path, path) and applies(decl, pod, primary):
                return decl
        return None


POD_ROLE = "pod"  # the one role of a task type whose task is a single pod


def single_pod_role(task_kind: str, *, operator_layer: Mapping[str, Any] | None = None,
                    owned: tuple[FieldDecl, ...] = ()) -> RoleSpec:
    """The one role of a task type whose task is a single pod (``python``, ``container``,
    ``shell``): named :data:`POD_ROLE`, the manifest itself is its pod, and it takes no role
    template or role settings - the task's own are its pod's, as ``no_role_config`` says
    (``task_kind`` names the task in that reason: ``"a shell task is one pod..."``)."""
    return RoleSpec(name=POD_ROLE, template_path="", operator_layer=dict(operator_layer or {}),
                    owned=owned,
                    no_role_config=f"a {task_kind} task is one pod: the task's own template "
                    "and settings are its pod's")


def applies(decl: FieldDecl, pod: Mapping[str, Any] | None, primary: str = "primary") -> bool:
    """Whether ``decl`` holds for ``pod``: always without a condition or a pod."""
    return decl.when is None or pod is None or decl.when.holds(pod, primary)


def covers(declared: str, path: str) -> bool:
    """Whether the declared path ``declared`` is ``path`` or an ancestor of it."""
    if "[*]" in declared:
        pattern = re.escape(declared).replace(re.escape("[*]"), r"\[[^\]]+\]")
        return re.match(pattern + r"($|[.\[])", path) is not None
    return path == declared or path.startswith((declared + ".", declared + "["))


@dataclass(frozen=True)
class TaskType:
    """A task type, as its plugin declares it in ``podtemplate_add_task_types``.

    - ``name``: the entry-point name and the ``task_type`` of its tasks;
    - ``distribution``: the distribution that provides it (named in "not installed" errors);
    - ``kind`` / ``api_version``: the kind of its main manifest;
    - ``config``: the class of its tasks' ``task_config`` (None: its tasks carry none).
      Core checks a task's config against it before any hook of the plugin is called, and
      :func:`config_of` returns it typed;
    - ``crds``: for custom resources, the CRDs of the operator version it targets, shipped
      as package data and named ``"package:resource"``
      (``"podtemplate_pytorch:crds/kubeflow.org_pytorchjobs.json"``, written by
      ``podtemplate crd slim``); every custom resource the task type renders is validated
      against them, at render time, by ``podtemplate validate`` and by the conformance kit.
      Empty by default.
    - ``settings``: the pydantic model of the type's ``taskTypes.<name>`` section of
      platform.yaml (give it ``extra="forbid"``: unknown keys are errors). Core validates the
      section with it when a render starts; hooks read the result with
      :meth:`RenderContext.task_type_settings`. None: the type takes no settings.
    - ``variants``: named ``taskTypes.<name>`` sections that change what the type renders
      (PyTorch's ``{"operator": "trainer"}``); the conformance kit and ``podtemplate
      coverage`` run each as a row of its own, beside the defaults.
    """

    name: str
    distribution: str
    kind: str = "Pod"
    api_version: str = "v1"
    description: str = ""
    config: type[Any] | None = None
    crds: tuple[str, ...] = ()
    settings: type[BaseModel] | None = None
    # Not hashed (a mapping): task types are hashed to cache what is read from their CRDs.
    variants: Mapping[str, Mapping[str, Any]] = field(default_factory=dict, hash=False)


ConfigT = TypeVar("ConfigT")


def config_of(task: Task, config_class: type[ConfigT]) -> ConfigT:
    """The ``task_config`` of ``task`` as ``config_class``; a default ``config_class()``
    when the task carries none. The one lookup every plugin uses, so a wrong config gets
    the same error whatever its task type."""
    config = task.task_config
    if isinstance(config, config_class):
        return config
    fix = f"pass task_config={config_class.__name__}(...)"
    if config is not None:
        raise DefinitionError(
            f"task_config of a {task.task_type} task must be {config_class.__name__}(...), "
            f"not {type(config).__name__}", task=task.name, field="task_config", fix=fix)
    try:
        return config_class()
    except (TypeError, ValueError, DefinitionError):  # the config has required fields
        raise DefinitionError(f"a {task.task_type} task needs a task_config", task=task.name,
                              field="task_config", fix=fix) from None

"""The layers of a pod (docs/design.md) as data: each is a kind (:mod:`.kinds`), a label,
a PodTemplateSpec-shaped fragment and the name its primary container goes by inside that
fragment."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any, TypeVar

from ..merge.aliases import DEFAULT_CONTAINER, MAGIC_CONTAINER_NAMES
from ..merge.rules import DELETE, PATCH
from ..model.roles import SCHEDULING_FIELDS
from ..model.templates import PodTemplate, Resources
from ..stash import StashKey
from .kinds import LayerKind

__all__ = [
    "Layer",
    "empty_pod",
    "has_magic_names",
    "resources_fragment",
    "scheduling_only",
    "settings_layer",
    "template_layer",
    "without_task_resources",
]


T = TypeVar("T")
_NO_NAMES: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())


class Layer:
    """One layer of ``kind``. ``label`` names it for people (the kind's name, and where
    it came from: ``cluster template platform/gpu``). ``fragment`` is read only: merging
    copies what it takes.

    ``source`` is the long-lived object the fragment is derived from (a PodTemplate, the
    Platform), None for a fragment built for one task; ``variant`` says how it was
    derived. Equal (source, variant) means an equal fragment, so work on it - folding,
    validating - can be done once per render and reused (see ``resolve._fast``).
    ``made_from`` names what a fragment built for one task was made from (equal values,
    equal fragments: a settings layer's owner and settings).
    ``proven`` marks a fragment valid by construction (see ``_podcheck``); ``clean`` one
    that core built clean (no directive, no null, no duplicate key) from immutable parts,
    which a copy-on-write fold may take by reference like a template's.

    A plain class with slots rather than a frozen dataclass: several layers are made for
    every role of every task, and a frozen dataclass sets each field through
    ``object.__setattr__``. Treat it as immutable all the same.
    """

    __slots__ = ("_container_names", "_deleted_names", "_facts", "_has_default_entries",
                 "clean", "fragment", "kind", "label", "made_from", "primary_alias", "proven",
                 "source", "variant")

    def __init__(self, label: str, fragment: Mapping[str, Any],
                 primary_alias: str | None = None, source: object | None = None,
                 variant: str = "", proven: bool = False, *, kind: LayerKind,
                 container_names: tuple[tuple[Any, ...], tuple[Any, ...]] | None = None,
                 clean: bool = False, made_from: Hashable | None = None) -> None:
        self.kind = kind
        self.made_from = made_from
        self.label = label
        self.fragment = fragment
        self.primary_alias = primary_alias
        self.source = source
        self.variant = variant
        self.proven = proven
        self.clean = clean
        self._container_names = container_names
        # Built layers name their containers and delete none.
        self._deleted_names = None if container_names is None else _NO_NAMES
        self._has_default_entries: bool | None = None
        self._facts: dict[Hashable, Any] | None = None

    def __repr__(self) -> str:
        return (f"Layer(label={self.label!r}, primary_alias={self.primary_alias!r}, "
                f"variant={self.variant!r}, proven={self.proven!r})")

    def fact(self, key: StashKey[T], make: Callable[[], T], *parts: Hashable) -> T:
        """``make()`` the first time ``key`` (with ``parts``) is asked of this layer, the
        same value after: what can be computed from the fragment alone (its proof,
        whether it fits a CRD's pod schema, its magic names resolved for a role). The
        layer of a template is made once and kept on the template
        (:func:`template_layer`), so its facts are computed once per template, not once
        per render or per pod."""
        slot: Hashable = (key, *parts) if parts else key
        facts = self._facts
        if facts is None:
            facts = self._facts = {}
        elif slot in facts:
            value: T = facts[slot]
            return value
        made = facts[slot] = make()
        return made

    # Read for every role a layer is folded into; computed once per layer object.
    def container_names(self) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """The names of the containers and init containers the fragment gives (a name
        whose last entry deletes it is not given)."""
        if self._container_names is None:
            self._read_names()
        assert self._container_names is not None
        return self._container_names

    def deleted_names(self) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """The names of the containers and init containers the fragment deletes: those
        whose last entry is ``$patch: delete``."""
        if self._deleted_names is None:
            self._read_names()
        assert self._deleted_names is not None
        return self._deleted_names

    def _read_names(self) -> None:
        spec = self.fragment.get("spec")
        if not spec:
            self._container_names = self._deleted_names = _NO_NAMES
            return
        (given, gone), (init_given, init_gone) = (
            _names_in(spec.get("containers")), _names_in(spec.get("initContainers")))
        self._container_names = given, init_given
        self._deleted_names = gone, init_gone

    def has_default_entries(self) -> bool:
        """Whether the fragment has ``default``/``default-init`` container entries, whose
        expansion depends on the role's container names."""
        found = self._has_default_entries
        if found is None:
            spec = self.fragment.get("spec") or {}
            found = self._has_default_entries = any(
                isinstance(c, dict) and c.get("name") in MAGIC_CONTAINER_NAMES
                for name in ("containers", "initContainers") for c in spec.get(name) or ())
        return found


def _names_in(items: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """``(given, deleted)``: the names a list of container entries gives, in order, and
    those whose last entry is ``$patch: delete``."""
    if not items:
        return (), ()
    given: list[Any] = []
    deleted: dict[Any, bool] = {}  # name -> whether its last entry deletes it
    for item in items:
        # A list's own `$patch: replace` marker names no container: it gives none.
        if isinstance(item, dict) and isinstance(name := item.get("name"), str):
            gone = item.get(PATCH) == DELETE
            deleted[name] = gone
            if not gone:
                given.append(name)
    return (tuple(name for name in given if not deleted[name]),
            tuple(name for name, gone in deleted.items() if gone))


Narrow = Callable[[Layer], Layer]
# A template's layer, kept on the template per label, primary alias and narrowing.
_TEMPLATE_LAYER = StashKey[Layer]("the layer of a template")


def template_layer(kind: LayerKind, label: str, template: PodTemplate, *,
                   alias: str | None = None, narrow: Narrow | None = None) -> Layer:
    """The layer of ``template`` under ``label`` (narrowed by ``narrow``), made once and
    kept on the template: templates are immutable, so its facts (:meth:`Layer.fact`)
    hold for every render."""
    return template.compiled(_TEMPLATE_LAYER,
                             lambda: _template_layer(kind, label, template, alias, narrow),
                             label, alias, narrow)


def _template_layer(kind: LayerKind, label: str, template: PodTemplate, alias: str | None,
                    narrow: Narrow | None) -> Layer:
    fragment: dict[str, Any] = {"spec": template.pod_spec}
    if template.labels or template.annotations:
        fragment["metadata"] = {"labels": template.labels, "annotations": template.annotations}
    layer = Layer(label, fragment, alias or template.primary_container_name, source=template,
                  kind=kind)
    return narrow(layer) if narrow else layer


def resources_fragment(requests: Resources | None, limits: Resources | None,
                       gpu_name: str) -> dict[str, dict[str, str]]:
    """requests/limits as a container ``resources`` fragment. A GPU request or limit is
    mirrored to the other side: Kubernetes requires them equal for extended resources."""
    out: dict[str, dict[str, str]] = {}
    if requests is not None:
        out["requests"] = requests.to_k8s(gpu_name)
    if limits is not None:
        out["limits"] = limits.to_k8s(gpu_name)
    gpu = (requests and requests.gpu) or (limits and limits.gpu)
    if gpu:
        out.setdefault("requests", {})[gpu_name] = gpu
        out.setdefault("limits", {})[gpu_name] = gpu
    return out


def settings_layer(kind: LayerKind, label: str,
                   parts: tuple[list[dict[str, str]], dict[str, Any]], *, primary: str,
                   image: str | None = None,
                   command: tuple[str, ...] | None = None, args: tuple[str, ...] | None = None,
                   pod: tuple[dict[str, Any], dict[str, Any]] | None = None,
                   made_from: Hashable | None = None) -> Layer | None:
    """Task or role settings applied to the primary container; None when nothing is set.
    ``parts`` is the env list and resources of the task or role (the fragment only
    reads them). ``pod`` is ``(spec fields, primary container fields)`` more (a task's
    accelerator and shared memory, resolve/flyte.py)."""
    spec_fields, container_fields = pod or ({}, {})
    container: dict[str, Any] = {**container_fields, "name": primary}
    if image:
        container["image"] = image
    if command is not None:
        container["command"] = list(command)
    if args is not None:
        container["args"] = list(args)
    env_items, resources = parts
    if env_items:
        container["env"] = env_items
    if resources:
        container["resources"] = resources
    if len(container) == 1 and not spec_fields:
        return None
    # Valid by construction when image, command and args are strings: env names and
    # quantities were checked when the task was defined, the primary name is checked
    # with the final pod. Pod fields are proven with the pod.
    proven = not spec_fields and all(
        type(v) is str for v in (image or "", *(command or ()), *(args or ())))
    # Clean: made here from the task's or role's compiled (immutable) settings and from
    # pod fields made afresh for this layer.
    return Layer(label, {"spec": {**spec_fields, "containers": [container]}}, primary,
                 proven=proven, kind=kind, container_names=((primary,), ()), clean=True,
                 made_from=made_from)


def scheduling_only(layer: Layer) -> Layer:
    """The part of a layer a scheduling-only role takes: placement fields and metadata."""
    spec = layer.fragment.get("spec") or {}
    fragment: dict[str, Any] = {"spec": {k: v for k, v in spec.items() if k in SCHEDULING_FIELDS}}
    if "metadata" in layer.fragment:
        fragment["metadata"] = layer.fragment["metadata"]
    return Layer(f"{layer.label} (scheduling fields)", fragment, layer.primary_alias,
                 source=layer.source, variant=f"{layer.variant}/scheduling", kind=layer.kind)


def without_task_resources(layer: Layer) -> Layer:
    """A cluster template layer for a scheduling-only role: the ``resources`` its primary
    (and ``default``) container would give the task are dropped, so a GPU template does
    not make a helper pod such as a job submitter request a GPU."""
    spec = layer.fragment.get("spec") or {}
    task_names = {layer.primary_alias, DEFAULT_CONTAINER}
    containers = [
        {k: v for k, v in c.items() if k != "resources"} if c.get("name") in task_names else c
        for c in spec.get("containers") or ()
    ]
    if not containers:
        return layer
    return Layer(layer.label, {**layer.fragment, "spec": {**spec, "containers": containers}},
                 layer.primary_alias, source=layer.source,
                 variant=f"{layer.variant}/no-task-resources", kind=layer.kind)


def empty_pod(primary: str) -> dict[str, Any]:
    """Where the fold of a role starts: its primary container, named."""
    return {"metadata": {}, "spec": {"containers": [{"name": primary}]}}


def has_magic_names(spec: Any, primary: str, alias: str | None) -> bool:
    """Whether expanding the layer's magic container names changes anything: without a
    ``default``/``default-init`` entry and without a primary alias to rename, the
    expansion is a plain copy, and the merge copies what it takes anyway."""
    for list_name in ("containers", "initContainers"):
        items = spec.get(list_name)
        if not isinstance(items, list):
            continue
        for container in items:
            name = container.get("name") if isinstance(container, dict) else None
            if name in MAGIC_CONTAINER_NAMES or (name == alias and alias != primary):
                return True
    return False

"""The fast paths of resolution, fenced here: everything in this module exists for speed.
With provenance recorded, the fold is the plain one (:func:`podtemplate.resolve.pod.
fold_layer`: no copy-on-write, every pod validated whole), so ``render`` with and without
provenance compares the two paths (``core/tests/test_layer_cache.py`` does).

What is known of a template alone is computed once and kept on its layer (see
:meth:`~podtemplate.resolve.layers.Layer.fact`), not once per pod:

- **Proving layers valid.** See :mod:`podtemplate.model._podcheck`: when every layer of a
  pod is proven, the final pod is valid without validating it whole. A template is
  proven once; a fragment built for one task is proven on its own (it is small).
- **Magic names resolved.** A template's ``default``/``primary`` entries resolved for a
  role's container names, once per role shape.
- **Clean.** A template whose fragment is what merging it over nothing gives can be
  taken by reference by the copy-on-write fold (:class:`podtemplate.merge._fast.Cow`):
  the pod shares its untouched subtrees instead of copying them.

Shortcuts of the fold of one role: a layer that sets only the primary container is
merged there rather than from the pod's root; a layer without magic container names is
not expanded; a pod whose layers are all proven is not validated whole, once the few
values no layer gave are checked.

**The first fold made once.** Folding a long-lived layer (a cluster template, the
platform's interruptible fragment, a task's composed layers) over the empty pod of a
role gives the same pod for every task it starts: that pod is made once per layer and
role shape and kept on the layer; each role's fold starts from a copy of its root,
``metadata``, ``spec`` and container list, sharing what they hold (copy-on-write).

**Definition layers composed.** The layers a task and its roles bring (template,
settings, override; a role's template and settings) do not change between renders.
Where several follow one another and come again (a task rendered a second time), they
are merged into one layer, kept on the task (one slot per role and primary name); every
render after folds that one layer in their place. A run seen once is only noted: a
task rendered once keeps a few references, not a composed layer (nor its settings
layers, which are kept on the task and role from the second render on, so that later
renders reach the composition without making them again: ``order._kept_settings``). Only
layers whose composition gives the same pod as folding them one by one, over whatever
lies below, are composed: proven valid (so a field keeps
its type in every layer), clean (no directive, no null: nothing in them acts on what
lies below except by being merged over it), and without ``default`` entries (whose
expansion depends on the containers of every layer). For such layers every merge rule is
associative: keys and keyed items keep the order in which the lowest layer gave them,
later layers win, unions add what is new in order, atomic lists are replaced.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

from ..errors import PodTemplateError
from ..merge._fast import Cow, clean_as_merged
from ..merge.aliases import MAGIC_CONTAINER_NAMES
from ..merge.engine import clean, expand_container_aliases, merge_into, rules_at
from ..merge.rules import PATCH
from ..model._podcheck import proves_pod_template_spec
from ..model.names import dns1123_label_ok
from ..model.podspec import check_pod_spec
from ..stash import StashKey
from .kinds import COMPOSED
from .layers import Layer, empty_pod, has_magic_names

__all__ = [
    "COMPOSED_SLOTS",
    "PROVEN",
    "FastFold",
    "Slots",
    "aliases_expanded",
    "composable",
    "composed_runs",
    "composed_valid",
    "expanded_spec",
    "layer_proven",
    "primary_only",
    "shareable",
    "started_pod",
]

# What is known of a layer (Layer.fact), each under its key and what else it depends on.
PROVEN = StashKey[bool]("the layer is proven valid")
_STARTED_POD = StashKey[dict[str, Any]]("the layer folded over a role's empty pod")
_COMPOSABLE = StashKey[bool]("the layer may be composed with its neighbours")
_EXPANDED = StashKey[Mapping[str, Any]]("the layer's spec, magic names resolved")
_CLEAN = StashKey[bool]("the layer's fragment or expansion is clean")


class FastFold:
    """The copy-on-write fold of one role (``primary`` and its container names): called
    with the pod and a layer, it folds the layer as :func:`podtemplate.resolve.pod.
    fold_layer` does, into a pod that shares what no later layer changes with the
    layers (``cow``)."""

    __slots__ = ("cow", "init_names", "names", "primary")

    def __init__(self, primary: str, names: Sequence[str], init_names: Sequence[str]) -> None:
        self.primary = primary
        self.names = names
        self.init_names = init_names
        self.cow = Cow()

    def start(self, layers: Sequence[Layer], slots: Slots
              ) -> tuple[dict[str, Any], list[Layer]]:
        """The pod to fold into and the layers left to fold: runs of definition layers
        composed (``slots``: kept on the task), and the first layer's fold over the empty
        pod made once and kept on that layer - a platform's layer, which many tasks
        share, or a composition; not a task's own layer, which a task rendered once
        would keep."""
        plan = composed_runs(layers, self.primary, slots)
        if plan and (not plan[0].kind.definition or plan[0].kind is COMPOSED):
            acc = started_pod(plan[0], self.primary, self.names, self.init_names,
                              lambda: self._over_empty(plan[0]), self.cow)
            if acc is not None:
                return acc, plan[1:]
        return empty_pod(self.primary), plan

    def _over_empty(self, first: Layer) -> dict[str, Any]:
        acc = empty_pod(self.primary)
        FastFold(self.primary, self.names, self.init_names)(acc, first)
        return acc

    def __call__(self, acc: dict[str, Any], layer: Layer) -> None:
        primary, cow = self.primary, self.cow
        fragment = layer.fragment
        if layer.proven:
            container = primary_only(fragment, primary, acc, cow)
            if container is not None:
                # The one merge, entered at the primary container instead of the pod's root.
                cow.share = layer.clean
                merge_into(container, fragment["spec"]["containers"][0],
                           root="spec.containers[]", cow=cow)
                return
        expansion = None
        spec = fragment.get("spec")
        if spec is not None and has_magic_names(spec, primary, layer.primary_alias):
            names, init_names = self.names, self.init_names

            def expand() -> Mapping[str, Any]:
                return aliases_expanded(spec, primary, layer.primary_alias, lambda: (
                    expand_container_aliases(
                        spec, primary_name=primary, layer_primary_name=layer.primary_alias,
                        container_names=names, init_container_names=init_names)))

            expansion, expanded = expanded_spec(layer, primary, names, init_names, expand)
            fragment = {**fragment, "spec": expanded}
        cow.share = shareable(layer, fragment, expansion)
        merge_into(acc, fragment, root="", layer=layer.label, cow=cow)


def started_pod(first: Layer, primary: str, names: Sequence[str], init_names: Sequence[str],
                fold_over_empty: Callable[[], dict[str, Any]], cow: Cow
                ) -> dict[str, Any] | None:
    """The pod after ``first`` is folded over the empty pod of a role (``fold_over_empty()``
    does that fold), made once per role shape and kept on ``first``; None for a layer
    made for one task. The pod's root, ``metadata``, ``spec`` and container list are its
    own; what they hold is borrowed by ``cow``."""
    if first.source is None:
        return None
    defaults = (tuple(names), tuple(init_names)) if first.has_default_entries() else None
    base = first.fact(_STARTED_POD, fold_over_empty, primary, defaults)
    spec = cow.own(base["spec"])
    containers = spec.get("containers")
    if containers is None:  # the layer deleted them: the plain fold reports it
        return None
    spec["containers"] = cow.own_list(containers)
    return {"metadata": cow.own(base["metadata"]), "spec": spec}


def composable(layer: Layer, primary: str) -> bool:
    """Whether ``layer`` may be composed with its neighbours (see the module docstring);
    known once per layer."""
    return layer.fact(_COMPOSABLE, lambda: (
        layer_proven(layer) and not layer.has_default_entries()
        and _own_part(layer, primary)[1]), primary)


def _own_part(layer: Layer, primary: str) -> tuple[Mapping[str, Any], bool]:
    """The fragment a layer without ``default`` entries folds for a role with this
    primary name (its primary alias renamed), and whether it is clean: the fragment and
    the verdict the fold itself uses, kept on the layer. Renamed, a clean layer may not
    be: an entry under the alias composed with a literal one concatenates their union
    lists (merge.aliases), which the merge gives once."""
    fragment = layer.fragment
    spec = fragment.get("spec")
    alias = layer.primary_alias
    if spec is None or not has_magic_names(spec, primary, alias):
        return fragment, shareable(layer, fragment, None)
    key, expanded = expanded_spec(layer, primary, (), (),
                                  lambda: _primary_renamed(spec, primary, alias))
    part = {**fragment, "spec": expanded}
    return part, shareable(layer, part, key)


Slots = dict[int, tuple[tuple[object, ...], Layer | None]]
# Kept on a task, per role name and primary name: its runs of layers, noted or composed.
COMPOSED_SLOTS = StashKey[Slots]("a task's composed layers")


def composed_runs(layers: Sequence[Layer], primary: str, slots: Slots) -> list[Layer]:
    """``layers`` (lowest first) with each run of two or more composable definition
    layers replaced by their composition, once the same run has come twice. ``slots``
    (kept on the task, one per role and primary name) holds, for each run, what its
    layers were made from (:func:`_made_from`) and, once composed, their composition.

    A run seen for the first time is noted and folded one by one: a task rendered once
    (the CLI renders each task once) keeps a few references per role, not a composed
    layer. When the same run comes again it is composed, and every render after folds
    that one layer. Where a plugin makes a role afresh for each render, its layers are
    new: the note is replaced. Nothing piles up on the task, nor on a role or template
    that many tasks share.
    """
    plan: list[Layer] = []
    run: list[Layer] = []
    for layer in layers:
        if layer.kind.definition and composable(layer, primary):
            run.append(layer)
            continue
        _flush(run, primary, plan, slots)
        plan.append(layer)
    _flush(run, primary, plan, slots)
    return plan


def _flush(run: list[Layer], primary: str, plan: list[Layer], slots: Slots) -> None:
    if len(run) > 1:
        made_from = tuple(_made_from(layer) for layer in run)
        place = len(plan)  # the run's place in the plan
        held = slots.get(place)
        if held is None or held[0] != made_from:  # new here: noted, folded one by one
            slots[place] = (made_from, None)
            plan.extend(run)
        else:
            composed = held[1]
            if composed is None:
                composed = _compose(run, primary)
                slots[place] = (made_from, composed)
            plan.append(composed)
    else:
        plan.extend(run)
    run.clear()


def _made_from(layer: Layer) -> object:
    """What tells that a layer gives the same fragment as last time: a template's layer
    is the same object every render (kept on the template); a settings layer is kept on
    its task or role under what its ``made_from`` names (``order._kept_settings``)."""
    return layer if layer.made_from is None else layer.made_from


def _primary_renamed(spec: Mapping[str, Any], primary: str, alias: str | None
                     ) -> Mapping[str, Any]:
    """A composable layer's spec with its primary alias resolved (it has no default
    entries, so no other container name matters)."""
    return aliases_expanded(spec, primary, alias, lambda: expand_container_aliases(
        spec, primary_name=primary, layer_primary_name=alias, container_names=(),
        init_container_names=()))


def _compose(layers: Sequence[Layer], primary: str) -> Layer:
    """One layer that folds like ``layers`` one by one: their fragments, primary aliases
    renamed to ``primary``, merged lowest first."""
    fragment: dict[str, Any] = {}
    cow = Cow()  # shares what no later layer changes with the templates, like a fold
    for layer in layers:
        # Composable: its part (primary alias renamed) is clean, and the layer outlives
        # the composition, so the part's subtrees are taken by reference.
        part, cow.share = _own_part(layer, primary)
        merge_into(fragment, part, root="", cow=cow)
    label = " + ".join(layer.label for layer in layers)
    return Layer(label, fragment, primary, source=layers[-1], variant="composed",
                 proven=True, clean=True, kind=COMPOSED)


def expanded_spec(layer: Layer, primary: str, names: Sequence[str],
                  init_names: Sequence[str], expand: Callable[[], Mapping[str, Any]]
                  ) -> tuple[Hashable | None, Mapping[str, Any]]:
    """``(key, expand())`` - the layer's spec with its magic container names resolved -
    done once for a template's layer and each role shape, and kept on the layer under
    ``key`` (None for a one-task fragment, expanded each time). The result is read only,
    like every fragment."""
    if layer.source is None:
        return None, expand()
    defaults = (tuple(names), tuple(init_names)) if layer.has_default_entries() else None
    key = (primary, defaults)
    return key, layer.fact(_EXPANDED, expand, *key)


def shareable(layer: Layer, fragment: Mapping[str, Any], expansion: Hashable | None) -> bool:
    """Whether a copy-on-write fold may take ``fragment`` (the layer's fragment, or its
    expansion under ``expansion``) by reference: it belongs to a template's layer, which
    is immutable and outlives every render, and it is clean (see
    :func:`podtemplate.merge._fast.is_clean`, found in one walk by
    :func:`~podtemplate.merge._fast.clean_as_merged`); known once per layer and
    expansion."""
    if layer.source is None:
        # Made for one task: copied, as a plugin may change it after the render, unless
        # core built it clean from immutable parts (settings, defaultResources).
        return layer.clean
    return layer.fact(_CLEAN, lambda: clean_as_merged(fragment, rules_at("")), expansion)


def layer_proven(layer: Layer) -> bool:
    """True if ``layer`` is surely valid (see :mod:`podtemplate.model._podcheck`); once per
    template for a template's layer (kept on it), every time for a one-task fragment."""
    if layer.proven:
        return True
    if layer.source is None:
        return _proves(layer.fragment)
    return layer.fact(PROVEN, lambda: _proves(layer.fragment))


def _proves(fragment: Any) -> bool:
    """The fragment as the merge takes it - directives applied to nothing, nulls dropped -
    is valid with canonical names, and passes the checks the client models leave out."""
    if not proves_pod_template_spec(fragment):
        try:
            fragment = clean(fragment)
        except PodTemplateError:
            return False
        if not proves_pod_template_spec(fragment):
            return False
    try:
        # Duplicate keys in a fragment do not matter: the merge gives each key once.
        check_pod_spec(fragment.get("spec") or {}, duplicates=False)
    except PodTemplateError:
        return False
    return True


# --------------------------------------------------- shortcuts of the fold of one role


def primary_only(fragment: Mapping[str, Any], primary: str, acc: dict[str, Any],
                 cow: Cow | None) -> dict[str, Any] | None:
    """``acc``'s primary container, owned (copied first if the fold holds it by
    reference), when ``fragment`` sets nothing but that container (settings and default
    resources do): merging there is what merging at the root would come to, without
    walking down to it."""
    if len(fragment) != 1:
        return None
    spec = fragment.get("spec")
    if type(spec) is not dict or len(spec) != 1:
        return None
    containers = spec.get("containers")
    if type(containers) is not list or len(containers) != 1:
        return None
    item = containers[0]
    if type(item) is not dict or item.get("name") != primary or PATCH in item:
        return None
    held: list[dict[str, Any]] = (acc.get("spec") or {}).get("containers") or []
    for position, container in enumerate(held):
        if container.get("name") == primary:
            if cow is not None:
                # A list taken whole holds borrowed items that are not marked: copying it
                # marks them (the merge's rule for a borrowed list, _merge_list).
                if id(held) in cow.borrowed:
                    held = acc["spec"]["containers"] = cow.own_list(held)
                if id(container) in cow.borrowed:
                    container = held[position] = cow.own(container)
            found: dict[str, Any] = container
            return found
    return None


def aliases_expanded(spec: Mapping[str, Any], primary: str, alias: str | None,
                     expand: Callable[[], dict[str, Any]]) -> Mapping[str, Any]:
    """``expand()`` (the layer's magic container names resolved, a deep copy), or, when
    the only magic name is one entry under the primary alias, the spec with that entry
    renamed: the same pod data (templates are plain JSON-shaped data), sharing all but
    the container list and the renamed entry, read only like every fragment."""
    containers = spec.get("containers")
    if type(containers) is not list or _init_defaults(spec):
        return expand()
    found = None
    for position, container in enumerate(containers):
        name = container.get("name") if type(container) is dict else None
        if name is None or name in MAGIC_CONTAINER_NAMES or name == primary:
            return expand()  # a default entry, or a literal one to compose with
        if name == alias:
            if found is not None:
                return expand()  # two entries composed into one
            found = position
    if found is None:
        return expand()
    renamed = list(containers)
    renamed[found] = {**containers[found], "name": primary}
    return {**spec, "containers": renamed}


def _init_defaults(spec: Mapping[str, Any]) -> bool:
    return any(type(c) is dict and c.get("name") in MAGIC_CONTAINER_NAMES
               for c in spec.get("initContainers") or ())


def composed_valid(pod: dict[str, Any], primary: str) -> bool:
    """What layers proven valid one by one (see ``_podcheck``) do not settle for the pod
    they merge into: the names and values that no layer gave - the primary container's
    name, the default image, the system labels - and that the pod still has containers. When this is
    False, the pod is validated whole, and that reports the problem."""
    containers = pod["spec"].get("containers")
    if type(containers) is not list or not containers or type(containers[0].get("image")) \
            is not str:
        return False
    if type(primary) is not str or not dns1123_label_ok(primary):
        return False
    metadata = pod["metadata"]
    for values in (metadata["labels"], metadata["annotations"]):
        for value in values.values():
            if type(value) is not str:
                return False
    return True

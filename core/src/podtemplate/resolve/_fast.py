"""The fast paths of resolution, fenced here: everything in this module exists for speed.
With provenance recorded, the fold is the plain one (no copy-on-write, every pod
validated as the proofs allow), so ``render`` with and without provenance compares the
two paths (``core/tests/test_layer_cache.py`` does).

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
Where several follow one another, they are merged into one layer the second time the
task renders a role with that primary name, and kept on the task; each later render
folds that one layer in their place (a first render keeps nothing: a one-off render's
memory stays flat in the tasks). Only layers whose composition gives the same pod as folding
them one by one, over whatever lies below, are composed: proven valid (so a field keeps
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
from .layers import Layer

__all__ = [
    "Slots",
    "aliases_expanded",
    "composable",
    "composed_runs",
    "composed_valid",
    "empty_pod",
    "expanded_spec",
    "has_magic_names",
    "layer_proven",
    "primary_only",
    "shareable",
    "started_pod",
]

Fold = Callable[[dict[str, Any], Layer], None]


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
    base: dict[str, Any] = first.fact(("started pod", primary, defaults), fold_over_empty)
    spec = cow.own(base["spec"])
    containers = spec.get("containers")
    if containers is None:  # the layer deleted them: the plain fold reports it
        return None
    spec["containers"] = cow.own_list(containers)
    return {"metadata": cow.own(base["metadata"]), "spec": spec}


def composable(layer: Layer, primary: str) -> bool:
    """Whether ``layer`` may be composed with its neighbours (see the module docstring);
    known once per layer."""
    return bool(layer.fact(("composable", primary), lambda: (
        layer_proven(layer) and not layer.has_default_entries()
        and _own_part(layer, primary)[1])))


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


Slots = dict[int, tuple[tuple[Layer, ...], Layer | None]]


def composed_runs(entries: Sequence[tuple[Layer, bool]], primary: str, slots: Slots
                  ) -> list[Layer]:
    """The layers of ``entries`` (``(layer, made from the definition)``, lowest first)
    with each run of two or more composable definition layers replaced by their
    composition. ``slots`` (kept on the task, one per role and primary name) holds, for
    each run, the layers it last had and their composition.

    Only a task's second and later renders come here (its first keeps nothing, see
    ``resolve.pod``). The first of them composes each run; later ones reuse the
    composition while the layers are the same objects, as a definition's are (kept on
    its templates, task and roles). Where a plugin makes a role afresh for each render,
    its layers are new: they are folded one by one and composed only if the same layers
    come again. The slot is replaced, so nothing piles up on the task, nor on a role or
    template that many tasks share.
    """
    plan: list[Layer] = []
    run: list[Layer] = []
    for layer, own in entries:
        if own and composable(layer, primary):
            run.append(layer)
            continue
        _flush(run, primary, plan, slots)
        plan.append(layer)
    _flush(run, primary, plan, slots)
    return plan


def _flush(run: list[Layer], primary: str, plan: list[Layer], slots: Slots) -> None:
    if len(run) > 1:
        layers = tuple(run)
        place = len(plan)  # the run's place in the plan
        held = slots.get(place)
        if held is None:  # the first render that keeps the task's layers: composed
            held = slots[place] = (layers, _compose(layers, primary))
            plan.append(held[1])
        elif held[0] != layers:  # Layer equality is identity: new layers, folded
            slots[place] = (layers, None)
            plan.extend(run)
        else:
            composed = held[1]
            if composed is None:
                composed = _compose(layers, primary)
                slots[place] = (layers, composed)
            plan.append(composed)
    else:
        plan.extend(run)
    run.clear()


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
                 proven=True, clean=True)


def empty_pod(primary: str) -> dict[str, Any]:
    """Where the fold of a role starts: its primary container, named."""
    return {"metadata": {}, "spec": {"containers": [{"name": primary}]}}


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
    key = ("expanded", primary, defaults)
    return key, layer.fact(key, expand)


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
    return layer.fact(("clean", expansion), lambda: clean_as_merged(fragment, rules_at("")))


def layer_proven(layer: Layer) -> bool:
    """True if ``layer`` is surely valid (see :mod:`podtemplate.model._podcheck`); once per
    template for a template's layer (kept on it), every time for a one-task fragment."""
    if layer.proven:
        return True
    if layer.source is None:
        return _proves(layer.fragment)
    return layer.fact("proven", lambda: _proves(layer.fragment))


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

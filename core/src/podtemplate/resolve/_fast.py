"""The fast paths of resolution, fenced here: everything in this module exists for speed,
and with provenance recorded none of it is used, so ``render`` with and without
provenance compares the two paths (tests/test_layer_cache.py does).

Per-render caches: what many tasks share is folded and proven once. Thousands of tasks
of one render share a handful of templates: the cluster default, a few named templates,
the inline templates their teams reuse. Two things are done once per distinct template
instead of once per pod:

- **Folding the shared prefix.** The leading layers of a role that come from long-lived
  sources (cluster template, platform interruptible fragment, task template) give the
  same partial pod for every task with the same sources, primary name and container
  names. It is folded once and kept as a ``marshal`` image; each task starts from a
  fresh copy of it (``marshal.loads`` builds new objects, sharing nothing).
- **Proving layers valid.** See :mod:`podtemplate.model._podcheck`: when every layer of a pod
  is proven, the final pod is valid without validating it whole. A template is proven
  once; a fragment built for one task is proven on its own (it is small).

Shortcuts of the fold of one role: a layer that sets only the primary container is
merged there rather than from the pod's root; a layer without magic container names is
not expanded; a pod whose layers are all proven is not validated whole, once the few
values no layer gave are checked.
"""

from __future__ import annotations

import marshal
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..context import RenderContext
from ..errors import PodTemplateError
from ..merge.aliases import MAGIC_CONTAINER_NAMES
from ..merge.engine import clean
from ..merge.rules import PATCH
from ..model._podcheck import proves_pod_template_spec
from ..model.names import dns1123_label_ok
from ..model.podspec import check_pod_spec
from .layers import Layer

__all__ = [
    "composed_valid",
    "empty_pod",
    "expanded_spec",
    "has_magic_names",
    "layer_proven",
    "primary_only",
    "shared_prefix",
]

Fold = Callable[[dict[str, Any], Layer], None]
FoldAs = Callable[[str, Sequence[str]], Fold]
# Not a DNS-1123 label, so no validated template names a container so.
_STAND_IN = "<primary>"
_PREFIXES = "layer-cache:prefixes"
_PLANS = "layer-cache:plans"


def empty_pod(primary: str) -> dict[str, Any]:
    """Where the fold of a role starts: its primary container, named."""
    return {"metadata": {}, "spec": {"containers": [{"name": primary}]}}


def shared_prefix(layers: Sequence[Layer], primary: str, names: Sequence[str],
                  init_names: Sequence[str], fold_as: FoldAs, context: RenderContext
                  ) -> tuple[dict[str, Any], int, bool]:
    """A fresh pod with the leading shared layers folded in: ``(pod, how many layers
    were folded, whether they are all proven valid)``. ``fold_as(primary, names)`` folds
    a layer for a role whose primary container is called ``primary``.

    Every prefix is remembered, so a new combination (the default template, then a
    team template not seen before) starts from the longest one already folded. The
    roles of every task type share the prefixes: they are folded with a stand-in for
    the primary container's name, renamed in the copy - unless a layer names a
    container like the role's primary on its own, which then merges into it.
    """
    count = 0
    while count < len(layers) and layers[count].source is not None:
        count += 1
    if count == 0:
        return empty_pod(primary), 0, True
    shared = layers[:count]
    stand_in, names, keys = _plan(shared, primary, names, init_names, context)
    table = context.memo(_PREFIXES)
    done, pod, proven = 0, None, True
    for length in range(count, 0, -1):
        entry = table.get(keys[length - 1])
        if entry is not None and entry[0] is not None:
            done, pod, proven = length, marshal.loads(entry[0]), entry[1]
            break
    if pod is None:
        pod = empty_pod(stand_in)
    fold = fold_as(stand_in, names) if done < count else None
    for length in range(done + 1, count + 1):
        layer = layers[length - 1]
        fold(pod, layer)  # type: ignore[misc]
        proven = proven and layer_proven(layer, context)
        # The sources are kept with the entry: the ids in its key stay theirs.
        table[keys[length - 1]] = (_snapshot(pod), proven, layer.source)
    if stand_in != primary:
        # A layer may have deleted the primary container (and with it the whole list).
        for container in (pod.get("spec") or {}).get("containers") or ():
            if container.get("name") == stand_in:
                container["name"] = primary
                break
    return pod, count, proven


def _plan(shared: Sequence[Layer], primary: str, names: Sequence[str],
          init_names: Sequence[str], context: RenderContext
          ) -> tuple[str, Sequence[str], list[tuple[Any, ...]]]:
    """``(the primary's name in the fold, the container names in the fold, a key for
    each prefix)``, once per render for each combination of shared layers and names
    (template layers are made once per render, so the same objects come back)."""
    def make() -> tuple[str, Sequence[str], list[tuple[Any, ...]]]:
        stand_in = _STAND_IN if _primary_unnamed(shared, primary) else primary
        fold_names = names
        if stand_in != primary:
            fold_names = [stand_in if name == primary else name for name in names]
        return stand_in, fold_names, _prefix_keys(shared, stand_in, fold_names, init_names)

    key = (primary, tuple(names), tuple(init_names), *map(id, shared))
    # The layers are kept with the entry: the ids in its key stay theirs.
    return context.remember(_PLANS, key, make, keep=tuple(shared))


def _primary_unnamed(shared: Sequence[Layer], primary: str) -> bool:
    """No layer has a container called ``primary`` other than its own primary (its
    alias): folded under a stand-in name, such a container would stay apart."""
    for layer in shared:
        if layer.primary_alias == primary:
            continue
        spec = layer.fragment.get("spec") or {}
        for container in spec.get("containers") or ():
            if isinstance(container, dict) and container.get("name") == primary:
                return False
    return True


def _prefix_keys(shared: Sequence[Layer], primary: str, names: Sequence[str],
                 init_names: Sequence[str]) -> list[tuple[Any, ...]]:
    """A key for each prefix of ``shared``. The fold of a layer depends on its fragment,
    its primary alias and the role's primary name, and - only where it has
    ``default``/``default-init`` entries - on the container names those expand to."""
    keys: list[tuple[Any, ...]] = []
    key: tuple[Any, ...] = (primary,)
    for layer in shared:
        part: tuple[Any, ...] = (id(layer.source), layer.variant, layer.primary_alias)
        if layer.has_default_entries():
            part += (tuple(names), tuple(init_names))
        key = (key, part)
        keys.append(key)
    return keys


def expanded_spec(layer: Layer, primary: str, names: Sequence[str],
                  init_names: Sequence[str], expand: Callable[[], dict[str, Any]],
                  context: RenderContext) -> Mapping[str, Any]:
    """``expand()`` - the layer's spec with its magic container names resolved - done
    once per render for a layer with a source. The result is read only, like every
    fragment: the merge copies what it takes."""
    if layer.source is None:
        return expand()
    defaults = (tuple(names), tuple(init_names)) if layer.has_default_entries() else None
    return layer.fact(("expanded", primary, defaults), expand)


def _snapshot(pod: dict[str, Any]) -> bytes | None:
    """The pod as bytes that ``marshal.loads`` turns into a fresh copy. Its strings are
    interned first, so that every copy shares them instead of holding its own."""
    try:
        return marshal.dumps(_interned(pod))
    except ValueError:
        return None


def _interned(value: Any) -> Any:
    kind = type(value)
    if kind is str:
        return sys.intern(value)
    if kind is dict:
        return {_interned(k): _interned(v) for k, v in value.items()}
    if kind is list:
        return [_interned(item) for item in value]
    return value


def layer_proven(layer: Layer, context: RenderContext) -> bool:
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


def primary_only(fragment: Mapping[str, Any], primary: str, acc: dict[str, Any]
                  ) -> dict[str, Any] | None:
    """``acc``'s primary container, when ``fragment`` sets nothing but that container
    (settings and default resources do): merging there is what merging at the root
    would come to, without walking down to it."""
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
    for container in (acc.get("spec") or {}).get("containers") or ():
        if container.get("name") == primary:
            return container  # type: ignore[no-any-return]
    return None


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

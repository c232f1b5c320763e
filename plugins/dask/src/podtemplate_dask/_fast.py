"""The fast path of the DaskJob CRD-known check, fenced here: everything in this module
exists for speed, and gives what :func:`podtemplate_dask.crd_schema.layers_known` gives
(``plugins/dask/tests/test_dask_fast.py`` compares the two on generated tasks).

What is known once is not walked again per render or per role:

- **One schema, three roles.** The generated field lists of the roles are the same
  objects (the CRD repeats one pod schema), so a template's verdict is kept on its layer
  per schema, not per role: a task template is walked once, not three times.
- **Settings layers.** A task's or role's settings layer (core marks it ``proven``: built
  from the image, command, args, env and requests/limits, all strings) holds only
  container fields whose shape core fixes. Whether the schema knows them is decided once
  on a sample of that shape, for every such layer.
- **Constant operator layers.** The scheduler's and the worker's operator layers are
  module constants (:mod:`podtemplate_dask.roles`): judged once.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from typing import Any

from podtemplate.plugin import Layer

from ._crd_fields import KNOWN_FIELDS, OPEN_FIELDS
from .crd_schema import OPEN, all_known, known_tree

__all__ = ["layers_known"]

# Every field a settings layer's one container may hold (resolve/layers.py,
# settings_layer), with a value of the shape core gives it: a sample of each.
_SETTINGS_SAMPLE: dict[str, Any] = {
    "name": "n", "image": "i", "command": ["c"], "args": ["a"],
    "env": [{"name": "E", "value": "v"}],
    "resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "1"}},
}
_SETTINGS_KEYS = frozenset(_SETTINGS_SAMPLE)


class _Schema:
    """One role pod schema: its field tree and what is decided once against it."""

    __slots__ = ("settings_known", "tree")

    def __init__(self, known: frozenset[str], open_: frozenset[str]) -> None:
        self.tree = known_tree(known, open_)
        container = self.tree.get("spec", {}).get("containers", {}).get("[]", {})
        resources = container.get("resources", {})
        # Resource names vary: the maps must be kept whole for a sample to stand for all.
        maps_open = all(resources.get(kind) is OPEN
                        for kind in ("requests", "limits"))
        sample = {"spec": {"containers": [_SETTINGS_SAMPLE]}}
        self.settings_known = maps_open and all_known(sample, self.tree)


@functools.cache
def _schema_of(known: frozenset[str], open_: frozenset[str]) -> _Schema:
    return _Schema(known, open_)


@functools.cache
def schema(role: str) -> _Schema:
    """The schema of ``role``'s pod, shared by the roles whose field lists are equal."""
    return _schema_of(KNOWN_FIELDS[role], OPEN_FIELDS[role])


@functools.cache
def _constant_verdict(role: str) -> tuple[Mapping[str, Any] | None, bool]:
    """The constant operator layer of ``role`` (None for a role that has none) and its
    verdict."""
    from .roles import CONSTANT_OPERATOR_LAYERS

    layer = CONSTANT_OPERATOR_LAYERS.get(role)
    return layer, layer is not None and all_known(layer, schema(role).tree)


def layers_known(layers: Iterable[Layer], operator_layer: Mapping[str, Any],
                 role: str) -> bool:
    """What :func:`~podtemplate_dask.crd_schema.layers_known` says, cheaper."""
    found = schema(role)
    tree = found.tree
    for layer in layers:
        if layer.source is None:
            if found.settings_known and _is_settings(layer):
                continue
            if not all_known(layer.fragment, tree):
                return False
        elif not layer.fact(("dask-known", found),
                            functools.partial(all_known, layer.fragment, tree)):
            return False
    constant, verdict = _constant_verdict(role)
    if operator_layer is constant:
        return verdict
    return all_known(operator_layer, tree)


def _is_settings(layer: Layer) -> bool:
    """Whether ``layer`` is a settings layer as core builds it: proven, one container in
    a spec of nothing else, with settings fields only."""
    if not layer.proven:
        return False
    fragment = layer.fragment
    spec = fragment.get("spec")
    if len(fragment) != 1 or type(spec) is not dict or len(spec) != 1:
        return False
    containers = spec.get("containers")
    if type(containers) is not list or len(containers) != 1:
        return False
    container = containers[0]
    return type(container) is dict and container.keys() <= _SETTINGS_KEYS

"""The DaskJob CRD's pod schema (Kubernetes 1.21) at render time.

The API server prunes every field a CRD's structural schema does not know, so a newer pod
field (``spec.os``, ``resizePolicy``, ``schedulingGates``...) set in a template would vanish
without a word once applied; with kubectl's default strict field validation the apply
fails instead. This module strips such fields from a role's resolved pod and returns their
paths, so the plugin warns about each one: the manifest then says exactly what the
cluster will run, applies cleanly, and nothing is dropped silently.

A pod holds only fields some layer it was folded from held (the merge puts nothing
anywhere else), so when every layer is known to the CRD the pod is too: each template is
checked once per render, and the pod is walked only when a layer is not.

The field lists come from :mod:`podtemplate_dask._crd_fields`, generated from the CRD by
``plugins/dask/scripts/gen_known_fields.py`` (the CRD itself ships in ``crds/`` and core
validates every DaskJob against it).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Iterable, Mapping
from typing import Any

from podtemplate import RenderContext
from podtemplate.plugin import Layer

from ._crd_fields import KNOWN_FIELDS, OPEN_FIELDS

__all__ = ["OPEN", "all_known", "known_tree", "layers_known", "strip_unknown_fields",
           "SIDECAR_ONLY_FIELDS"]

# A node of the schema tree: field name -> child node, "[]" -> the node of a list's items;
# OPEN for a field whose contents the CRD keeps as they are.
_Tree = dict[str, Any]
OPEN: _Tree = {}


def layers_known(layers: Iterable[Layer], operator_layer: Mapping[str, Any], role: str,
                 context: RenderContext) -> bool:
    """True if every layer of a ``role`` pod, and the operator's own, holds only fields
    the CRD knows; a template's layer is checked once (the verdict is kept on it)."""
    tree = _tree(role)
    for layer in layers:
        check = functools.partial(all_known, layer.fragment, tree)
        if not (check() if layer.source is None else layer.fact(("dask-known", role), check)):
            return False
    return all_known(operator_layer, tree)  # small; made for one task


def strip_unknown_fields(pod: dict[str, Any], role: str) -> list[str]:
    """Remove, in place, every field of ``pod`` (a role's PodTemplateSpec) that the CRD's
    schema for ``role`` does not know; return their paths, list items named by their
    ``name`` (``spec.containers[worker].resizePolicy``) or else by index."""
    known, open_ = KNOWN_FIELDS[role], OPEN_FIELDS[role]
    # The pod shares read-only subtrees with its templates (copy-on-write): the walk
    # below deletes in place, so the pod gets its own copy of them first (a rare path:
    # only a pod with a field the CRD lacks is walked).
    for key in list(pod):
        pod[key] = copy.deepcopy(pod[key])
    stripped: list[str] = []
    _walk(pod, "", "", known, open_, stripped)
    _strip_sidecar_only_fields(pod, stripped)
    return stripped


SIDECAR_ONLY_FIELDS = ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe")


def _strip_sidecar_only_fields(pod: dict[str, Any], stripped: list[str]) -> None:
    """An init container whose ``restartPolicy: Always`` the CRD prunes is no longer a
    sidecar, and the API server refuses hooks and probes on it: they go too."""
    for index, container in enumerate((pod.get("spec") or {}).get("initContainers") or ()):
        if container.get("restartPolicy") == "Always":
            continue
        label = container.get("name") or str(index)
        for key in SIDECAR_ONLY_FIELDS:
            if container.pop(key, None) is not None:
                stripped.append(f"spec.initContainers[{label}].{key}")


def _walk(node: Any, schema_path: str, shown_path: str, known: frozenset[str],
          open_: frozenset[str], stripped: list[str]) -> None:
    if isinstance(node, dict):
        for key in list(node):
            child_schema = f"{schema_path}.{key}" if schema_path else key
            child_shown = f"{shown_path}.{key}" if shown_path else key
            if child_schema not in known:
                del node[key]
                stripped.append(child_shown)
            elif child_schema not in open_:
                _walk(node[key], child_schema, child_shown, known, open_, stripped)
    elif isinstance(node, list):
        for index, item in enumerate(node):
            name = item.get("name") if isinstance(item, dict) else None
            label = name if isinstance(name, str) and name else str(index)
            _walk(item, f"{schema_path}[]", f"{shown_path}[{label}]", known, open_, stripped)


def _tree(role: str) -> _Tree:
    """The known paths of ``role`` as a tree, for a walk that needs no strings."""
    return known_tree(KNOWN_FIELDS[role], OPEN_FIELDS[role])


@functools.cache
def known_tree(known: frozenset[str], open_: frozenset[str]) -> _Tree:
    """Known paths (``open_`` among them kept whole) as a tree: made once per list."""
    root: _Tree = {}
    for path in sorted(known):
        node = root
        segments = path.replace("[]", ".[]").split(".")
        for depth, segment in enumerate(segments):
            if node is OPEN:
                break
            if depth == len(segments) - 1 and path in open_:
                node[segment] = OPEN
            else:
                node = node.setdefault(segment, {})
    return root


def all_known(node: Any, tree: _Tree) -> bool:
    """Whether every field of ``node`` is in ``tree`` (a list's items under ``[]``; a
    list the tree has no items for may hold only scalars)."""
    if tree is OPEN:
        return True
    kind = type(node)
    if kind is dict:
        for key, value in node.items():
            child = tree.get(key)
            if child is None:
                return False
            if (type(value) is dict or type(value) is list) and not all_known(value, child):
                return False
        return True
    if kind is list:
        item = tree.get("[]")
        for value in node:
            nested = type(value) is dict or type(value) is list
            if nested and (item is None or not all_known(value, item)):
                return False
        return True
    return True

"""The pod fields a CRD would prune: what a plugin asks of the pod schema its CRD embeds.

An operator's CRD often embeds an older pod schema than the Kubernetes one core ships (the
DaskJob CRD's is Kubernetes 1.21's). The API server prunes every field such a structural
schema does not declare, and :func:`~podtemplate.schemas.resources.check_rendered` says so
at render: an error, or a warning where the role declares the field unsupported. A plugin
that rather drops such a field itself, with its own warning, asks :func:`crd_pod_schema`
for the schema at the role's template path:

- :meth:`CrdPodSchema.pruned`: the fields of one pod that the API server would prune,
  exactly the ones the CRD check reports as pruned;
- :meth:`CrdPodSchema.newer_fields`: the fields of the shipped Kubernetes pod schema that
  the CRD lacks, as paths to declare ``unsupported`` on the role.

Both walk core's compiled schema nodes (:mod:`._compiled`), so they say what the CRD check
says, field for field.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ._compiled import At, Node, flatten, type_ok
from .crd import Crd, shipped_crd
from .source import shipped_pod_schema

__all__ = ["CrdPodSchema", "crd_pod_schema"]

Segment = str | int
Schema = Mapping[str, Any]

_LEAVES = frozenset({str, int, float, bool, type(None)})  # hold no field
_POD_TEMPLATE_SPEC = "io.k8s.api.core.v1.PodTemplateSpec"
# What of ObjectMeta a role's pod carries: a template's labels and annotations (core
# takes nothing else of a template's metadata; the operator names the pods).
_POD_METADATA = ("labels", "annotations")


@dataclass(frozen=True, eq=False)
class CrdPodSchema:
    """The pod schema a CRD embeds at one role's template path (``spec.job``)."""

    crd: Crd
    template_path: str
    node: Node

    def pruned(self, pod: Mapping[str, Any]) -> list[tuple[Segment, ...]]:
        """The fields of ``pod`` (a PodTemplateSpec) that the API server would prune, as
        keys and list indexes from the pod; top-most only (nothing below a pruned field),
        in the pod's order. Empty for a pod the schema keeps whole."""
        found: list[tuple[Segment, ...]] = []
        _pruned(self.node, pod, (), found)
        return found

    def newer_fields(self) -> tuple[str, ...]:
        """The fields of the shipped Kubernetes PodTemplateSpec that this schema lacks,
        top-most only and sorted, ``[*]`` for every item of a list
        (``spec.containers[*].resizePolicy``): the role's ``unsupported`` fields."""
        return _newer_fields(self)


@functools.cache
def crd_pod_schema(crd: str | Crd, template_path: str, version: str | None = None
                   ) -> CrdPodSchema:
    """The pod schema at ``template_path`` of ``crd`` (a shipped CRD named as
    ``TaskType.crds`` names it, or a loaded one), in ``version`` (default: the first
    served); made once per CRD, path and version."""
    from ..errors import PluginError

    loaded = shipped_crd(crd) if isinstance(crd, str) else crd
    version = version or next(iter(loaded.versions), "")
    root = loaded.root(version)
    if root is None:
        raise PluginError(f"{loaded.file} does not serve version {version!r}",
                          fix=f"name one of {', '.join(loaded.versions) or 'none'}")
    node = root.descend(tuple(template_path.split(".")))
    if node is None:
        raise PluginError(f"{loaded.file} has no schema at {template_path!r}",
                          fix="name the role's template path as the CRD spells it")
    return CrdPodSchema(loaded, template_path, node)


def _pruned(node: Node, value: Any, at: At, found: list[tuple[Segment, ...]]) -> None:
    """Node.check's walk, keeping only its pruned fields: it descends where the check
    does (a value of the node's type) and nowhere else; a scalar holds no field."""
    if node.simple or value is None or node.int_or_string:
        return
    if node.types and not type_ok(value, node.types):
        return
    if node.kind == "object":
        implicit, children = node.implicit, node.children
        for key, sub in value.items():
            child = children.get(key)
            if child is None:
                child = None if key in implicit else node.child(key)
                if child is None:
                    if not (node.open or key in implicit):
                        found.append(flatten((at, key)))
                    continue
            if type(sub) not in _LEAVES:  # a scalar of a subclass is walked: it holds none
                _pruned(child, sub, (at, key), found)
    elif node.kind == "array":
        item = node.item()
        if item is not None:
            for index, entry in enumerate(value):
                if type(entry) not in _LEAVES:
                    _pruned(item, entry, (at, index), found)


@functools.cache
def _newer_fields(schema: CrdPodSchema) -> tuple[str, ...]:
    definitions: Mapping[str, Schema] = shipped_pod_schema()["components"]["schemas"]
    return tuple(sorted(_lacking(definitions[_POD_TEMPLATE_SPEC], schema.node, "",
                                 definitions)))


def _lacking(kubernetes: Schema, node: Node, path: str, definitions: Mapping[str, Schema]
             ) -> Iterator[str]:
    """The top-most fields below ``kubernetes`` (a schema of the Kubernetes document)
    that ``node`` would prune. The walk ends where the CRD's schema does (a CRD's schema is
    a finite tree), so a recursive Kubernetes type needs no guard."""
    kubernetes = _dereferenced(kubernetes, definitions)
    if node.open:  # everything below is kept
        return
    items = kubernetes.get("items")
    if kubernetes.get("type") == "array" and isinstance(items, Mapping):
        item = node.item()
        if item is not None:
            yield from _lacking(items, item, f"{path}[*]", definitions)
        return
    for field_name, child_schema in (kubernetes.get("properties") or {}).items():
        if path == "metadata" and field_name not in _POD_METADATA:
            continue
        child_path = f"{path}.{field_name}" if path else field_name
        child = node.child(field_name)
        if child is None:
            yield child_path
        else:
            yield from _lacking(child_schema, child, child_path, definitions)


def _dereferenced(schema: Schema, definitions: Mapping[str, Schema]) -> Schema:
    """``schema`` with its ``$ref`` followed (direct, or a one-member ``allOf``)."""
    while True:
        all_of: list[Schema] = schema.get("allOf") or []
        ref = schema.get("$ref") or (all_of[0].get("$ref") if len(all_of) == 1 else None)
        if not ref:
            return schema
        schema = definitions[ref.rsplit("/", 1)[-1]]

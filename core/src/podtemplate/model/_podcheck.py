"""A fast, conservative proof that a pod fragment is valid for the kubernetes client models.

Validating every final pod with the client's pydantic models costs more than rendering it.
But a final pod is a merge of fragments, and the merge only ever puts at a field path
values that some fragment held at that same path: each object of the result has the
keys of objects of the fragments, each list item is an item of a fragment (merged with
items of the same key), each scalar is a fragment's scalar. So when every fragment is
valid with *canonical* field names (the camelCase alias, as in YAML manifests), exact
value types and its required fields present, the merged pod is valid too (an object's
``$patch: replace`` or ``merge`` is dropped, its other fields kept). Deletions
cannot break that: a fragment that deletes a required field keeps the object around it,
without the field, and so is not proven.

:func:`proves_pod_template_spec` walks a fragment along a table built once from the
client models. It says True only when it is sure; anything unusual - a snake_case field
name, a directive, a value the models would coerce, a field type it does not model
(datetimes) - makes it say False, and the caller validates the final pod with the models
as before.
"""

from __future__ import annotations

import functools
import json
import types
import typing
from collections.abc import Mapping
from importlib import resources
from typing import Any

from pydantic import BaseModel
from pydantic.types import Strict

from ..merge.rules import MERGE, PATCH, REPLACE

__all__ = ["proves_pod_template_spec", "pod_template_spec_table", "Node"]

# A node of the table: ("leaf", accepted exact types) | ("any",) | ("list", node) |
# ("map", node) | ("model", {canonical name: node or None}, required names,
# {Python attribute name: canonical name} where the two differ).
# A field whose node is None is one this check does not model: a value there is unproven.
Node = tuple[Any, ...]
_ANY: Node = ("any",)
_SCALARS = {str: str, int: int, bool: bool, float: float}
# Directives after which an object contributes its other fields as they are (a plugin
# replaces a volume or a mount of the same name wholly, for example).
_KEEPING = (REPLACE, MERGE)


def _leaf(annotation: Any) -> frozenset[type] | None:
    """The exact types a scalar annotation surely accepts, or None."""
    if typing.get_origin(annotation) is typing.Annotated:
        base, *extras = typing.get_args(annotation)
        return _leaf(base) if all(isinstance(e, Strict) for e in extras) else None
    if annotation in _SCALARS:
        return frozenset({_SCALARS[annotation]})
    return None


def _node(annotation: Any, models: dict[type, Node]) -> Node | None:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        if len(options) == 1:
            return _node(options[0], models)
        leaves = [_leaf(option) for option in options]
        if all(leaves):
            return ("leaf", frozenset().union(*leaves))  # type: ignore[arg-type]
        return None
    if annotation is Any:
        return _ANY
    if origin is list:
        item = _node(args[0], models)
        return None if item is None else ("list", item)
    if origin is dict:
        value = _node(args[1], models)
        return None if value is None or args[0] is not str else ("map", value)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _model(annotation, models)
    leaf = _leaf(annotation)
    return None if leaf is None else ("leaf", leaf)


def _model(model: type[BaseModel], models: dict[type, Node]) -> Node:
    if model in models:
        return models[model]
    fields: dict[str, Node | None] = {}
    required: list[str] = []
    attributes: dict[str, str] = {}
    node: Node = ("model", fields, required, attributes)
    models[model] = node  # before the fields: the model graph may refer back to itself
    for name, info in model.model_fields.items():
        canonical = info.serialization_alias or info.alias or name
        plain = [m for m in info.metadata if not isinstance(m, Strict)]
        fields[canonical] = None if plain else _node(info.annotation, models)
        if name != canonical:
            attributes[name] = canonical
        if info.is_required():
            required.append(canonical)
    return node


def build_pod_template_spec_table() -> Node:
    """The table of a PodTemplateSpec, built from the client models (what
    ``scripts/gen_pod_table.py`` ships as JSON; a test keeps the two equal)."""
    from kubernetes.client import V1PodTemplateSpec

    return _model(V1PodTemplateSpec, {})


@functools.cache
def pod_template_spec_table() -> Node:
    """The table of a PodTemplateSpec, read once from the JSON shipped with the package:
    building it from the client models would import ``kubernetes.client`` (a quarter of
    a second) on every render."""
    text = (resources.files("podtemplate") / TABLE_FILE).read_text(encoding="utf-8")
    return table_from_json(json.loads(text))


TABLE_FILE = "schemas/kubernetes/pod-fields.json"
_TYPES = {"str": str, "int": int, "bool": bool, "float": float}


def table_to_json(root: Node) -> dict[str, Any]:
    """The table as JSON: each model once, by number, so the graph's cycles survive."""
    numbers: dict[int, int] = {}
    models: list[dict[str, Any]] = []

    def encode(node: Node | None) -> Any:
        if node is None:
            return None
        kind = node[0]
        if kind == "leaf":
            return ["leaf", sorted(t.__name__ for t in node[1])]
        if kind in ("list", "map"):
            return [kind, encode(node[1])]
        if kind == "model":
            if id(node) not in numbers:
                numbers[id(node)] = len(models)
                entry: dict[str, Any] = {}
                models.append(entry)
                entry.update(fields={k: encode(v) for k, v in node[1].items()},
                             required=list(node[2]), attributes=dict(node[3]))
            return ["model", numbers[id(node)]]
        return ["any"]

    return {"root": encode(root), "models": models}


def table_from_json(data: Mapping[str, Any]) -> Node:
    models: list[Node] = [("model", {}, list(m["required"]), dict(m["attributes"]))
                          for m in data["models"]]

    def decode(item: Any) -> Node | None:
        if item is None:
            return None
        kind = item[0]
        if kind == "leaf":
            return ("leaf", frozenset(_TYPES[name] for name in item[1]))
        if kind in ("list", "map"):
            inner = decode(item[1])
            return None if inner is None else (kind, inner)
        if kind == "model":
            return models[int(item[1])]
        return _ANY

    for node, entry in zip(models, data["models"], strict=True):
        node[1].update({key: decode(value) for key, value in entry["fields"].items()})
    root = decode(data["root"])
    assert root is not None
    return root


def _walk(value: Any, node: Node) -> bool:
    # Plain loops, no generators: this runs for every value of every one-task fragment.
    kind = node[0]
    if kind == "leaf":
        return type(value) in node[1]
    if kind == "model":
        if type(value) is not dict:
            return False
        fields = node[1]
        for key, sub in value.items():
            if key not in fields:
                if key == PATCH and sub in _KEEPING:
                    continue  # the merge drops it and keeps the object's other fields
                return False  # unknown, or not canonical (snake_case), or another directive
            if sub is None:
                continue  # a deletion: absent from what the fragment contributes
            child = fields[key]
            if child is None or not _walk(sub, child):
                return False
        for name in node[2]:  # noqa: SIM110 - a loop, not a generator (see above)
            if value.get(name) is None:
                return False
        return True
    if kind == "list":
        if type(value) is not list:
            return False
        item = node[1]
        for sub in value:  # noqa: SIM110 - a loop, not a generator (see above)
            if not _walk(sub, item):
                return False
        return True
    if kind == "map":
        if type(value) is not dict:
            return False
        item = node[1]
        for key, sub in value.items():
            if type(key) is not str or (sub is not None and not _walk(sub, item)):
                return False
        return True
    return bool(kind == "any")


def proves_pod_template_spec(fragment: Mapping[str, Any], *, final: bool = False) -> bool:
    """True if ``fragment`` (PodTemplateSpec-shaped, no directives) is surely valid for the
    client models; a fragment may leave out ``spec.containers``, a ``final`` pod may not."""
    spec = fragment.get("spec")
    if not final and isinstance(spec, dict) and "containers" not in spec:
        fragment = {**fragment, "spec": {**spec, "containers": []}}
    return _walk(dict(fragment) if type(fragment) is not dict else fragment,
                 pod_template_spec_table())


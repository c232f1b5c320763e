"""Which fields a pod has, and their types: one table, made from the pod schema the
package ships (``schemas/kubernetes/pod.json``, Kubernetes 1.35.4), the one authority on
field names. ``scripts/gen_pod_table.py`` writes it as ``_pod_table.py`` when the schema is
regenerated, so a render imports it rather than building it. The installed
``kubernetes`` client's models are never asked: a client release has fields that this
Kubernetes release lacks, and lacks fields it has.

The table serves two walks:

- ``apiserver._keys`` reports unknown field names (with the camelCase name meant), wrong
  value types and missing required fields;
- :func:`proves_pod_template_spec` is a fast, conservative proof that a fragment has
  nothing of that kind. A final pod is a merge of fragments, and the merge only puts at a
  field path values that some fragment held at that same path, so when every fragment is
  proven (canonical names, exact value types, required fields present) the merged pod
  is too (an object's ``$patch: replace`` or ``merge`` is dropped, its other fields kept).
  Deletions cannot break that: a fragment that deletes a required field keeps the object
  around it, without the field, and so is not proven. Anything unusual (a snake_case name,
  another directive, a value of another type) makes it say False, and the caller runs the
  full checks.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from ..merge.rules import MERGE, PATCH, REPLACE

__all__ = ["proves_pod_template_spec", "pod_template_spec_table",
           "build_pod_template_spec_table", "Node", "ROOT"]

# A node of the table: ("leaf", accepted exact types) | ("any",) | ("list", node) |
# ("map", node) | ("model", {canonical name: node}, required names,
# {snake_case name: canonical name}).
Node = tuple[Any, ...]
ROOT = "io.k8s.api.core.v1.PodTemplateSpec"
_ANY: Node = ("any",)
_TYPES: dict[str, frozenset[type]] = {
    "string": frozenset({str}), "integer": frozenset({int}), "boolean": frozenset({bool}),
    "number": frozenset({int, float})}
# Directives after which an object contributes its other fields as they are (a plugin
# replaces a volume or a mount of the same name wholly, for example).
_KEEPING = (REPLACE, MERGE)
_UPPER = re.compile(r"(?<!^)(?=[A-Z])")


def _snake(name: str) -> str:
    """``nodeSelector`` -> ``node_selector``: how a Python client spells the field."""
    return name if name.islower() else _UPPER.sub("_", name).lower()


class _Builder:
    def __init__(self, schemas: Mapping[str, Any]) -> None:
        self.schemas = schemas
        self.models: dict[str, Node] = {}

    def node(self, schema: Mapping[str, Any]) -> Node:
        ref = schema.get("$ref")
        if ref is None and isinstance(schema.get("allOf"), list) and len(schema["allOf"]) == 1:
            ref = schema["allOf"][0].get("$ref")
        if isinstance(ref, str):
            return self.named(ref.rsplit("/", 1)[-1])
        options = schema.get("oneOf") or schema.get("anyOf")
        if isinstance(options, list):  # Quantity (string or number), IntOrString
            types: frozenset[type] = frozenset().union(
                *(_TYPES.get(option.get("type"), frozenset()) for option in options))
            return ("leaf", types) if types else _ANY
        if schema.get("x-kubernetes-int-or-string"):
            return ("leaf", frozenset({int, str}))
        kind = schema.get("type")
        if kind == "array":
            return ("list", self.node(schema.get("items") or {}))
        if kind == "object" or "properties" in schema:
            if isinstance(schema.get("properties"), Mapping):
                return self.model(schema)
            extra = schema.get("additionalProperties")
            return ("map", self.node(extra)) if isinstance(extra, Mapping) else _ANY
        return ("leaf", _TYPES[kind]) if kind in _TYPES else _ANY

    def named(self, name: str) -> Node:
        if name not in self.models:
            schema = self.schemas[name]
            if isinstance(schema.get("properties"), Mapping):
                # registered before its fields: the schema graph may refer back to itself
                self.models[name] = self.model(schema, register=name)
            else:
                self.models[name] = self.node(schema)
        return self.models[name]

    def model(self, schema: Mapping[str, Any], register: str | None = None) -> Node:
        fields: dict[str, Node] = {}
        node: Node = ("model", fields, tuple(schema.get("required") or ()),
                      {snake: name for name in schema["properties"]
                       if (snake := _snake(name)) != name})
        if register is not None:
            self.models[register] = node
        for name, sub in schema["properties"].items():
            fields[name] = self.node(sub)
        return node


def build_pod_template_spec_table(schemas: Mapping[str, Any]) -> Node:
    """The table of a PodTemplateSpec, built from the named component ``schemas``."""
    return _Builder(schemas).named(ROOT)


@functools.cache
def pod_template_spec_table() -> Node:
    """The table of a PodTemplateSpec from the shipped pod schema, as generated from it
    (``model/_pod_table.py``, by ``scripts/gen_pod_table.py``): imported, not built, so a
    render needs neither ``pod.json`` nor the build (core/tests/test_pod_table.py proves
    the two equal)."""
    from ._pod_table import TABLE

    return TABLE


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
            if not _walk(sub, fields[key]):
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
    """True if ``fragment`` (PodTemplateSpec-shaped) surely has only the schema's field
    names, value types and required fields; a fragment may leave out
    ``spec.containers``, a ``final`` pod may not."""
    spec = fragment.get("spec")
    if not final and isinstance(spec, dict) and "containers" not in spec:
        fragment = {**fragment, "spec": {**spec, "containers": []}}
    return _walk(dict(fragment) if type(fragment) is not dict else fragment,
                 pod_template_spec_table())

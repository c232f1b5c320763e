"""Field names and value types: a pod is written with the API's camelCase names.

The names, types and required fields come from the pod schema the package ships, the one
authority on field names (the table ``_podcheck`` builds once from it); a Python
attribute name (``node_selector``) or a wrongly cased one is reported with the camelCase
name meant.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import did_you_mean
from .._podcheck import Node, pod_template_spec_table
from ._facts import Rule
from ._report import Problems

__all__ = ["check_keys", "FIELD_NAME"]

FIELD_NAME = Rule("field names are the API's camelCase names, as in YAML manifests "
                  "(k8s strict field validation of the API server)",
                  "remove the field or correct its spelling")
FIELD_TYPE = Rule("a field's value has the type the API schema gives it "
                  "(k8s strict field validation of the API server)",
                  "give a value of the documented type")
REQUIRED = Rule("a required field is present (k8s the API schema's required fields)",
                "add the field")
_TYPE_NAMES = {str: "a string", int: "an integer", bool: "a boolean", float: "a number"}


def _squashed(name: str) -> str:
    return name.replace("_", "").replace("-", "").lower()


def _suggestion(key: str, node: Node) -> str | None:
    canonical = node[3].get(key)
    if canonical is not None:
        return str(canonical)
    wanted = _squashed(key)
    for name in node[1]:
        if _squashed(name) == wanted:
            return str(name)
    return did_you_mean(key, node[1])  # a typo: nodeSelecter


def check_keys(problems: Problems, template: Mapping[str, Any], base: str = "") -> None:
    """Report unknown fields (with the camelCase name meant), wrong scalar types and,
    for a final pod, missing required fields of a PodTemplateSpec."""
    _walk(problems, template, pod_template_spec_table(), base)


def _join(base: str, key: str) -> str:
    return f"{base}.{key}" if base else key


def _walk(problems: Problems, value: Any, node: Node | None, path: str) -> None:
    if node is None or value is None:
        return
    kind = node[0]
    if kind == "leaf":
        if type(value) not in node[1]:
            expected = " or ".join(sorted(_TYPE_NAMES.get(t, t.__name__) for t in node[1]))
            problems.add(path, FIELD_TYPE, f"{value!r} is not {expected}")
    elif kind == "model":
        _model(problems, value, node, path)
    elif kind == "list":
        if not isinstance(value, list):
            problems.add(path, FIELD_TYPE, f"{type(value).__name__} is not a list")
            return
        for index, item in enumerate(value):
            name = item.get("name") if isinstance(item, dict) else None
            where = f"{path}[{name}]" if type(name) is str and name else f"{path}[{index}]"
            _walk(problems, item, node[1], where)
    elif kind == "map":
        if not isinstance(value, dict):
            problems.add(path, FIELD_TYPE, f"{type(value).__name__} is not a map")
            return
        for key, item in value.items():
            _walk(problems, item, node[1], f"{path}.{key}")


def _model(problems: Problems, value: Any, node: Node, path: str) -> None:
    if not isinstance(value, dict):
        problems.add(path, FIELD_TYPE, f"{type(value).__name__} is not an object")
        return
    fields = node[1]
    for key, item in value.items():
        if key in fields:
            _walk(problems, item, fields[key], _join(path, key))
            continue
        if key == "$patch":
            continue  # a merge directive: the merge consumes it
        meant = _suggestion(str(key), node)
        problems.add(_join(path, str(key)), FIELD_NAME, f"unknown field {key!r}"
                     + (f"; did you mean `{meant}`?" if meant else ""),
                     f"write `{meant}`" if meant else None)
    if problems.final:
        for name in node[2]:
            if value.get(name) is None:
                problems.add(_join(path, name), REQUIRED, f"required field {name!r} is missing")

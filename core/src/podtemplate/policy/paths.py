"""Field paths of a pod, spelled as provenance spells them.

``spec.containers[pytorch].env[FOO].value``: object fields joined by dots, items of
keyed lists by their merge key (several key fields joined by commas:
``ports[8080,TCP]``), items of other lists by index. A pattern may use ``[*]`` for every
item and ``[primary]`` for the pod's primary container (the first container).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from typing import Any

from ..merge.engine import _tree
from ..merge.rules import EMPTY, MAP, Node, key_of, render_key

__all__ = ["parse_path", "match_path", "is_under", "unknown_field", "PathSyntaxError"]

_VALID = re.compile(r"[^.\[\]]+(?:\.[^.\[\]]+|\[[^\]]+\])*")
_STEP = re.compile(r"\.?([^.\[\]]+)|\[([^\]]+)\]")
WILDCARD = "*"
PRIMARY = "primary"


class PathSyntaxError(ValueError):
    """A field path that cannot be parsed."""


@functools.lru_cache(maxsize=1024)  # a policy names a few paths, judged on every pod
def parse_path(path: str) -> tuple[tuple[str, str], ...]:
    """``spec.containers[*].image`` -> ``(("field", "spec"), ("field", "containers"),
    ("item", "*"), ("field", "image"))``."""
    if not isinstance(path, str) or not _VALID.fullmatch(path):
        raise PathSyntaxError(f"{path!r} is not a field path such as "
                              "spec.containers[*].securityContext")
    return tuple(("field", step.group(1)) if step.group(1) is not None
                 else ("item", step.group(2)) for step in _STEP.finditer(path))


def match_path(pod: Mapping[str, Any], pattern: str) -> Iterator[tuple[str, Any]]:
    """``(concrete path, value)`` of every value of ``pod`` (a PodTemplateSpec) that
    ``pattern`` names."""
    yield from _walk(pod, parse_path(pattern), _tree(), "", pod)


def _walk(value: Any, steps: tuple[tuple[str, str], ...], node: Node, path: str,
          pod: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    if not steps:
        yield path, value
        return
    (kind, name), rest = steps[0], steps[1:]
    if kind == "field":
        if isinstance(value, Mapping) and name in value:
            child = node.fields.get(name, node.fallback)
            yield from _walk(value[name], rest, child, f"{path}.{name}" if path else name, pod)
        return
    if isinstance(value, Mapping):  # a map's key in brackets: labels[app.kubernetes.io/name]
        for key in (value if name == WILDCARD else (name,) if name in value else ()):
            yield from _walk(value[key], rest, node.fallback, f"{path}.{key}", pod)
        return
    if not isinstance(value, list):
        return
    item_node = node.item or EMPTY
    primary = _primary_name(pod) if name == PRIMARY and path == "spec.containers" else None
    for index, item in enumerate(value):
        key = _item_key(item, index, node)
        if name in (WILDCARD, key) or (primary is not None and key == primary):
            yield from _walk(item, rest, item_node, f"{path}[{key}]", pod)


def _item_key(item: Any, index: int, node: Node) -> str:
    if node.kind == MAP and isinstance(item, Mapping):
        try:
            return render_key(key_of(item, node))
        except Exception:  # a malformed key: the schema check reports it
            return str(index)
    return str(index)


def _primary_name(pod: Mapping[str, Any]) -> str | None:
    containers = (pod.get("spec") or {}).get("containers") or ()
    first = containers[0] if containers else None
    return first.get("name") if isinstance(first, Mapping) else None


def is_under(path: str, ancestor: str) -> bool:
    """Whether ``path`` is ``ancestor`` or lies inside it."""
    return path == ancestor or path.startswith((ancestor + ".", ancestor + "["))


def unknown_field(pattern: str) -> str | None:
    """The first step of ``pattern`` that names no field of a PodTemplateSpec, or None
    when every step exists (checked against the shipped pod schema)."""
    from ..model._podcheck import pod_template_spec_table

    node = pod_template_spec_table()
    for kind, name in parse_path(pattern):
        if node[0] in ("list", "map"):
            if node[0] == "list" and kind != "item":
                return f"'{name}' (items of a list are named in brackets: [*] or [key])"
            node = node[1]
            continue
        if node[0] != "model" or kind != "field" or name not in node[1]:
            return f"'{name}'"
        node = node[1][name]
    return None

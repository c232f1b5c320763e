"""Finding probe values in rendered manifests and comparing them.

Rendered values may hold more than the probe put in (an operator adds a port, the
platform adds a toleration), so the comparison is containment, not equality: maps must
hold every probed key, lists of objects every probed item, and scalars and plain lists
(``command``, ``args``) must be equal.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .probe import PRIMARY

__all__ = ["MISSING", "walk", "path_segments", "field_value", "contains", "overlap",
           "without"]


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()
_TOKEN = re.compile(r"\[(\d+)\]|([^.\[\]]+)")


def path_segments(path: str) -> list[str | int]:
    """``spec.groups[0].template`` -> ``["spec", "groups", 0, "template"]``."""
    return [int(index) if index else key for index, key in _TOKEN.findall(path)]


def walk(document: Any, path: str) -> Any:
    """The value at a manifest path (dotted keys, ``[n]`` list indexes), or MISSING."""
    node = document
    for segment in path_segments(path):
        if isinstance(segment, int):
            if not isinstance(node, list) or segment >= len(node):
                return MISSING
            node = node[segment]
        elif isinstance(node, Mapping) and segment in node:
            node = node[segment]
        else:
            return MISSING
    return node


def field_value(pod: Mapping[str, Any], path: str, primary: str) -> Any:
    """The value of a probe field path in a PodTemplateSpec, or MISSING.
    ``[primary]`` stands for the container named ``primary``; the container's member may
    be dotted (``spec.containers[primary].resources.requests.cpu``)."""
    head, _, rest = path.partition(".")
    section = pod.get(head)
    if not isinstance(section, Mapping):
        return MISSING
    if "[" not in rest:
        return walk(section, rest)
    list_name, _, tail = rest.partition("[")
    name, _, member = tail.partition("].")
    name = primary if name == PRIMARY else name
    for container in section.get(list_name) or ():
        if isinstance(container, Mapping) and container.get("name") == name:
            return walk(container, member)
    return MISSING


def contains(actual: Any, expected: Any) -> bool:
    """Whether ``actual`` holds everything in ``expected``."""
    if isinstance(expected, Mapping):
        return isinstance(actual, Mapping) and all(
            key in actual and contains(actual[key], value) for key, value in expected.items())
    if isinstance(expected, list) and any(isinstance(item, Mapping) for item in expected):
        return isinstance(actual, list) and all(
            any(contains(candidate, item) for candidate in actual) for item in expected)
    return bool(actual == expected) and type(actual) is type(expected)


def overlap(probe: Any, resolved: Any) -> Any:
    """The part of a probe value that survives in ``resolved`` (the value a field takes
    after every layer the task itself sets), or MISSING when nothing does: the part a
    correct plugin must deliver."""
    if isinstance(probe, Mapping):
        if not isinstance(resolved, Mapping):
            return MISSING
        kept = {key: part for key, value in probe.items() if key in resolved
                and (part := overlap(value, resolved[key])) is not MISSING}
        return kept if kept or not probe else MISSING
    if isinstance(probe, list) and any(isinstance(item, Mapping) for item in probe):
        if not isinstance(resolved, list):
            return MISSING
        kept_items = [item for item in probe if any(contains(r, item) for r in resolved)]
        return kept_items or MISSING
    return probe if contains(resolved, probe) else MISSING


def without(value: Any, subpath: str) -> Any:
    """``value`` minus the dotted ``subpath`` (a declared part of a probed field)."""
    if not isinstance(value, Mapping):
        return value
    head, _, rest = subpath.partition(".")
    if head not in value:
        return value
    out = dict(value)
    if rest:
        out[head] = without(value[head], rest)
    else:
        del out[head]
    return out if out else MISSING

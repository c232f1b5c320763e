"""The two walks of ``explain``: a pod into its leaf values, and a layer's own data down
the path of one value (to find the line it is written on and the entry it came from).

Paths are spelled as the merge records provenance: keyed list items by their merge key
(``spec.containers[pytorch].env[FOO].value``), items of union and atomic lists by index
(``spec.tolerations[1].key``), lists of plain values as one value.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..files.yaml_lines import Marks
from ..merge.aliases import DEFAULT_CONTAINER, DEFAULT_INIT_CONTAINER
from ..merge.engine import clean, rules_at
from ..merge.rules import EMPTY, MAP, SET, UNION, Malformed, Node, join, key_of, render_key

__all__ = ["Leaf", "Step", "leaves", "Found", "locate"]


@dataclass(frozen=True)
class Step:
    """One step down a path: a key, a keyed item (``key`` as rendered), a union item
    (``item``: the whole item, found by value since its index moves) or an index."""

    kind: str  # "key" | "keyed" | "union" | "index"
    key: Any
    node: Node
    item: Any = None


@dataclass(frozen=True)
class Leaf:
    """A leaf value of a pod. ``ident`` stays the same while a union item moves."""

    path: str
    ident: str
    value: Any
    steps: tuple[Step, ...]
    setter: str | None  # label of the layer that set it, from the recorded provenance

    @property
    def parts(self) -> tuple[str, ...]:
        """The path's steps as people read them: ``spec``, ``containers``, ``[main]``."""
        return tuple(str(s.key) if s.kind == "key" else f"[{s.key}]" for s in self.steps)


def leaves(pod: Mapping[str, Any], provenance: Mapping[str, str]) -> dict[str, Leaf]:
    """Every leaf of ``pod`` by identity, in document order."""
    out: dict[str, Leaf] = {}
    for leaf in _walk(pod, rules_at(""), "", "", (), provenance, None):
        out[leaf.ident] = leaf
    return out


def _walk(value: Any, node: Node, path: str, ident: str, steps: tuple[Step, ...],
          provenance: Mapping[str, str], setter: str | None) -> Iterator[Leaf]:
    setter = provenance.get(path, setter) if path else setter
    if isinstance(value, dict) and value:
        for key, sub in value.items():
            child = node.fields.get(key, node.fallback)
            yield from _walk(sub, child, join(path, key), join(ident, key),
                             (*steps, Step("key", key, node)), provenance, setter)
    elif isinstance(value, list) and value and _has_objects(value, node):
        yield from _walk_items(value, node, path, ident, steps, provenance, setter)
    else:
        yield Leaf(path, ident, value, steps, setter)


def _has_objects(items: list[Any], node: Node) -> bool:
    """Lists of plain values (command, args, a set) are one value."""
    return node.kind != SET and any(isinstance(item, (dict, list)) for item in items)


def _walk_items(items: list[Any], node: Node, path: str, ident: str,
                steps: tuple[Step, ...], provenance: Mapping[str, str],
                setter: str | None) -> Iterator[Leaf]:
    item_node = node.item or EMPTY
    for pos, item in enumerate(items):
        if node.kind == MAP and isinstance(item, dict):
            key = render_key(key_of(item, node))
            step, part, id_part = Step("keyed", key, node), f"[{key}]", f"[{key}]"
        elif node.kind == UNION:
            step, part = Step("union", pos, node, item), f"[{pos}]"
            id_part = "{" + json.dumps(item, sort_keys=True, default=str) + "}"
        else:
            step, part, id_part = Step("index", pos, node), f"[{pos}]", f"[{pos}]"
        yield from _walk(item, item_node, path + part, ident + id_part, (*steps, step),
                         provenance, setter)


# ------------------------------------------------------------------------------- locate


@dataclass(frozen=True)
class Found:
    """How far a path goes into a layer's data: the marks reached (None without a file),
    whether the whole path was found, the last value reached, and the template container
    entry the path went through when it was not the container's own name."""

    marks: Marks | None
    complete: bool
    value: Any
    entry: str | None
    directive: str | None = None  # the first ``$patch`` on the way


_MAGIC_ENTRIES = {"containers": DEFAULT_CONTAINER, "initContainers": DEFAULT_INIT_CONTAINER}


def locate(data: Any, marks: Marks | None, steps: tuple[Step, ...], *,
           alias: str | None, primary: str) -> Found:
    """Follow ``steps`` into ``data`` (a layer as written; ``marks`` its lines) as far as
    they go. A container is looked for under its own name, then under the layer's name
    for the primary container (``alias``), then under ``default``/``default-init``."""
    entry: str | None = None
    seen: str | None = None
    for depth, step in enumerate(steps):
        directive = _directive(data)
        if directive == "delete":
            return Found(marks, False, data, entry, directive)
        seen = seen or directive
        if step.kind == "key":
            if not isinstance(data, dict) or step.key not in data:
                return Found(marks, False, data, entry, seen)
            data, marks = data[step.key], _child(marks, step.key)
            continue
        if not isinstance(data, list):
            return Found(marks, False, data, entry, seen)
        list_name = steps[depth - 1].key if depth else None
        if step.kind == "keyed" and depth == 2 and list_name in _MAGIC_ENTRIES:
            return _locate_container(data, marks, steps, depth, alias, primary)
        pos = _position(data, step)
        if pos is None:
            return Found(marks, False, data, entry, seen)
        data, marks = data[pos], _child(marks, pos)
    return Found(marks, True, data, entry, seen or _directive(data))


def _directive(data: Any) -> str | None:
    """``delete``/``replace`` when ``data`` carries that ``$patch`` (a list: as its
    first item)."""
    if isinstance(data, list) and data:
        data = data[0] if isinstance(data[0], dict) and len(data[0]) == 1 else None
    if isinstance(data, dict):
        patch = data.get("$patch")
        return patch if patch in ("delete", "replace") else None
    return None


def _locate_container(items: list[Any], marks: Marks | None, steps: tuple[Step, ...],
                      depth: int, alias: str | None, primary: str) -> Found:
    step = steps[depth]
    names = [step.key]
    if step.key == primary and alias is not None and alias != primary:
        names = [alias]  # the layer's primary entry is renamed; its own name is not ours
    names.append(_MAGIC_ENTRIES[str(steps[depth - 1].key)])
    best: Found | None = None
    for name in names:
        pos = next((i for i, item in enumerate(items)
                    if isinstance(item, dict) and item.get("name") == name), None)
        if pos is None:
            continue
        found = locate(items[pos], _child(marks, pos), steps[depth + 1:], alias=None,
                       primary=primary)
        found = Found(found.marks, found.complete, found.value,
                      None if name == step.key else name, found.directive)
        if found.complete:
            return found
        best = best or found
    return best or Found(marks, False, items, None)


def _position(items: list[Any], step: Step) -> int | None:
    if step.kind == "index":  # counted without directive items, which the merge drops
        plain = [pos for pos, item in enumerate(items)
                 if not (isinstance(item, dict) and "$patch" in item)]
        return plain[step.key] if 0 <= step.key < len(plain) else None
    for pos, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        try:
            if step.kind == "keyed" and render_key(key_of(item, step.node)) == step.key:
                return pos
            if step.kind == "union" and "$patch" not in item and clean(item) == step.item:
                return pos
        except Malformed:
            continue
    return None


def _child(marks: Marks | None, step: str | int) -> Marks | None:
    return None if marks is None else marks.child(step)

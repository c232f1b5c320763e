"""Safe YAML in and deterministic YAML/JSON out.

Only the safe loader is used (no Python tags). Files are read by :mod:`.sourcefile`
(regular files within the size cap, UTF-8). Each document is composed, then checked
before it is built: depth, alias cycles and an alias budget in nodes and bytes (a
"billion laughs" bomb is refused, a large plain file is not), and a key given twice in
one mapping is an error.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from ..errors import YamlError
from ..limits import limits
from ._yaml_emit import Unsupported, emit
from .sourcefile import check_text_size, read_text

__all__ = ["StrictLoader", "check_node_graph", "composed_documents", "load_all", "load_path",
           "read_text", "dump_yaml", "dump_json"]

_Loader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """PyYAML's safe dumper writing an object that occurs twice in full each time, with
    no anchor or alias: rendered manifests share read-only subtrees (copy-on-write), and
    their text must not depend on it."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


_DUMP_OPTIONS: dict[str, Any] = {"sort_keys": False, "default_flow_style": False,
                                 "allow_unicode": True, "width": 1000}

_MERGE_TAG = "tag:yaml.org,2002:merge"


class StrictLoader(_Loader):  # type: ignore[misc]
    """The safe loader, refusing a mapping that gives one key twice (YAML would keep the
    last silently). Keys brought in by a ``<<`` merge may be overridden, as YAML means.
    A loader that marks source lines (for ``explain``) subclasses this one."""

    source = "<string>"

    def construct_mapping(self, node: yaml.Node, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode):
            seen: set[Any] = set()
            for key_node, _ in node.value:
                if key_node.tag == _MERGE_TAG:
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    duplicate = key in seen
                    seen.add(key)
                except TypeError:  # an unhashable key; the base class says so
                    continue
                if duplicate:
                    raise YamlError(f"key {key!r} is given twice in one mapping at "
                                    f"{_line(key_node)} (only the last would count)",
                                    file=self.source, fix="keep one of them")
        return super().construct_mapping(node, deep=deep)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _line(node: yaml.Node) -> str:
    return f"line {node.start_mark.line + 1}"


def check_node_graph(root: yaml.Node, source: str) -> None:
    """Refuse a composed document before it is built: nested deeper than the limit, an
    alias inside the node it names (a cycle), or aliases that add more nodes or scalar
    bytes than the budget (a bomb). Iterative, and each distinct node is visited once,
    so neither depth nor expansion can exhaust the stack or the clock."""
    bounds = limits()
    done: dict[int, tuple[int, int, int]] = {}  # id -> expanded nodes, bytes, height
    open_nodes: set[int] = set()  # the current path from the root
    own_nodes = own_bytes = 0
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if not finished:
            if key in done:
                continue
            if key in open_nodes:
                raise YamlError(f"an alias at {_line(node)} refers to a node that contains "
                                "it (a cycle)", file=source,
                                fix="write the repeated part out instead of aliasing it")
            if isinstance(node, yaml.ScalarNode):
                done[key] = (1, len(node.value), 1)
                own_nodes += 1
                own_bytes += len(node.value)
                continue
            open_nodes.add(key)
            stack.append((node, True))
            stack.extend((child, False) for child in _children(node))
            if len(open_nodes) > bounds.max_depth:
                raise _too_deep(node, source, bounds.max_depth)
            continue
        open_nodes.discard(key)
        nodes, size, height = 1, 0, 0
        for child in _children(node):
            child_nodes, child_bytes, child_height = done[id(child)]
            nodes += child_nodes
            size += child_bytes
            height = max(height, child_height)
        done[key] = (nodes, size, height + 1)
        own_nodes += 1
        if height + 1 > bounds.max_depth:
            raise _too_deep(node, source, bounds.max_depth)
        # What a subtree adds beyond the distinct nodes seen so far only grows towards
        # the root, so the budget can be enforced here, before the walk ends.
        if nodes - own_nodes > bounds.max_alias_nodes or size - own_bytes > \
                bounds.max_alias_bytes:
            raise YamlError(
                f"YAML aliases near {_line(node)} expand to {nodes} nodes and {size} bytes, "
                f"over the alias budget of {bounds.max_alias_nodes} nodes and "
                f"{bounds.max_alias_bytes} bytes (an alias bomb?); refused",
                file=source, fix="write the document without aliases repeating large "
                "parts, or raise PODTEMPLATE_MAX_ALIAS_NODES / PODTEMPLATE_MAX_ALIAS_BYTES")


def _too_deep(node: yaml.Node, source: str, depth: int) -> YamlError:
    return YamlError(f"YAML nested more than {depth} levels deep at {_line(node)}; refused",
                     file=source, fix="flatten the document (raise PODTEMPLATE_MAX_DEPTH "
                     "if the nesting is real)")


def _mark(error: yaml.YAMLError) -> str:
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    return f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""


def composed_documents(text: str, *, source: str = "<string>",
                       loader_class: type[Any] = StrictLoader
                       ) -> Iterator[tuple[Any, yaml.Node]]:
    """Each non-empty document of ``text`` with its node tree, loaded safely under every
    guard (size, node graph, duplicate keys); every failure is one :class:`YamlError`
    naming ``source`` and, where known, the line."""
    check_text_size(text, source)
    try:
        loader = loader_class(text)
        loader.source = source
        try:
            while loader.check_node():
                node = loader.get_node()
                if node is None:
                    continue
                check_node_graph(node, source)
                data = loader.construct_document(node)
                if data is not None:
                    yield data, node
        finally:
            loader.dispose()
    except yaml.YAMLError as error:
        where = _mark(error)
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise YamlError(
            f"invalid YAML{' at ' + where if where else ''}: {problem}",
            fix="correct the YAML syntax (only plain YAML is accepted, no Python tags)",
            file=source,
        ) from None
    except (ValueError, OverflowError) as error:  # an integer of over 4300 digits
        raise YamlError(f"a value cannot be read: {error}", file=source,
                        fix="shorten the number, or quote it as a string") from None


def load_all(text: str, *, source: str = "<string>",
             loader_class: type[Any] = StrictLoader) -> list[Any]:
    """Parse every document of ``text`` safely; empty documents are dropped."""
    return [data for data, _ in composed_documents(text, source=source,
                                                   loader_class=loader_class)]


def load_path(path: str | Path) -> list[Any]:
    """Every document of the YAML file ``path``, read by :func:`read_text`."""
    return load_all(read_text(path), source=str(path))


def dump_yaml(document: Any) -> str:
    """``document`` as block-style YAML. A JSON-shaped manifest is written by
    :mod:`podtemplate.files._yaml_emit` (the same bytes, several times faster); anything it
    does not handle, by PyYAML."""
    try:
        return emit(document, _Dumper, _DUMP_OPTIONS)
    except Unsupported:
        text: str = yaml.dump(document, Dumper=_Dumper, **_DUMP_OPTIONS)
        return text


def dump_json(document: Any) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"

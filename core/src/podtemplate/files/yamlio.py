"""Safe YAML in and deterministic YAML/JSON out.

Only the safe loader is used (no Python tags). Aliases are allowed, but a document whose
aliases expand to far more nodes than it contains (a "billion laughs" bomb) is refused
before it is constructed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from ..errors import YamlError
from ._yaml_emit import Unsupported, emit

__all__ = ["composed_documents", "load_all", "load_path", "read_text", "dump_yaml", "dump_json"]

_Loader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_Dumper: type[Any] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

_DUMP_OPTIONS: dict[str, Any] = {"sort_keys": False, "default_flow_style": False,
                                 "allow_unicode": True, "width": 1000}

# Expanded nodes allowed per document node before aliases count as a bomb.
_MAX_EXPANSION = 100_000


def _expanded_size(node: yaml.Node, memo: dict[int, int]) -> int:
    key = id(node)
    if key in memo:
        return memo[key]
    memo[key] = 1  # a recursive alias counts once instead of looping
    size = 1
    if isinstance(node, yaml.SequenceNode):
        size += sum(_expanded_size(child, memo) for child in node.value)
    elif isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            size += _expanded_size(k, memo) + _expanded_size(v, memo)
    memo[key] = size
    return size


def _mark(error: yaml.YAMLError) -> str:
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    return f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""


def _check_expansion(node: yaml.Node, source: str) -> None:
    """Refuse a composed document whose aliases expand to far more nodes than it has."""
    if _expanded_size(node, {}) > _MAX_EXPANSION:
        raise YamlError(
            "YAML aliases expand to too many nodes (possible alias bomb); refused",
            fix="write the document without deeply nested aliases",
            file=source,
        )


def _yaml_error(error: yaml.YAMLError, source: str) -> YamlError:
    """A parser error as one line naming the file, line and column."""
    where = _mark(error)
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    return YamlError(
        f"invalid YAML{' at ' + where if where else ''}: {problem}",
        fix="correct the YAML syntax (only plain YAML is accepted, no Python tags)",
        file=source,
    )


def composed_documents(text: str, *, source: str = "<string>"
                       ) -> Iterator[tuple[Any, yaml.Node]]:
    """Each non-empty document of ``text`` with its node tree, loaded safely and refused
    when its aliases expand far beyond it; YAML errors as one :class:`YamlError` line."""
    try:
        loader = _Loader(text)
        try:
            while loader.check_node():
                node = loader.get_node()
                if node is None:
                    continue
                _check_expansion(node, source)
                data = loader.construct_document(node)
                if data is not None:
                    yield data, node
        finally:
            loader.dispose()
    except yaml.YAMLError as error:
        raise _yaml_error(error, source) from None


def load_all(text: str, *, source: str = "<string>") -> list[Any]:
    """Parse every document of ``text`` safely; empty documents are dropped."""
    return [data for data, _ in composed_documents(text, source=source)]


def read_text(path: str | Path) -> str:
    """A YAML file's text; an unreadable file is a :class:`YamlError` naming it."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise YamlError(f"cannot read file: {error.strerror}", file=str(path)) from None


def load_path(path: str | Path) -> list[Any]:
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

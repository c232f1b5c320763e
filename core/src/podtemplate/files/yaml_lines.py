"""Safe YAML with the line of every value, for ``explain``.

The documents of :func:`podtemplate.yamlio.composed_documents` - the same safe loading
and the same guards as every other load - each with a :class:`Marks` tree of the lines
its values start on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .yamlio import composed_documents, read_text

__all__ = ["Marks", "load_marked", "load_marked_path"]


@dataclass
class Marks:
    """The 1-based line a value starts on, and the marks of its keys or items."""

    line: int
    keys: dict[str, Marks] = field(default_factory=dict)  # for a mapping: value marks
    items: list[Marks] = field(default_factory=list)  # for a sequence

    def child(self, step: str | int) -> Marks | None:
        if isinstance(step, int):
            return self.items[step] if 0 <= step < len(self.items) else None
        return self.keys.get(step)


def _marks(node: yaml.Node, memo: dict[int, Marks]) -> Marks:
    found = memo.get(id(node))
    if found is not None:  # an alias: the anchored value's lines
        return found
    marks = memo[id(node)] = Marks(node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                # The line of a key's value is where the key is written: a block value
                # starts on the next line, but people look for the key.
                child = _marks(value, memo)
                if isinstance(value, (yaml.MappingNode, yaml.SequenceNode)):
                    child = Marks(key.start_mark.line + 1, child.keys, child.items)
                marks.keys[str(key.value)] = child
    elif isinstance(node, yaml.SequenceNode):
        marks.items = [_marks(item, memo) for item in node.value]
    return marks


def load_marked(text: str, *, source: str = "<string>") -> list[tuple[Any, Marks]]:
    """Every non-empty document of ``text`` with its line marks."""
    return [(data, _marks(node, {})) for data, node in composed_documents(text, source=source)]


def load_marked_path(path: str | Path) -> list[tuple[Any, Marks]]:
    return load_marked(read_text(path), source=str(path))

"""Block-style YAML for JSON-shaped manifests, byte for byte what PyYAML writes.

PyYAML's C dumper still builds its node graph in Python (the representer), which makes
it the slowest step of ``podtemplate render``. Manifests are plain JSON-shaped data, so
the layout is simple: mappings and sequences in block style, sequences inside mappings
not indented, ``{}``/``[]`` for empty ones. The one hard part is how a string is
written (plain, quoted, escaped, folded over lines):

- a string of plain characters is written as is, or in single quotes where YAML would
  read it back as something else (``'1'``, ``'true'``);
- another short single-line string is written as PyYAML writes it, asked once and
  remembered (for a bounded number of strings);
- any other string (a script spanning lines) is written by PyYAML in the same place: a
  skeleton document with the same keys on the way to it gives the same indentation.

What is left - a float, a non-string key - raises :class:`Unsupported`, and the caller
lets PyYAML write the whole document. An object that occurs twice (rendered manifests
share read-only subtrees, copy-on-write) is written out in full each time, as the caller's
PyYAML dumper does too (it makes no anchors): the bytes do not depend on what is shared.
"""

from __future__ import annotations

import re
from typing import Any, cast

import yaml

__all__ = ["Unsupported", "emit"]

_STR_TAG = "tag:yaml.org,2002:str"
# Characters that never make PyYAML quote or split a plain scalar in block context; the
# first character is further limited (no indicators such as - ? : ! & * # ' " % @ `).
_SURELY_PLAIN = re.compile(r"[A-Za-z0-9_./][A-Za-z0-9_./()@+=$,;-]*(?::[A-Za-z0-9_./()@+=$,;-]+)*")
_MAX_KEY = 120  # PyYAML writes keys of 128 characters or more as complex keys (`? key`)
_MAX_SCALAR = 256  # with the indent limit, keeps every line below the dump width
_MAX_INDENT = 512
_MEMO_LIMIT = 4096


# What YAML breaks lines at: a scalar holding one is written over several lines, indented
# by its depth, so what PyYAML wrote at one depth is wrong at another.
_LINE_BREAK = re.compile("[\n\r\x85\u2028\u2029]")


class Unsupported(Exception):
    """The document holds something this emitter does not write like PyYAML would."""


class _Scalars:
    """How strings are written, as a key and as a value."""

    def __init__(self, dumper: type[Any], options: dict[str, Any]) -> None:
        self._dumper = dumper
        self._options = options
        self._resolver = yaml.resolver.Resolver()
        # Only texts starting with one of these can read back as other than a string.
        self._ambiguous_first = frozenset(yaml.resolver.Resolver.yaml_implicit_resolvers)
        self._plain_memo: dict[str, bool] = {}
        self._keys: dict[str, str] = {}  # keys repeat in every manifest: remembered
        self._memo: dict[tuple[str, bool], str | None] = {}

    def key(self, text: str) -> str:
        known = self._keys.get(text)
        if known is None:
            if len(self._keys) >= _MEMO_LIMIT:
                self._keys.clear()
            known = self._keys[text] = self.render(text, True)
        return known

    def render(self, text: str, key: bool) -> str:
        if _SURELY_PLAIN.fullmatch(text):
            if key and len(text) >= _MAX_KEY - 2:
                raise Unsupported
            # Read back as plain YAML 1.1, the text must stay a string; "1", "true",
            # "null", "2026-01-01" are quoted instead (they have nothing to escape).
            return text if self._plain_is_str(text) else f"'{text}'"
        memo = self._memo.get((text, key), "")
        if memo == "":
            if len(self._memo) >= _MEMO_LIMIT:
                self._memo.clear()  # bounded: a render's memory must not grow with N
            memo = self._memo[(text, key)] = self._ask_pyyaml(text, key)
        if memo is None:
            raise Unsupported
        return memo

    def _plain_is_str(self, text: str) -> bool:
        if text[0] not in self._ambiguous_first:
            return True
        known = self._plain_memo.get(text)
        if known is None:
            if len(self._plain_memo) >= _MEMO_LIMIT:
                self._plain_memo.clear()
            known = self._plain_memo[text] = self._resolves_to_str(text)
        return known

    def _resolves_to_str(self, text: str) -> bool:
        # cast: some releases of the PyYAML stubs leave ``resolve`` untyped.
        resolver = cast(Any, self._resolver)
        return bool(resolver.resolve(yaml.ScalarNode, text, (True, False)) == _STR_TAG)

    def in_place(self, text: str, path: list[Any]) -> str:
        """``text`` as PyYAML writes it at ``path`` (keys, and None for a list item):
        dump a skeleton with just that path, and keep what follows the path's own text."""
        skeleton: Any = text
        probe: Any = "x"
        for step in reversed(path):
            skeleton = [skeleton] if step is None else {step: skeleton}
            probe = [probe] if step is None else {step: probe}
        if not path:
            raise Unsupported
        prefix = emit(probe, self._dumper, self._options, self)[:-2]  # less "x\n"
        out: str = yaml.dump(skeleton, Dumper=self._dumper, **self._options)
        if not out.startswith(prefix) or not out.endswith("\n"):
            raise Unsupported
        return out[len(prefix):-1]

    def _ask_pyyaml(self, text: str, key: bool) -> str | None:
        if len(text) > _MAX_SCALAR or _LINE_BREAK.search(text):
            return None
        if key:
            out = yaml.dump({text: None}, Dumper=self._dumper, **self._options)
            rendered, sep, rest = out.rpartition(": null\n")
            ok = sep and not rest and not rendered.startswith("?") and len(rendered) < _MAX_KEY
        else:
            out = yaml.dump({"k": text}, Dumper=self._dumper, **self._options)
            prefix, rendered = "k: ", out[3:-1]
            ok = out.startswith(prefix) and out.endswith("\n")
        return rendered if ok and "\n" not in rendered else None


def emit(document: Any, dumper: type[Any], options: dict[str, Any],
         scalars: _Scalars | None = None) -> str:
    """``document`` (a mapping or a list) as PyYAML block-style YAML."""
    writer = _Writer(scalars or _scalars(dumper, options))
    if isinstance(document, dict) and document:
        writer.mapping(document, 0)
    elif isinstance(document, list) and document:
        writer.sequence(document, 0)
    else:
        raise Unsupported
    return "".join(writer.out)


_SHARED: dict[tuple[Any, ...], _Scalars] = {}


def _scalars(dumper: type[Any], options: dict[str, Any]) -> _Scalars:
    key = (dumper, *sorted(options.items()))
    if key not in _SHARED:
        _SHARED[key] = _Scalars(dumper, options)
    return _SHARED[key]


class _Writer:
    __slots__ = ("out", "path", "scalars")

    def __init__(self, scalars: _Scalars) -> None:
        self.out: list[str] = []
        self.scalars = scalars
        self.path: list[Any] = []  # keys to where we are; None for a list item

    def scalar(self, value: Any) -> str:
        kind = type(value)
        if kind is str:
            try:
                return self.scalars.render(value, False)
            except Unsupported:
                return self.scalars.in_place(value, self.path)
        if kind is bool:
            return "true" if value else "false"
        if kind is int:
            return str(value)
        if value is None:
            return "null"
        raise Unsupported  # floats and other types: PyYAML's own rules

    def mapping(self, mapping: dict[Any, Any], indent: int, first_prefix: str = "") -> None:
        """Write ``mapping`` at ``indent``; its first line starts with ``first_prefix``
        (``- `` when it is a sequence item) instead of the indent."""
        if indent > _MAX_INDENT:
            raise Unsupported
        out = self.out
        pad = " " * indent
        prefix = first_prefix or pad
        for key, value in mapping.items():
            if type(key) is not str:
                raise Unsupported
            head = prefix + self.scalars.key(key) + ":"
            prefix = pad
            kind = type(value)
            self.path.append(key)
            if kind is dict:
                if value:
                    out.append(head + "\n")
                    self.mapping(value, indent + 2)
                else:
                    out.append(head + " {}\n")
            elif kind is list:
                if value:
                    out.append(head + "\n")
                    self.sequence(value, indent)  # PyYAML does not indent it
                else:
                    out.append(head + " []\n")
            else:
                out.append(head + " " + self.scalar(value) + "\n")
            self.path.pop()

    def sequence(self, items: list[Any], indent: int, first_prefix: str = "") -> None:
        if indent > _MAX_INDENT:
            raise Unsupported
        out = self.out
        pad = " " * indent
        prefix = first_prefix or pad
        self.path.append(None)
        for item in items:
            head = prefix + "- "
            prefix = pad
            kind = type(item)
            if kind is dict:
                if item:
                    self.mapping(item, indent + 2, head)
                else:
                    out.append(head + "{}\n")
            elif kind is list:
                if item:
                    self.sequence(item, indent + 2, head)
                else:
                    out.append(head + "[]\n")
            else:
                out.append(head + self.scalar(item) + "\n")
        self.path.pop()

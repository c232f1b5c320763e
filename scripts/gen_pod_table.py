#!/usr/bin/env python3
"""Generate ``core/src/podtemplate/model/_pod_table.py`` from the shipped pod schema.

Usage::

    python scripts/gen_pod_table.py core/src/podtemplate/schemas/kubernetes/pod.json

The table of a PodTemplateSpec's fields and value types (``podtemplate.model._podcheck``)
is built by core from the pod schema; this writes the same table as Python, so a render
imports it instead of reading ``pod.json`` and building it (about 13 M instructions of a
one-task render, issue 32). The output is deterministic; a test proves the committed
module equals both this script's output and the table built from ``pod.json``.
``scripts/gen_kubernetes.py`` runs it whenever it writes ``pod.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "core/src/podtemplate/model/_pod_table.py"
_TYPE_NAMES = {str: "str", int: "int", bool: "bool", float: "float"}


def _build(document: dict[str, Any]) -> tuple[Any, ...]:
    sys.path.insert(0, str(REPO / "core" / "src"))
    from podtemplate.model._podcheck import build_pod_template_spec_table

    return build_pod_template_spec_table(document["components"]["schemas"])


def _types(types: frozenset[type]) -> str:
    return "frozenset({" + ", ".join(sorted(_TYPE_NAMES[kind] for kind in types)) + "})"


def render_text(raw: bytes, name: str) -> str:
    """The full text of the generated module for the pod schema ``raw`` (file ``name``)."""
    table = _build(json.loads(raw))
    names: dict[Any, str] = {}  # a node (by identity; leaves by value) -> its variable
    lines: list[str] = []

    def emit(node: tuple[Any, ...]) -> str:
        key: Any = node if node[0] in ("leaf", "any") else id(node)
        if key in names:
            return names[key]
        kind = node[0]
        if kind == "leaf":
            text = f'("leaf", {_types(node[1])})'
        elif kind == "any":
            text = '("any",)'
        elif kind in ("list", "map"):
            text = f'("{kind}", {emit(node[1])})'
        else:
            fields = ", ".join(f"{field!r}: {emit(sub)}" for field, sub in node[1].items())
            text = (f'("model", {{{fields}}}, {tuple(node[2])!r}, '
                    f"{dict(node[3])!r})")
        variable = names[key] = f"_N{len(names)}"
        lines.append(f"{variable}: _Node = {text}")
        return variable

    root = emit(table)
    header = [
        '"""The fields and value types of a PodTemplateSpec (see ``model/_podcheck.py``).',
        "",
        "GENERATED FILE - DO NOT EDIT. Regenerate with:",
        f"    python scripts/gen_pod_table.py {name}",
        '"""',
        "",
        "# ruff: noqa: E501",
        "from typing import Any",
        "",
        "_Node = tuple[Any, ...]",
    ]
    return "\n".join([*header, *lines, "", f"TABLE: _Node = {root}", ""])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("schema", type=Path, help="the shipped pod.json")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    text = render_text(args.schema.read_bytes(), str(args.schema))
    args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

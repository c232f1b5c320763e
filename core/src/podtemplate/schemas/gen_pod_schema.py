"""Generate :mod:`podtemplate.schemas._pod_schema` from a Kubernetes OpenAPI document.

Usage::

    python -m podtemplate.schemas.gen_pod_schema SPEC.json [--out PATH]

The output keeps, for every schema reachable from ``io.k8s.api.core.v1.PodSpec``, what
the probe generator reads: types, formats, ``required``, ``items``,
``additionalProperties``, ``$ref``/``allOf`` and ``enum``, plus the sentences of
each description that mention a default, a deprecation or the valid values. It is a much
smaller stand-in for the shared document, so the probe can be built without ../shared;
the same input always gives byte-identical output, which a test uses to prove the
committed module is up to date.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .source import POD_SPEC, SchemaSource, schema_source_from_document

DEFAULT_OUT = Path(__file__).resolve().parent / "_pod_schema.py"
_KEPT = ("type", "format", "required", "enum", "x-kubernetes-int-or-string")
_NOTE = re.compile(r"default|deprecat|valid values|one of|possible|supported values|must be",
                   re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def reachable(source: SchemaSource, root: str = POD_SPEC) -> list[str]:
    """Names of every schema reachable from ``root`` by ``$ref``, sorted."""
    seen: set[str] = set()
    pending = [root]
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        pending.extend(_refs(source.definition(name)))
    return sorted(seen)


def _refs(schema: Any) -> Iterator[str]:
    if isinstance(schema, Mapping):
        for key, value in schema.items():
            if key == "$ref" and isinstance(value, str):
                yield SchemaSource.ref_name(value)
            else:
                yield from _refs(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _refs(item)


def reduce_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of one schema node the probe generator reads."""
    out: dict[str, Any] = {key: schema[key] for key in _KEPT if key in schema}
    if "$ref" in schema:
        out["$ref"] = "#/components/schemas/" + SchemaSource.ref_name(schema["$ref"])
    if "allOf" in schema:
        out["allOf"] = [reduce_schema(part) for part in schema["allOf"]]
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), Mapping):
            out[key] = reduce_schema(schema[key])
    if "properties" in schema:
        out["properties"] = {name: reduce_schema(sub)
                             for name, sub in sorted(schema["properties"].items())}
    note = " ".join(s for s in _SENTENCE.split(schema.get("description", "")) if _NOTE.search(s))
    if note:
        out["description"] = note
    return out


def render(spec_path: Path) -> str:
    """The text of the generated module for the OpenAPI document at ``spec_path``."""
    raw = spec_path.read_bytes()
    source = schema_source_from_document(json.loads(raw), spec_path.name)
    schemas = {name: reduce_schema(source.definition(name)) for name in reachable(source)}
    lines = ",\n".join(f"{json.dumps(name)}: {json.dumps(schema, sort_keys=True)}"
                       for name, schema in schemas.items())
    return (
        '"""Schemas reachable from PodSpec, reduced for the probe generator.\n\n'
        "GENERATED FILE - DO NOT EDIT. Regenerate with:\n"
        f"    python -m podtemplate.schemas.gen_pod_schema {spec_path.name}\n"
        '"""\n\n'
        "# ruff: noqa: E501\n\n"
        "import json\n"
        "from typing import Any\n\n"
        f"SOURCE = {spec_path.name!r}\n"
        f"SOURCE_SHA256 = {hashlib.sha256(raw).hexdigest()!r}\n\n"
        "# One schema per line, as JSON.\n"
        f"SCHEMAS: dict[str, Any] = json.loads(r\"\"\"{{\n{lines}\n}}\"\"\")\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec", type=Path, help="kubernetes-X.Y-api__v1_openapi.json")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    args.out.write_text(render(args.spec), encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

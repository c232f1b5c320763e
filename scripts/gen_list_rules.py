#!/usr/bin/env python3
"""Generate ``core/src/podtemplate/merge/_list_rules.py`` from a Kubernetes OpenAPI document.

Usage::

    python scripts/gen_list_rules.py SPEC.json [--out core/src/podtemplate/merge/_list_rules.py]

SPEC.json is the API server's OpenAPI v3 document for ``/api/v1`` (``components.schemas``)
or a swagger v2 document (``definitions``). Every array-valued field reachable from
``io.k8s.api.core.v1.PodTemplateSpec`` is recorded with its strategic-merge and
server-side-apply list metadata, so the merge never depends on a hand-kept table.
The output is deterministic: the same input always yields byte-identical text, which a
test uses to prove the committed module is up to date. ``scripts/gen_kubernetes.py`` runs
it on the shipped ``core/src/podtemplate/schemas/kubernetes/pod.json`` (the reduced pod
schema, which keeps every list extension), so a fresh clone can check the table.
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

ROOT_SCHEMA = "io.k8s.api.core.v1.PodTemplateSpec"
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "core/src/podtemplate/merge/_list_rules.py"

Schema = Mapping[str, Any]
Rule = dict[str, Any]


class SpecError(Exception):
    """The input document is not a Kubernetes OpenAPI document we can walk."""


def load_schemas(document: Mapping[str, Any]) -> tuple[dict[str, Schema], str]:
    """Return the named schemas and the ``$ref`` prefix that points at them."""
    components = document.get("components", {})
    if isinstance(components, Mapping) and "schemas" in components:
        return dict(components["schemas"]), "#/components/schemas/"
    if "definitions" in document:
        return dict(document["definitions"]), "#/definitions/"
    raise SpecError("no components.schemas (OpenAPI v3) or definitions (swagger v2) found")


class Walker:
    """Walks the schema graph from the root and collects one rule per array field."""

    def __init__(self, schemas: Mapping[str, Schema], ref_prefix: str) -> None:
        self.schemas = schemas
        self.ref_prefix = ref_prefix
        self.rules: dict[str, Rule] = {}

    def ref_name(self, ref: str) -> str:
        if not ref.startswith(self.ref_prefix):
            raise SpecError(f"unsupported $ref {ref!r} (expected prefix {self.ref_prefix!r})")
        return ref[len(self.ref_prefix):]

    def expand(self, schema: Schema, seen: frozenset[str]) -> Iterator[tuple[Schema, str | None]]:
        """Yield the schema and every schema it pulls in by $ref/allOf/oneOf/anyOf.

        Each part comes with the definition name it was reached through (or None), so
        recursion through a named type can be cut off.
        """
        yield schema, None
        if "$ref" in schema:
            name = self.ref_name(schema["$ref"])
            if name in seen:
                return
            yield from self._named(name, seen)
        for combinator in ("allOf", "oneOf", "anyOf"):
            for part in schema.get(combinator, ()):
                yield from self.expand(part, seen)

    def _named(self, name: str, seen: frozenset[str]) -> Iterator[tuple[Schema, str | None]]:
        target = self.schemas.get(name)
        if target is None:
            raise SpecError(f"$ref to missing schema {name!r}")
        for part, _ in self.expand(target, seen | {name}):
            yield part, name

    def walk(self, schema: Schema, path: str, seen: frozenset[str]) -> None:
        parts = list(self.expand(schema, seen))
        names = seen | {name for _, name in parts if name}
        if any(part.get("type") == "array" or "items" in part for part, _ in parts):
            self.rules[path + "[]"] = rule_for(part for part, _ in parts)
            for part, _ in parts:
                if isinstance(part.get("items"), Mapping):
                    self.walk(part["items"], path + "[]", names)
        for part, _ in parts:
            for field, sub in sorted(part.get("properties", {}).items()):
                self.walk(sub, join(path, field), names)
            extra = part.get("additionalProperties")
            if isinstance(extra, Mapping):
                self.walk(extra, path + "{}", names)


def join(path: str, field: str) -> str:
    return f"{path}.{field}" if path else field


def rule_for(parts: Iterator[Schema]) -> Rule:
    """Combine the list extensions of one array field (outer declarations win)."""
    found: dict[str, Any] = {}
    for part in parts:
        for ext in (
            "x-kubernetes-patch-strategy",
            "x-kubernetes-patch-merge-key",
            "x-kubernetes-list-type",
            "x-kubernetes-list-map-keys",
        ):
            if ext in part and ext not in found:
                found[ext] = part[ext]
    map_keys = found.get("x-kubernetes-list-map-keys")
    return {
        "patch_strategy": found.get("x-kubernetes-patch-strategy"),
        "patch_merge_key": found.get("x-kubernetes-patch-merge-key"),
        "list_type": found.get("x-kubernetes-list-type"),
        "list_map_keys": tuple(map_keys) if map_keys else None,
    }


def classify(rule: Rule) -> tuple[str, tuple[str, ...]]:
    """Decide how the merge treats the list: ("map", keys), ("set", ()) or ("atomic", ())."""
    strategies = set((rule["patch_strategy"] or "").split(","))
    if rule["list_type"] == "map" and rule["list_map_keys"]:
        return "map", rule["list_map_keys"]
    if rule["list_type"] == "set":
        return "set", ()
    if rule["list_type"] in (None, "") and "merge" in strategies:
        # Only the older patch metadata is present: it alone says keyed or union.
        if rule["patch_merge_key"]:
            return "map", (rule["patch_merge_key"],)
        return "set", ()
    return "atomic", ()


def item_schema_parts(walker: Walker, path: str) -> list[Schema]:
    """The expanded schema parts of the items of the list at ``path``."""
    node: list[Schema] = [walker.schemas[ROOT_SCHEMA]]
    for token in re.findall(r"[^.\[\]{}]+|\[\]|\{\}", path):
        nxt: list[Schema] = []
        for schema in node:
            for part, _ in walker.expand(schema, frozenset()):
                if token == "[]" and isinstance(part.get("items"), Mapping):
                    nxt.append(part["items"])
                elif token == "{}" and isinstance(part.get("additionalProperties"), Mapping):
                    nxt.append(part["additionalProperties"])
                elif token in part.get("properties", {}):
                    nxt.append(part["properties"][token])
        node = nxt
    return [part for schema in node for part, _ in walker.expand(schema, frozenset())]


def key_defaults(walker: Walker, path: str, keys: tuple[str, ...]) -> dict[str, Any]:
    """Schema defaults of optional key fields (ports: a missing protocol means "TCP").

    Required key fields get no default: an item without them is malformed, and a
    ``$patch: delete`` item must name them.
    """
    parts = item_schema_parts(walker, path)
    required = {name for part in parts for name in part.get("required", ())}
    defaults: dict[str, Any] = {}
    for key in keys:
        if key in required:
            continue
        for part in parts:
            prop = part.get("properties", {}).get(key, {})
            if "default" in prop:
                defaults[key] = prop["default"]
                break
    return defaults


def build_rules(document: Mapping[str, Any]) -> dict[str, Rule]:
    schemas, prefix = load_schemas(document)
    if ROOT_SCHEMA not in schemas:
        raise SpecError(f"schema {ROOT_SCHEMA} not found")
    walker = Walker(schemas, prefix)
    walker.walk(schemas[ROOT_SCHEMA], "", frozenset({ROOT_SCHEMA}))
    table: dict[str, Rule] = {}
    for path in sorted(walker.rules):
        raw = walker.rules[path]
        strategy, keys = classify(raw)
        entry: Rule = {"strategy": strategy}
        if strategy == "map":
            entry["keys"] = keys
            defaults = key_defaults(walker, path, keys)
            if defaults:
                entry["key_defaults"] = defaults
        entry.update({name: value for name, value in raw.items() if value is not None})
        table[path] = entry
    return table


def kubernetes_version(source: Path, document: Mapping[str, Any]) -> str:
    match = re.search(r"kubernetes-(\d+\.\d+)", source.name)
    if match:
        return match.group(1)
    return str(document.get("info", {}).get("version", "unknown"))


def literal(value: Any) -> str:
    """Python source for a JSON-ish value, double-quoted like the rest of the code base."""
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, tuple):
        inner = ", ".join(literal(item) for item in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, dict):
        inner = ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items())
        return "{" + inner + "}"
    if value is None or isinstance(value, (bool, int, float)):
        return repr(value)
    raise SpecError(f"cannot render {value!r} as a literal")


def render(source: Path) -> str:
    """The full text of the generated module for the OpenAPI document at ``source``."""
    return render_text(source.read_bytes(), source.name)


def render_text(raw: bytes, name: str) -> str:
    """The full text of the generated module for the OpenAPI document ``raw``, read from
    a file called ``name`` (the shipped ``pod.json`` is made by scripts/gen_kubernetes.py)."""
    document = json.loads(raw)
    table = build_rules(document)
    version = kubernetes_version(Path(name), document)
    lines = [
        '"""List merge rules of a PodTemplateSpec, generated from the Kubernetes OpenAPI schema.',
        "",
        "GENERATED FILE - DO NOT EDIT. Regenerate with:",
        f"    python scripts/gen_list_rules.py {name}",
        "",
        "Keys are field paths relative to a PodTemplateSpec: '[]' marks a list item, '{}' a",
        "map value. ``strategy`` is how podtemplate merges the list: 'map' (items merged by",
        "``keys``; ``key_defaults`` fill optional key fields), 'set' (union of plain values) or",
        "'atomic' (the higher layer replaces the list). The remaining entries are the schema's",
        "own x-kubernetes-* list extensions, verbatim; an absent entry means not declared.",
        '"""',
        "",
        "# ruff: noqa: E501",
        "",
        "from typing import Any",
        "",
        f"GENERATED_BY = {literal('scripts/gen_list_rules.py')}",
        f"ROOT = {literal(ROOT_SCHEMA)}",
        f"KUBERNETES_VERSION = {literal(version)}",
        f"SOURCE = {literal(name)}",
        f"SOURCE_SHA256 = {literal(hashlib.sha256(raw).hexdigest())}",
        "",
        "LIST_RULES: dict[str, dict[str, Any]] = {",
    ]
    for path, entry in table.items():
        lines.append(f"    {literal(path)}: {{")
        lines.extend(f"        {literal(name)}: {literal(value)}," for name, value in entry.items())
        lines.append("    },")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec", type=Path, help="Kubernetes OpenAPI v3 (or swagger v2) JSON")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="module to write")
    args = parser.parse_args(argv)
    try:
        text = render(args.spec)
    except (OSError, ValueError, SpecError) as exc:
        print(f"gen_list_rules: {args.spec}: {exc}", file=sys.stderr)
        return 2
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

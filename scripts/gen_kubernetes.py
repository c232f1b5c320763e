#!/usr/bin/env python3
"""Ship the Kubernetes facts core needs: the pod schema and the list merge rules.

Usage (from the repository root)::

    python scripts/gen_kubernetes.py kubernetes-1.35-api__v1_openapi.json \\
        [--version 1.35 --repository R --path P --ref REF --commit SHA --license SPDX] [--check]

From the API server's OpenAPI document for ``/api/v1`` (``components.schemas``; swagger
``definitions`` work too) it writes, in ``core/src/podtemplate/schemas/kubernetes/``:

- ``pod.json``: every schema reachable from ``io.k8s.api.core.v1.PodTemplateSpec``, reduced
  to what podtemplate reads (types, formats, ``required``, ``enum``, defaults, ``$ref``,
  ``items``, ``additionalProperties``, properties, the ``x-kubernetes-*`` list and map
  extensions, and the sentences of each description that state a default, a deprecation
  or the valid values);
- ``pod.source.json``: upstream repository, path, ref, commit, git blob id and sha256 of
  the upstream file, Kubernetes version, licence;

and regenerates ``core/src/podtemplate/merge/_list_rules.py`` and
``core/src/podtemplate/model/_pod_table.py`` from that ``pod.json`` with
``scripts/gen_list_rules.py`` and ``scripts/gen_pod_table.py``.
Provenance options default to what ``pod.source.json``
records. ``--check`` writes nothing and exits 1 when a shipped file is stale.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _shipped import dumps, pinned, write_or_check

ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = ROOT / "core" / "src" / "podtemplate" / "schemas" / "kubernetes"
LIST_RULES = ROOT / "core" / "src" / "podtemplate" / "merge" / "_list_rules.py"
POD_TABLE = ROOT / "core" / "src" / "podtemplate" / "model" / "_pod_table.py"
POD_JSON = "core/src/podtemplate/schemas/kubernetes/pod.json"  # as the list rules name it
ROOT_SCHEMA = "io.k8s.api.core.v1.PodTemplateSpec"
PROVENANCE_KEYS = ("version", "repository", "path", "ref", "commit", "license", "note")
OPTIONAL_KEYS = ("commit", "note")  # a branch's file is pinned by its blob id and sha256
_KEPT = ("type", "format", "required", "enum", "default", "x-kubernetes-int-or-string",
         "x-kubernetes-patch-strategy", "x-kubernetes-patch-merge-key",
         "x-kubernetes-list-type", "x-kubernetes-list-map-keys", "x-kubernetes-map-type")
_NOTE = re.compile(r"default|deprecat|valid values|one of|possible|supported values|must be",
                   re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_REF = "#/components/schemas/"


def named_schemas(document: Mapping[str, Any]) -> Mapping[str, Any]:
    components = document.get("components")
    found = (components.get("schemas") if isinstance(components, Mapping)
             else None) or document.get("definitions")
    if isinstance(found, Mapping):
        return found
    raise ValueError("no components.schemas (OpenAPI v3) or definitions (swagger v2) found")


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _refs(schema: Any) -> Iterator[str]:
    if isinstance(schema, Mapping):
        for key, value in schema.items():
            if key == "$ref" and isinstance(value, str):
                yield _ref_name(value)
            else:
                yield from _refs(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _refs(item)


def reachable(schemas: Mapping[str, Any], root: str = ROOT_SCHEMA) -> list[str]:
    """Names of every schema reachable from ``root`` by ``$ref``, sorted."""
    seen: set[str] = set()
    pending = [root]
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        if name not in schemas:
            raise ValueError(f"schema {name} not found")
        seen.add(name)
        pending.extend(_refs(schemas[name]))
    return sorted(seen)


def reduce_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of one schema node that podtemplate reads."""
    out: dict[str, Any] = {key: schema[key] for key in _KEPT if key in schema}
    if "$ref" in schema:
        out["$ref"] = _REF + _ref_name(schema["$ref"])
    for key in ("allOf", "oneOf", "anyOf"):
        if key in schema:
            out[key] = [reduce_schema(part) for part in schema[key]]
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


def pod_document(document: Mapping[str, Any], version: str) -> dict[str, Any]:
    """The shipped ``pod.json``: an OpenAPI document of the reduced pod schemas."""
    schemas = named_schemas(document)
    return {
        "openapi": "3.0.0",
        "info": {"title": f"Kubernetes {version}: schemas reachable from {ROOT_SCHEMA}",
                 "version": version},
        "components": {"schemas": {name: reduce_schema(schemas[name])
                                   for name in reachable(schemas)}},
    }


def _version_from(name: str) -> str | None:
    match = re.search(r"kubernetes-(\d+\.\d+)", name)
    return match.group(1) if match else None


def provenance(raw: bytes, name: str, given: Mapping[str, str | None],
               recorded: Mapping[str, Any]) -> dict[str, Any]:
    facts = pinned(raw)
    old = {**recorded.get("upstream", {}), **recorded,
           "version": recorded.get("kubernetes_version")}
    values = {key: given.get(key) or old.get(key) for key in PROVENANCE_KEYS}
    values["version"] = given.get("version") or _version_from(name) or values["version"]
    if recorded.get("upstream", {}).get("sha256") != facts["sha256"] and not given.get("ref"):
        raise ValueError("this upstream file is not the one recorded: give --ref (and "
                         "--commit when it is known)")
    missing = [key for key, value in values.items() if not value and key not in OPTIONAL_KEYS]
    if missing:
        raise ValueError("provenance unknown, give " + ", ".join(f"--{k}" for k in missing))
    return {
        "what": f"schemas reachable from {ROOT_SCHEMA}, reduced (see scripts/gen_kubernetes.py)",
        "kubernetes_version": values["version"],
        "license": values["license"],
        "upstream": {"file": name, "repository": values["repository"], "path": values["path"],
                     "ref": values["ref"], "commit": values["commit"], "note": values["note"],
                     **facts},
        "generated_by": "scripts/gen_kubernetes.py",
    }


def _generator(name: str) -> ModuleType:
    """One of the generator scripts beside this one, as a module."""
    spec = importlib.util.spec_from_file_location(name, Path(__file__).parent / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


def outputs(upstream: Path, given: Mapping[str, str | None], out_dir: Path = OUT_DIR,
            list_rules: Path = LIST_RULES, pod_table: Path = POD_TABLE) -> dict[Path, str]:
    """File path -> text of everything this upstream document gives."""
    raw = upstream.read_bytes()
    source_file = out_dir / "pod.source.json"
    recorded = json.loads(source_file.read_text(encoding="utf-8")) if source_file.is_file() else {}
    source = provenance(raw, upstream.name, given, recorded)
    pod = dumps(pod_document(json.loads(raw), source["kubernetes_version"]))
    # The list rules and the pod table are made from the shipped file, so a fresh clone
    # can prove them.
    shipped = pod.encode("utf-8")
    return {out_dir / "pod.json": pod, source_file: dumps(source),
            list_rules: _generator("gen_list_rules").render_text(shipped, POD_JSON),
            pod_table: _generator("gen_pod_table").render_text(shipped, POD_JSON)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("upstream", type=Path, help="kubernetes-X.Y-api__v1_openapi.json")
    for key in PROVENANCE_KEYS:
        parser.add_argument(f"--{key}")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when a shipped file is stale")
    args = parser.parse_args(argv)
    try:
        files = outputs(args.upstream, {k: getattr(args, k) for k in PROVENANCE_KEYS})
    except (OSError, ValueError) as error:
        print(f"error: {args.upstream}: {error}", file=sys.stderr)
        return 2
    return write_or_check(files, check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())

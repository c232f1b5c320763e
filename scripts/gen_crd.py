#!/usr/bin/env python3
"""Ship an operator's CRD as package data: slim the upstream file, record where it came from.

Usage (from the repository root)::

    python scripts/gen_crd.py UPSTREAM.yaml --into PACKAGE_DIR/crds \\
        [--repository OWNER/NAME --path PATH --ref TAG --commit SHA --license SPDX \\
         --operator "NAME VERSION"] [--check]

Writes ``<group>_<plural>.json`` (the CRD with only its storage version, every
``description`` removed: nothing the API server validates or prunes with is dropped) and
``<group>_<plural>.source.json`` beside it (upstream repository, path, tag, commit, git blob
id and sha256 of the upstream file, licence, what was slimmed). The provenance options
default to what the existing ``.source.json`` records, so refreshing a file from the same
upstream needs none; a different upstream file must come with ``--ref`` and ``--commit``.
``--check`` writes nothing and exits 1 when the shipped files differ from what the upstream
file gives. The output is deterministic (sorted keys, one key per line).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _shipped import dumps, pinned, write_or_check

GENERATED_BY = "scripts/gen_crd.py"
PROVENANCE_KEYS = ("repository", "path", "ref", "commit", "license", "operator")


class UpstreamError(Exception):
    """The upstream file is not one CustomResourceDefinition we can ship."""


def strip_descriptions(node: Any) -> Any:
    """``node`` without ``description`` keys. A property *named* description (under
    ``properties``) is a field, not prose, and is kept."""
    if isinstance(node, Mapping):
        return {key: (_strip_properties(value) if key == "properties"
                      else strip_descriptions(value))
                for key, value in node.items() if key != "description"}
    if isinstance(node, list):
        return [strip_descriptions(item) for item in node]
    return node


def _strip_properties(properties: Mapping[str, Any]) -> dict[str, Any]:
    return {name: strip_descriptions(schema) for name, schema in properties.items()}


def read_crd(text: str) -> dict[str, Any]:
    """The one CustomResourceDefinition in ``text`` (YAML or JSON)."""
    documents = [d for d in yaml.safe_load_all(text) if d is not None]
    crds = [d for d in documents if isinstance(d, Mapping)
            and d.get("kind") == "CustomResourceDefinition"]
    if len(crds) != 1:
        raise UpstreamError(f"expected one CustomResourceDefinition, found {len(crds)}")
    return dict(crds[0])


def slim(crd: Mapping[str, Any]) -> dict[str, Any]:
    """The storage version's schema, names and scope; no descriptions."""
    spec = crd["spec"]
    storage = [v for v in spec["versions"] if v.get("storage")]
    if len(storage) != 1 or "schema" not in storage[0]:
        raise UpstreamError("expected exactly one storage version with a schema")
    version = storage[0]
    return {
        "apiVersion": crd["apiVersion"],
        "kind": "CustomResourceDefinition",
        "metadata": {"name": crd["metadata"]["name"]},
        "spec": {
            "group": spec["group"],
            "names": spec["names"],
            "scope": spec.get("scope", "Namespaced"),
            "versions": [{
                "name": version["name"],
                "served": version.get("served", True),
                "storage": True,
                "schema": strip_descriptions(version["schema"]),
            }],
        },
    }


def provenance(raw: bytes, crd: Mapping[str, Any], slimmed: Mapping[str, Any],
               given: Mapping[str, str | None], recorded: Mapping[str, Any], *,
               check: bool = False) -> dict[str, Any]:
    """What ``.source.json`` says: the given options, else what was recorded before.
    ``check``: only to compare, so a new upstream file needs no new options."""
    facts = pinned(raw)
    old = recorded.get("upstream", {})
    same_file = old.get("sha256") == facts["sha256"]
    values = {key: given.get(key) or (old.get(key) if key in old else recorded.get(key))
              for key in PROVENANCE_KEYS}
    if not (same_file or check) and not (given.get("ref") and given.get("commit")):
        raise UpstreamError("this upstream file is not the one recorded: give --ref and "
                            "--commit (and the other provenance options that changed)")
    missing = [key for key, value in values.items() if not value]
    if missing:
        raise UpstreamError("provenance unknown, give " + ", ".join(f"--{k}" for k in missing))
    served = [v["name"] for v in crd["spec"]["versions"] if v.get("served", True)]
    kept = slimmed["spec"]["versions"][0]["name"]
    dropped = [name for name in served if name != kept]
    return {
        "kind": slimmed["spec"]["names"]["kind"],
        "group": slimmed["spec"]["group"],
        "version": kept,
        "operator": values["operator"],
        "license": values["license"],
        "upstream": {
            "repository": values["repository"], "path": values["path"], "ref": values["ref"],
            "commit": values["commit"], **facts,
        },
        "slimmed": ("storage version " + kept + " only"
                    + (f" (served but not shipped: {', '.join(dropped)})" if dropped else "")
                    + "; every description removed; nothing else changed"),
        "generated_by": GENERATED_BY,
    }


def outputs(upstream: Path, folder: Path, given: Mapping[str, str | None], *,
            check: bool = False) -> dict[Path, str]:
    """File path -> text of everything this upstream file gives."""
    raw = upstream.read_bytes()
    crd = read_crd(raw.decode("utf-8"))
    slimmed = slim(crd)
    stem = f"{slimmed['spec']['group']}_{slimmed['spec']['names']['plural']}"
    source_file = folder / f"{stem}.source.json"
    recorded = json.loads(source_file.read_text(encoding="utf-8")) if source_file.is_file() else {}
    return {folder / f"{stem}.json": dumps(slimmed),
            source_file: dumps(provenance(raw, crd, slimmed, given, recorded, check=check))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("upstream", type=Path, help="the operator's CRD file (YAML or JSON)")
    parser.add_argument("--into", type=Path, required=True,
                        help="the package's crds/ folder")
    for key in PROVENANCE_KEYS:
        parser.add_argument(f"--{key}")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when the shipped files are stale")
    args = parser.parse_args(argv)
    try:
        files = outputs(args.upstream, args.into, {k: getattr(args, k) for k in PROVENANCE_KEYS},
                        check=args.check)
    except (OSError, UnicodeDecodeError, yaml.YAMLError, KeyError, UpstreamError) as error:
        print(f"error: {args.upstream}: {error}", file=sys.stderr)
        return 2
    return write_or_check(files, check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""Generate ``podtemplate_dask/_crd_fields.py`` from the dask-kubernetes DaskJob CRD.

The DaskJob CRD embeds an old (Kubernetes 1.21) PodSpec. The API server prunes any pod
field that schema does not know, so the plugin must know, at render time and without
walking the CRD, which fields each role's pod may carry. This script derives that from the
CRD the plugin ships (``src/podtemplate_dask/crds/``):

- ``KNOWN_FIELDS``: per role, every field path of its PodTemplateSpec (``metadata`` and
  ``spec``) the CRD declares; ``[]`` marks a list item (``spec.containers[].image``).
- ``OPEN_FIELDS``: per role, the paths below which any key is kept (maps such as
  ``spec.nodeSelector``, ``resources.limits``, and objects that preserve unknown fields).
- ``NEWER_FIELDS``: per role, the top-most field paths of the current Kubernetes
  PodTemplateSpec (from the pod schema core ships) that the CRD does not know. The plugin
  declares these ``unsupported`` so that coverage says so instead of ``LOST``.

Usage (from the repository root)::

    python plugins/dask/scripts/gen_known_fields.py [--crd FILE] [--k8s FILE] [--output FILE]

``--crd`` defaults to the shipped DaskJob CRD, ``--k8s`` to core's shipped
``podtemplate/schemas/kubernetes/pod.json``. The test ``test_dask_crd_fields.py``
regenerates the module and asserts it is up to date.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

K8S_ROOT = "io.k8s.api.core.v1.PodTemplateSpec"
# Where each role's PodTemplateSpec sits under the DaskJob's ``spec``.
ROLE_PATHS = {
    "job-runner": ("job",),
    "scheduler": ("cluster", "spec", "scheduler"),
    "worker": ("cluster", "spec", "worker"),
}
# Pod metadata the plugin emits; the rest of ObjectMeta never reaches a role's pod.
POD_METADATA = ("labels", "annotations")
PLUGIN_DIR = Path(__file__).resolve().parents[1]
DEFAULT_OUTPUT = PLUGIN_DIR / "src" / "podtemplate_dask" / "_crd_fields.py"
DEFAULT_CRD = PLUGIN_DIR / "src" / "podtemplate_dask" / "crds" / "kubernetes.dask.org_daskjobs.json"
DEFAULT_K8S = (PLUGIN_DIR.parents[1] / "core" / "src" / "podtemplate" / "schemas" / "kubernetes"
               / "pod.json")

Schema = Mapping[str, Any]


# --- the CRD side ------------------------------------------------------------------------

def role_schemas(crd: Schema) -> dict[str, Schema]:
    """Each role's PodTemplateSpec schema (``metadata`` and ``spec`` only)."""
    version = next(v for v in crd["spec"]["versions"] if v.get("storage", True))
    spec = version["schema"]["openAPIV3Schema"]["properties"]["spec"]
    out = {}
    for role, path in ROLE_PATHS.items():
        node = spec
        for part in path:
            node = node["properties"][part]
        props = node["properties"]
        out[role] = {"properties": {k: props[k] for k in ("metadata", "spec") if k in props}}
    return out


def _is_open(node: Schema) -> bool:
    return bool(node.get("additionalProperties")
                or node.get("x-kubernetes-preserve-unknown-fields"))


def walk_crd(node: Schema, path: str = "") -> Iterator[tuple[str, bool]]:
    """``(path, is_open)`` for every field below ``node``."""
    for name, child in (node.get("properties") or {}).items():
        child_path = f"{path}.{name}" if path else name
        yield child_path, _is_open(child)
        yield from walk_crd(child, child_path)
    if "items" in node:
        yield from walk_crd(node["items"], f"{path}[]")


# --- the Kubernetes side -----------------------------------------------------------------

def _deref(schema: Schema, definitions: Schema) -> tuple[Schema, str | None]:
    """Follow ``$ref`` (directly or in a one-element ``allOf``); also return its name."""
    name = None
    while True:
        ref = schema.get("$ref") or (
            schema["allOf"][0].get("$ref") if len(schema.get("allOf") or ()) == 1 else None)
        if not ref:
            return schema, name
        name = ref.rsplit("/", 1)[-1]
        schema = definitions[name]


def walk_k8s(node: Schema, definitions: Schema, path: str = "",
             seen: frozenset[str] = frozenset()) -> Iterator[str]:
    """Every field path below ``node`` of the Kubernetes OpenAPI document."""
    node, name = _deref(node, definitions)
    if name in seen:  # a recursive type: its fields were listed above
        return
    seen = seen | {name} if name else seen
    if node.get("type") == "array" and "items" in node:
        yield from walk_k8s(node["items"], definitions, f"{path}[]", seen)
        return
    for field_name, child in (node.get("properties") or {}).items():
        if path == "metadata" and field_name not in POD_METADATA:
            continue
        child_path = f"{path}.{field_name}" if path else field_name
        yield child_path
        yield from walk_k8s(child, definitions, child_path, seen)


def newer_fields(k8s_paths: set[str], known: set[str], open_paths: set[str]) -> list[str]:
    """Top-most Kubernetes paths the CRD does not know (below an open path all is known)."""
    missing = []
    for path in sorted(k8s_paths):
        if path in known or any(path.startswith(o + ".") or path.startswith(o + "[")
                                for o in open_paths):
            continue
        if not any(path.startswith(m + ".") or path.startswith(m + "[") for m in missing):
            missing.append(path)
    return missing


# --- output ------------------------------------------------------------------------------

def _tuple(name: str, values: list[str]) -> str:
    body = "".join(f'    "{value}",\n' for value in values)
    return f"{name}: frozenset[str] = frozenset((\n{body}))\n"


def generate(crd_file: Path = DEFAULT_CRD, k8s_file: Path = DEFAULT_K8S) -> str:
    """The text of the generated module."""
    crd = yaml.safe_load(crd_file.read_text(encoding="utf-8"))
    document = json.loads(k8s_file.read_text(encoding="utf-8"))
    definitions = document["components"]["schemas"]
    k8s_paths = set(walk_k8s(definitions[K8S_ROOT], definitions))
    groups: dict[tuple[tuple[str, ...], tuple[str, ...]], list[str]] = {}
    for role, schema in role_schemas(crd).items():
        fields = list(walk_crd(schema))
        known = tuple(sorted(p for p, _ in fields))
        open_ = tuple(sorted(p for p, is_open in fields if is_open))
        groups.setdefault((known, open_), []).append(role)
    parts = [HEADER.format(crd=crd_file.name, k8s=f"Kubernetes {document['info']['version']} "
                           f"{k8s_file.name}")]
    known_map, open_map, newer_map = [], [], []
    for index, ((known, open_), roles) in enumerate(groups.items()):
        newer = newer_fields(k8s_paths, set(known), set(open_))
        parts += [_tuple(f"_KNOWN_{index}", list(known)), _tuple(f"_OPEN_{index}", list(open_)),
                  _tuple(f"_NEWER_{index}", newer)]
        for role in roles:
            known_map.append(f'    "{role}": _KNOWN_{index},\n')
            open_map.append(f'    "{role}": _OPEN_{index},\n')
            newer_map.append(f'    "{role}": _NEWER_{index},\n')
    parts.append("KNOWN_FIELDS: dict[str, frozenset[str]] = {\n" + "".join(known_map) + "}\n")
    parts.append("OPEN_FIELDS: dict[str, frozenset[str]] = {\n" + "".join(open_map) + "}\n")
    parts.append("NEWER_FIELDS: dict[str, frozenset[str]] = {\n" + "".join(newer_map) + "}\n")
    return "\n".join(parts)


HEADER = '''"""Pod fields the DaskJob CRD knows, per role. GENERATED: do not edit.

Generated by plugins/dask/scripts/gen_known_fields.py from
{crd} (NEWER_FIELDS also from {k8s}).
Paths are relative to a role's PodTemplateSpec; ``[]`` marks a list item.
"""

from __future__ import annotations

__all__ = ["KNOWN_FIELDS", "OPEN_FIELDS", "NEWER_FIELDS"]
'''


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--crd", type=Path, default=DEFAULT_CRD)
    parser.add_argument("--k8s", type=Path, default=DEFAULT_K8S)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    for path in (args.crd, args.k8s):
        if not path.is_file():
            print(f"error: {path} not found", file=sys.stderr)
            return 2
    args.output.write_text(generate(args.crd, args.k8s))
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

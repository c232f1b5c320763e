"""Shipping an operator's CRD as package data (``podtemplate crd slim``): the upstream
file slimmed to what the API server validates and prunes with, and where it came from.

:func:`outputs` gives ``<group>_<plural>.json`` (the CRD with only its storage version,
every ``description`` removed) and ``<group>_<plural>.source.json`` beside it (upstream
repository, path, tag, commit, git blob id and sha256 of the upstream file, licence, what
was slimmed). The provenance defaults to what an existing ``.source.json`` records, so
refreshing a file from the same upstream needs none; a different upstream file must come
with its ``ref`` and ``commit``. The JSON is deterministic (sorted keys, one per line).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from ..errors import CrdFileError

__all__ = ["GENERATED_BY", "PROVENANCE_KEYS", "dumps", "outputs", "pinned", "read_crd",
           "slim", "slim_file", "stale", "strip_descriptions"]

GENERATED_BY = "podtemplate crd slim"
PROVENANCE_KEYS = ("repository", "path", "ref", "commit", "license", "operator")


def dumps(document: Mapping[str, Any]) -> str:
    """Deterministic, reviewable JSON: sorted keys, one key per line."""
    return json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def pinned(raw: bytes) -> dict[str, Any]:
    """sha256, size and git blob id of an upstream file (``git hash-object``)."""
    return {"sha256": hashlib.sha256(raw).hexdigest(), "bytes": len(raw),
            "blob": hashlib.sha1(b"blob %d\0" % len(raw) + raw).hexdigest()}


def stale(files: Mapping[Path, str]) -> list[Path]:
    """The files of ``files`` missing or holding other text than given."""
    return [path for path, text in files.items()
            if not path.is_file() or path.read_text(encoding="utf-8") != text]


def strip_descriptions(node: Any) -> Any:
    """``node`` without ``description`` keys. A property *named* description (under
    ``properties``) is a field, not prose, and is kept."""
    if isinstance(node, Mapping):
        return {key: ({name: strip_descriptions(schema) for name, schema in value.items()}
                      if key == "properties" and isinstance(value, Mapping)
                      else strip_descriptions(value))
                for key, value in node.items() if key != "description"}
    if isinstance(node, list):
        return [strip_descriptions(item) for item in node]
    return node


def read_crd(text: str, file: str) -> dict[str, Any]:
    """The one CustomResourceDefinition in ``text`` (YAML or JSON)."""
    try:
        documents = [d for d in yaml.safe_load_all(text) if d is not None]
    except yaml.YAMLError as error:
        raise CrdFileError(f"not YAML or JSON: {str(error).splitlines()[0]}", file=file,
                           fix="give the operator's CRD file as published") from None
    crds = [d for d in documents if isinstance(d, Mapping)
            and d.get("kind") == "CustomResourceDefinition"]
    if len(crds) != 1:
        raise CrdFileError(f"expected one CustomResourceDefinition, found {len(crds)}",
                           file=file, fix="give a file holding exactly one CRD")
    return dict(crds[0])


def slim(crd: Mapping[str, Any], file: str = "") -> dict[str, Any]:
    """The storage version's schema, names and scope; no descriptions."""
    try:
        spec = crd["spec"]
        storage = [v for v in spec["versions"] if v.get("storage")]
        if len(storage) != 1 or "schema" not in storage[0]:
            raise CrdFileError("expected exactly one storage version with a schema",
                               file=file or None, field="spec.versions",
                               fix="give the CRD as the operator publishes it")
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
    except (KeyError, TypeError, AttributeError) as error:
        raise CrdFileError(f"not a CustomResourceDefinition: no {error}", file=file or None,
                           fix="give the CRD as the operator publishes it") from None


def provenance(raw: bytes, crd: Mapping[str, Any], slimmed: Mapping[str, Any],
               given: Mapping[str, str | None], recorded: Mapping[str, Any], *,
               check: bool = False, file: str = "") -> dict[str, Any]:
    """What ``.source.json`` says: the given options, else what was recorded before.
    ``check``: only to compare, so a new upstream file needs no new options."""
    facts = pinned(raw)
    old = recorded.get("upstream", {})
    same_file = old.get("sha256") == facts["sha256"]
    values = {key: given.get(key) or (old.get(key) if key in old else recorded.get(key))
              for key in PROVENANCE_KEYS}
    if not (same_file or check) and not (given.get("ref") and given.get("commit")):
        raise CrdFileError("this upstream file is not the one recorded", file=file or None,
                           fix="give --ref and --commit (and the other provenance options "
                           "that changed)")
    missing = [key for key, value in values.items() if not value]
    if missing:
        raise CrdFileError("provenance unknown", file=file or None,
                           fix="give " + ", ".join(f"--{k}" for k in missing))
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


def slim_file(upstream: Path) -> tuple[bytes, dict[str, Any], dict[str, Any]]:
    """The upstream file's bytes, its CRD and the CRD slimmed."""
    try:
        raw = upstream.read_bytes()
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CrdFileError(f"cannot be read: {error}", file=str(upstream),
                           fix="give the path of a UTF-8 CRD file") from None
    crd = read_crd(text, str(upstream))
    return raw, crd, slim(crd, str(upstream))


def outputs(upstream: Path, folder: Path, given: Mapping[str, str | None], *,
            check: bool = False) -> dict[Path, str]:
    """File path -> text of everything this upstream file gives, in ``folder``."""
    raw, crd, slimmed = slim_file(upstream)
    stem = f"{slimmed['spec']['group']}_{slimmed['spec']['names']['plural']}"
    source_file = folder / f"{stem}.source.json"
    recorded = json.loads(source_file.read_text(encoding="utf-8")) if source_file.is_file() else {}
    return {folder / f"{stem}.json": dumps(slimmed),
            source_file: dumps(provenance(raw, crd, slimmed, given, recorded, check=check,
                                          file=str(upstream)))}

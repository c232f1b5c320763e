"""The DaskJob CRD's pod schema (Kubernetes 1.21) at render time.

The API server prunes every field a CRD's structural schema does not know, so a newer pod
field (``spec.os``, ``resizePolicy``, ``schedulingGates``...) set in a template would vanish
without a word once applied; with kubectl's default strict field validation the apply
fails instead. This module strips such fields from a role's resolved pod and returns their
paths, so the plugin warns about each one: the manifest then says exactly what the
cluster will run, applies cleanly, and nothing is dropped silently.

The field lists come from :mod:`podtemplate_dask._crd_fields`, generated from the CRD by
``plugins/dask/scripts/gen_known_fields.py`` (the CRD itself is not shipped).
"""

from __future__ import annotations

from typing import Any

from ._crd_fields import KNOWN_FIELDS, OPEN_FIELDS

__all__ = ["strip_unknown_fields"]


def strip_unknown_fields(pod: dict[str, Any], role: str) -> list[str]:
    """Remove, in place, every field of ``pod`` (a role's PodTemplateSpec) that the CRD's
    schema for ``role`` does not know; return their paths, list items named by their
    ``name`` (``spec.containers[worker].resizePolicy``) or else by index."""
    known, open_ = KNOWN_FIELDS[role], OPEN_FIELDS[role]
    stripped: list[str] = []
    _walk(pod, "", "", known, open_, stripped)
    return stripped


def _walk(node: Any, schema_path: str, shown_path: str, known: frozenset[str],
          open_: frozenset[str], stripped: list[str]) -> None:
    if isinstance(node, dict):
        for key in list(node):
            child_schema = f"{schema_path}.{key}" if schema_path else key
            child_shown = f"{shown_path}.{key}" if shown_path else key
            if child_schema not in known:
                del node[key]
                stripped.append(child_shown)
            elif child_schema not in open_:
                _walk(node[key], child_schema, child_shown, known, open_, stripped)
    elif isinstance(node, list):
        for index, item in enumerate(node):
            name = item.get("name") if isinstance(item, dict) else None
            label = name if isinstance(name, str) and name else str(index)
            _walk(item, f"{schema_path}[]", f"{shown_path}[{label}]", known, open_, stripped)

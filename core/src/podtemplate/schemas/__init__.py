"""Schemas podtemplate ships and checks against: the Kubernetes pod schema (package data
of core) and the CRDs each task type declares (package data of its plugin).

Each name is imported on first use (PEP 562): a render of pods alone reads the pod schema
(``source``) and imports no CRD code."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _on_first_use

if TYPE_CHECKING:
    from .crd import Crd, CrdProblem, load_crd, render_path, shipped_crd, validate_custom_resource
    from .source import SchemaSource, builtin_schema_source, load_schema_source

_EXPORTS = {
    **dict.fromkeys(("Crd", "CrdProblem", "load_crd", "render_path", "shipped_crd",
                     "validate_custom_resource"), ".crd"),
    **dict.fromkeys(("SchemaSource", "builtin_schema_source", "load_schema_source"), ".source"),
}

__all__ = [
    "Crd",
    "CrdProblem",
    "SchemaSource",
    "builtin_schema_source",
    "load_crd",
    "load_schema_source",
    "render_path",
    "shipped_crd",
    "validate_custom_resource",
]


__getattr__ = _on_first_use(__name__, _EXPORTS)

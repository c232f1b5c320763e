"""Schemas podtemplate ships and checks against: the Kubernetes pod schema (package data
of core) and the CRDs each task type declares (package data of its plugin)."""

from __future__ import annotations

from .crd import Crd, CrdProblem, load_crd, render_path, shipped_crd, validate_custom_resource
from .source import SchemaSource, builtin_schema_source, load_schema_source

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

"""Where the kit's schemas come from.

- The probe is generated from a Kubernetes OpenAPI document (``components.schemas``, or
  swagger ``definitions``): the shared ``kubernetes-*-api__v1_openapi.json`` when it can be
  found, else the built-in :mod:`podtemplate.schemas._pod_schema`, a reduced copy of the
  same document produced by :mod:`podtemplate.schemas.gen_pod_schema`.
- Operator CRDs are read from ``$PODTEMPLATE_SCHEMAS/crds`` or ``<dir>/shared/schemas/crds``
  for the first ``<dir>`` above the working directory or this module that has one.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import PodTemplateError

__all__ = [
    "POD_SPEC",
    "CONTAINER",
    "SchemaSource",
    "schemas_dir",
    "find_openapi",
    "find_crd",
    "load_schema_source",
    "builtin_schema_source",
    "schema_source_from_document",
]

POD_SPEC = "io.k8s.api.core.v1.PodSpec"
CONTAINER = "io.k8s.api.core.v1.Container"
SCHEMAS_ENV = "PODTEMPLATE_SCHEMAS"
_OPENAPI_NAME = re.compile(r"kubernetes-(\d+)\.(\d+)-api__v1_openapi\.json")

Schema = Mapping[str, Any]


@dataclass(frozen=True)
class SchemaSource:
    """Named component schemas (``io.k8s.api.core.v1.PodSpec`` -> schema) and a label
    saying where they came from, shown in kit reports and ``podtemplate coverage``."""

    schemas: Mapping[str, Schema]
    label: str

    def definition(self, name: str) -> Schema:
        return self.schemas[name]

    @staticmethod
    def ref_name(ref: str) -> str:
        """``#/components/schemas/X`` or ``#/definitions/X`` -> ``X``."""
        return ref.rsplit("/", 1)[-1]


def schema_source_from_document(document: Mapping[str, Any], label: str) -> SchemaSource:
    """A source from an OpenAPI v3 document or a swagger v2 document."""
    components = document.get("components")
    if isinstance(components, Mapping) and isinstance(components.get("schemas"), Mapping):
        schemas = components["schemas"]
    elif isinstance(document.get("definitions"), Mapping):
        schemas = document["definitions"]
    else:
        raise ValueError(f"{label}: no components.schemas (OpenAPI v3) or definitions "
                         "(swagger v2) found")
    if POD_SPEC not in schemas:
        raise ValueError(f"{label}: schema {POD_SPEC} not found")
    return SchemaSource(schemas=schemas, label=label)


def schemas_dir() -> Path | None:
    """The shared schemas folder: ``$PODTEMPLATE_SCHEMAS``, else the first
    ``shared/schemas`` beside a parent of the working directory or of this module."""
    env = os.environ.get(SCHEMAS_ENV)
    if env:
        return Path(env) if Path(env).is_dir() else None
    for start in (Path.cwd(), Path(__file__).resolve().parent):
        for parent in (start, *start.parents):
            candidate = parent / "shared" / "schemas"
            if candidate.is_dir():
                return candidate
    return None


def find_openapi(folder: Path | None = None) -> Path | None:
    """The newest ``k8s/kubernetes-X.Y-api__v1_openapi.json`` in the schemas folder."""
    folder = folder if folder is not None else schemas_dir()
    if folder is None or not (folder / "k8s").is_dir():
        return None
    found = [(tuple(map(int, m.groups())), p) for p in (folder / "k8s").iterdir()
             if (m := _OPENAPI_NAME.fullmatch(p.name))]
    return max(found)[1] if found else None


def find_crd(crd_file: str, folder: Path | None = None) -> Path | None:
    """``crds/<crd_file>`` in the schemas folder, or None when it is not there."""
    folder = folder if folder is not None else schemas_dir()
    if folder is None:
        return None
    path = folder / "crds" / crd_file
    return path if path.is_file() else None


def load_schema_source(path: str | Path | None = None) -> SchemaSource:
    """The probe's schema source: ``path`` if given, else the shared OpenAPI document if
    found, else the built-in reduced copy."""
    if path is None:
        path = find_openapi()
        if path is None:
            return builtin_schema_source()
    path = Path(path)
    try:
        return schema_source_from_document(json.loads(path.read_text(encoding="utf-8")),
                                           path.name)
    except (OSError, ValueError, RecursionError, LookupError, TypeError, AttributeError
            ) as error:  # unreadable, not JSON, or not shaped like an OpenAPI document
        raise PodTemplateError(f"cannot read a Kubernetes OpenAPI document: "
                               f"{type(error).__name__}: {str(error)[:120]}", file=str(path),
                               fix="give the OpenAPI v3 JSON of the Kubernetes API "
                               "(api/v1 from /openapi/v3)") from None


def builtin_schema_source() -> SchemaSource:
    """The reduced schema committed with the kit (works without the shared folder)."""
    from . import _pod_schema

    return SchemaSource(schemas=_pod_schema.SCHEMAS,
                        label=f"{_pod_schema.SOURCE} (built-in reduced copy)")

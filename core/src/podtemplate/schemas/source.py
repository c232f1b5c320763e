"""The Kubernetes pod schema that core ships, and other schema sources.

``kubernetes/pod.json`` (package data beside this module) holds every schema reachable
from ``io.k8s.api.core.v1.PodTemplateSpec`` in one Kubernetes release, reduced by
``scripts/gen_kubernetes.py`` from the API server's OpenAPI document; ``pod.source.json``
beside it records the upstream file, its version and licence. The conformance probe and
the list merge rules are built from it; ``podtemplate coverage --schema FILE`` may build
the probe from another OpenAPI document instead.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import PodTemplateError

__all__ = [
    "POD_SPEC",
    "CONTAINER",
    "SchemaSource",
    "load_schema_source",
    "builtin_schema_source",
    "schema_source_from_document",
    "shipped_pod_schema",
    "shipped_pod_schema_source",
]

POD_SPEC = "io.k8s.api.core.v1.PodSpec"
CONTAINER = "io.k8s.api.core.v1.Container"
_SHIPPED = "kubernetes/pod.json"

Schema = Mapping[str, Any]


class SchemaSource(NamedTuple):
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


@functools.cache
def shipped_pod_schema() -> Mapping[str, Any]:
    """The shipped ``kubernetes/pod.json`` document (read once)."""
    document: Mapping[str, Any] = json.loads(_package_text(_SHIPPED))
    return document


@functools.cache
def shipped_pod_schema_source() -> Mapping[str, Any]:
    """Where ``pod.json`` came from: upstream file, Kubernetes version, licence."""
    source: Mapping[str, Any] = json.loads(_package_text(_SHIPPED.replace(".json",
                                                                         ".source.json")))
    return source


def _package_text(name: str) -> str:
    """A data file of this package: read beside this module where it is a file (every
    install but a zip import, and no :mod:`importlib.resources` import at start-up)."""
    beside = Path(__file__).parent.joinpath(*name.split("/"))
    if beside.is_file():
        return beside.read_text(encoding="utf-8")
    from importlib import resources

    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def builtin_schema_source() -> SchemaSource:
    """The shipped pod schema as a schema source."""
    version = shipped_pod_schema_source()["kubernetes_version"]
    return schema_source_from_document(shipped_pod_schema(),
                                       f"Kubernetes {version} pod schema (shipped)")


def load_schema_source(path: str | Path | None = None) -> SchemaSource:
    """The OpenAPI document at ``path``, or the shipped pod schema when None."""
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

"""The pod schema podtemplate ships (``schemas/kubernetes/pod.json``) is the server's:
the running kube-apiserver's own OpenAPI v3 document for ``/api/v1``, reduced by the same
generator (``scripts/gen_kubernetes.py``), has the same schemas reachable from
PodTemplateSpec, with the same field names, types, formats, enums, defaults, required
fields and list/map extensions. The description sentences may differ, and one asserted
deviation: the served document lists an ``enum`` for the enumerated string fields (the
OpenAPIEnums feature, on by default), which the repository's checked-in spec that
``pod.json`` was generated from does not; those value sets are checked by the pod rules
(``ApiRule`` enumerations), not by the schema. Moving the pinned Kubernetes version:
regenerate the schema with that script, then this holds."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from podtemplate.testing.kube import KubeServer

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "core/src/podtemplate/schemas/kubernetes/pod.json"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_kubernetes",
                                                  REPO / "scripts" / "gen_kubernetes.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _structure(schema: Any, drop: tuple[str, ...] = ("description",)) -> Any:
    """A schema without its descriptions (and without ``drop``)."""
    if isinstance(schema, dict):
        return {key: _structure(value, drop) for key, value in schema.items() if key not in drop}
    if isinstance(schema, list):
        return [_structure(value, drop) for value in schema]
    return schema


@pytest.fixture(scope="module")
def server_schemas(kube_server: KubeServer) -> dict[str, Any]:
    document = kube_server.request("GET", "/openapi/v3/api/v1")
    reduced = _generator().pod_document(document, "1.35")
    return {name: _structure(schema)
            for name, schema in reduced["components"]["schemas"].items()}


@pytest.fixture(scope="module")
def shipped_schemas() -> dict[str, Any]:
    return {name: _structure(schema) for name, schema
            in json.loads(SHIPPED.read_text())["components"]["schemas"].items()}


def test_the_same_schemas_are_reachable_from_pod_template_spec(
        server_schemas: dict[str, Any], shipped_schemas: dict[str, Any]) -> None:
    assert "io.k8s.api.core.v1.PodSpec" in shipped_schemas
    assert sorted(server_schemas) == sorted(shipped_schemas)


def test_every_schema_has_the_servers_fields_and_types(
        server_schemas: dict[str, Any], shipped_schemas: dict[str, Any]) -> None:
    server = {name: _structure(schema, ("enum",)) for name, schema in server_schemas.items()}
    drift = [name for name in sorted(shipped_schemas)
             if _structure(shipped_schemas[name], ("enum",)) != server.get(name)]
    assert drift == [], f"the shipped pod schema differs from the server's in {drift}"


def _enums(schemas: dict[str, Any]) -> set[str]:
    found = set()

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            if "enum" in node:
                found.add(path)
            for key, value in node.items():
                walk(value, f"{path}.{key}")

    for name, schema in schemas.items():
        walk(schema, name)
    return found


def test_the_one_deviation_is_the_enums_the_server_publishes(
        server_schemas: dict[str, Any], shipped_schemas: dict[str, Any]) -> None:
    served = _enums(server_schemas)
    assert "io.k8s.api.core.v1.PodSpec.properties.restartPolicy" in served
    assert _enums(shipped_schemas) <= served  # the shipped schema has no enum of its own


def test_the_comparison_sees_a_dropped_field(server_schemas: dict[str, Any],
                                             shipped_schemas: dict[str, Any]) -> None:
    broken = json.loads(json.dumps(shipped_schemas))
    del broken["io.k8s.api.core.v1.PodSpec"]["properties"]["hostUsers"]
    assert broken["io.k8s.api.core.v1.PodSpec"] != server_schemas["io.k8s.api.core.v1.PodSpec"]

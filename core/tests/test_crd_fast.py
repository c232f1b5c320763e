"""The CRD check's fast paths (``schemas/_fast.py``) say what the plain paths say: on
values generated from a schema that uses every keyword the checker knows and from the
shipped CRDs (valid ones and ones the schema refuses: wrong types, unknown and missing
fields, duplicates, nulls, values out of bounds), with and without objects skipped."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from podtemplate.schemas import _fast, shipped_crd
from podtemplate.schemas._compiled import Node, compile_schema
from podtemplate.schemas.crd import Crd, load_crd, validate_custom_resource
from podtemplate.testing.sizing import examples

# Every keyword the compiled nodes act on.
SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["spec"],
    "properties": {
        "spec": {
            "type": "object",
            "required": ["mode"],
            "properties": {
                "mode": {"type": "string", "enum": ["Fast", "Slow"]},
                "replicas": {"type": "integer", "minimum": 1, "maximum": 5},
                "ratio": {"type": "number", "nullable": True},
                "on": {"type": "boolean"},
                "port": {"x-kubernetes-int-or-string": True},
                "target": {"type": "string", "format": "int-or-string"},
                "name": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 6},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                "labels": {"type": "object", "additionalProperties": {"type": "string"},
                           "maxProperties": 2},
                "anything": {"type": "object", "additionalProperties": True},
                "tags": {"type": "array", "x-kubernetes-list-type": "set", "maxItems": 3,
                         "items": {"type": "string"}},
                "items": {"type": "array", "x-kubernetes-list-type": "map",
                          "x-kubernetes-list-map-keys": ["name"],
                          "items": {"type": "object", "required": ["name"], "properties": {
                              "name": {"type": "string"}, "size": {"type": "integer"}}}},
                "embedded": {"type": "object", "x-kubernetes-embedded-resource": True,
                             "properties": {"spec": {"type": "object"}}},
                "untyped": {},
                "template": {"type": "object", "properties": {
                    "metadata": {"type": "object"},
                    "spec": {"type": "object", "properties": {
                        "nodeName": {"type": "string", "minLength": 2}}}}},
            },
        },
    },
}

JUNK = st.sampled_from([None, True, False, 0, 1, 7, -1, 1.5, "", "a", "Fast", "x" * 9,
                        "1", [], {}, ["a"], {"k": "v"}])
KEYS = ("name", "a", "b", "k", "unknown", "apiVersion", "kind", "metadata")


_MADE: dict[tuple[int, int], tuple[st.SearchStrategy[Any], Mapping[str, Any]]] = {}


def values(schema: Mapping[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
    """Values for ``schema``: mostly of its shape, some not (junk in place of a value,
    unknown members, missing required ones, duplicate items). Made once per schema
    object and depth, members on first use: a pod schema has thousands of nodes."""
    key = (id(schema), depth)
    if key not in _MADE:
        _MADE[key] = (_values(schema, depth), schema)  # the schema kept: its id stays its own
    return _MADE[key][0]


def _values(schema: Mapping[str, Any], depth: int) -> st.SearchStrategy[Any]:
    if depth > 6:
        return JUNK
    kind = schema.get("type")
    if "properties" in schema or "additionalProperties" in schema or kind == "object":
        shaped = _objects(schema, depth)
    elif kind == "array":
        item = values(schema.get("items") or {}, depth + 1)
        pool = st.lists(item, min_size=1, max_size=2)
        shaped = pool.flatmap(lambda made: st.lists(st.sampled_from(made), max_size=4))
    elif "enum" in schema:
        shaped = st.sampled_from(list(schema["enum"]))
    else:
        shaped = {"string": st.sampled_from(["a", "ab", "1"]), "integer": st.sampled_from([1, 3]),
                  "number": st.sampled_from([1, 2.5]), "boolean": st.booleans(),
                  }.get(str(kind), JUNK)
    return st.one_of(JUNK, shaped) if depth % 3 == 2 else shaped


def _objects(schema: Mapping[str, Any], depth: int) -> st.SearchStrategy[dict[str, Any]]:
    properties = dict(schema.get("properties") or {})
    extra = schema.get("additionalProperties")
    members: dict[str, st.SearchStrategy[Any]] = {
        name: st.deferred(lambda sub=sub: values(sub, depth + 1))
        for name, sub in properties.items()}
    if isinstance(extra, Mapping):
        members.update({key: st.deferred(lambda: values(extra, depth + 1))
                        for key in ("a", "b")})
    names = sorted(members)
    # Members the schema may not declare: junk unless it keeps unknown fields.
    odd = {key: JUNK for key in KEYS if key not in members}

    @st.composite
    def build(draw: Any) -> dict[str, Any]:
        chosen = draw(st.lists(st.sampled_from(names), unique=True, max_size=4)) if names else []
        if draw(st.integers(0, 7)) == 0:
            chosen.append(draw(st.sampled_from(sorted(odd))))
        required = [name for name in schema.get("required") or () if draw(st.integers(0, 7))]
        built = {}
        for name in [*required, *chosen]:
            built[name] = draw(members[name] if name in members else odd[name])
        return built

    return build()


def _skips(draw: Any, value: Any) -> frozenset[int]:
    """The ids of some of the objects inside ``value``."""
    found: list[int] = []

    def collect(node: Any) -> None:
        if isinstance(node, dict):
            found.append(id(node))
            for item in node.values():
                collect(item)
        elif isinstance(node, list):
            found.append(id(node))
            for item in node:
                collect(item)

    collect(value)
    if not found:
        return frozenset()
    return frozenset(draw(st.lists(st.sampled_from(found), max_size=3)))


def _plain_fits(node: Node, fragment: Any) -> bool:
    return node.fits(fragment)


def _compare(node: Node, value: Any, skip: frozenset[int]) -> None:
    from podtemplate.schemas._compiled import Walk

    assert _fast.fits(node, value) is _plain_fits(node, value)
    out: list[Any] = []
    node.check(value, (), Walk(out, skip))
    assert _fast._ok(node, value, False, skip) is (not out)
    event("valid" if not out else "refused")


@pytest.fixture(scope="module")
def example_crd(tmp_path_factory: pytest.TempPathFactory) -> Crd:
    document = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "spec": {"group": "example.com", "names": {"kind": "Job"},
                         "versions": [{"name": "v1", "served": True, "storage": True,
                                       "schema": {"openAPIV3Schema": SCHEMA}}]}}
    path: Path = tmp_path_factory.mktemp("crd") / "example.com_jobs.yaml"
    path.write_text(yaml.safe_dump(document))
    return load_crd(str(path))


MANIFEST_HEAD = st.sampled_from([("example.com/v1", "Job"), ("example.com/v1", "Job"),
                                 ("example.com/v2", "Job"), ("other.io/v1", "Job"),
                                 ("example.com/v1", "Task")])


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_keyword_gives_the_plain_verdict(data: st.DataObject, example_crd: Crd) -> None:
    body = data.draw(_objects(SCHEMA, 0))
    api_version, kind = data.draw(MANIFEST_HEAD)
    manifest = {**body, "apiVersion": api_version, "kind": kind}
    skip = _skips(data.draw, manifest)
    plain = validate_custom_resource(manifest, example_crd, skip=skip)
    assert _fast.surely_valid(manifest, example_crd, skip) is (not plain)
    root = example_crd.root("v1")
    assert root is not None
    _compare(root, body, skip)


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_node_on_its_own_gives_the_plain_verdict(data: st.DataObject) -> None:
    spec_schema = SCHEMA["properties"]["spec"]
    name = data.draw(st.sampled_from(sorted(spec_schema["properties"])))
    schema = spec_schema["properties"][name]
    value = data.draw(values(schema))
    _compare(compile_schema(schema), value, _skips(data.draw, value))


SHIPPED = [
    ("podtemplate_pytorch:crds/kubeflow.org_pytorchjobs.json", "v1",
     "spec.pytorchReplicaSpecs.Master.template"),
    ("podtemplate_dask:crds/kubernetes.dask.org_daskjobs.json", "v1", "spec.job"),
    ("podtemplate_spark:crds/sparkoperator.k8s.io_sparkapplications.json", "v1beta2",
     "spec.driver"),
    ("podtemplate_ray:crds/ray.io_rayjobs.json", "v1",
     "spec.rayClusterSpec.headGroupSpec.template"),
]


def _schema_at(schema: Mapping[str, Any], path: str) -> Mapping[str, Any]:
    for key in path.split("."):
        properties = schema.get("properties") or {}
        schema = properties.get(key) or schema["additionalProperties"]
    return schema


@pytest.mark.parametrize(("location", "version", "pod"), SHIPPED)
@settings(max_examples=examples(50), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_shipped_crds_give_the_plain_verdict(location: str, version: str, pod: str,
                                                 data: st.DataObject) -> None:
    crd = shipped_crd(location)
    body = data.draw(_objects(crd.versions[version], 0))
    manifest = {**body, "apiVersion": f"{crd.group}/{version}", "kind": crd.kind}
    skip = _skips(data.draw, manifest)
    plain = validate_custom_resource(manifest, crd, skip=skip)
    assert _fast.surely_valid(manifest, crd, skip) is (not plain)
    root = crd.root(version)
    assert root is not None
    _compare(root, body, skip)


@pytest.mark.parametrize(("location", "version", "pod"), SHIPPED)
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_pods_and_fragments_give_the_plain_verdict(location: str, version: str, pod: str,
                                                   data: st.DataObject) -> None:
    """Pod templates (and template layers, checked as fragments) deep into the pod."""
    crd = shipped_crd(location)
    schema = _schema_at(crd.versions[version], pod)
    value = data.draw(values(schema))
    _compare(compile_schema(schema), value, _skips(data.draw, value))

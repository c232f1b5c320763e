"""The kit's structural-schema validator: types, required, enums, int-or-string,
preserved unknown fields, list-map keys, and unknown fields reported as pruned."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from podtemplate.schemas import shipped_crd
from podtemplate.schemas.crd import Crd, load_crd, validate_custom_resource
from podtemplate.testing import assert_valid_custom_resource

PYTORCH_CRD = "podtemplate_pytorch:crds/kubeflow.org_pytorchjobs.json"

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "required": ["mode"],
            "properties": {
                "mode": {"type": "string", "enum": ["Fast", "Slow"]},
                "replicas": {"type": "integer", "minimum": 1},
                "port": {"x-kubernetes-int-or-string": True},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "items": {"type": "array", "x-kubernetes-list-type": "map",
                          "x-kubernetes-list-map-keys": ["name"],
                          "items": {"type": "object", "properties": {
                              "name": {"type": "string"}, "size": {"type": "integer"}}}},
                "template": {"type": "object", "properties": {
                    "metadata": {"type": "object"},
                    "spec": {"type": "object", "properties": {
                        "nodeName": {"type": "string", "maxLength": 8}}}}},
            },
        },
    },
}


@pytest.fixture
def crd(tmp_path: Path) -> Crd:
    document = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "spec": {"group": "example.com", "names": {"kind": "Job"},
                         "versions": [{"name": "v1", "served": True, "storage": True,
                                       "schema": {"openAPIV3Schema": SCHEMA}}]}}
    path = tmp_path / "example.com_jobs.yaml"
    path.write_text(yaml.safe_dump(document))
    return load_crd(str(path))


def job(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Job",
            "metadata": {"name": "j", "labels": {"a": "b"}}, "spec": {"mode": "Fast", **spec}}


def problems(crd: Crd, manifest: dict[str, Any]) -> list[tuple[str, bool]]:
    return [(p.path, p.pruned) for p in validate_custom_resource(manifest, crd)]


def test_a_valid_resource_has_no_problems(crd: Crd) -> None:
    manifest = job(replicas=2, port="http", free={"anything": [1, {"x": None}]},
                   labels={"k": "v"}, items=[{"name": "a", "size": 1}, {"name": "b"}],
                   template={"spec": {"nodeName": "n1"}})
    assert problems(crd, manifest) == []
    assert problems(crd, job(port=8080)) == []


@pytest.mark.parametrize(("spec", "path", "words"), [
    ({"replicas": "2"}, "spec.replicas", "must be of type integer"),
    ({"replicas": True}, "spec.replicas", "must be of type integer"),
    ({"replicas": 0}, "spec.replicas", "minimum 1"),
    ({"mode": "Medium"}, "spec.mode", "is not one of"),
    ({"port": 1.5}, "spec.port", "integer or a string"),
    ({"labels": {"k": 1}}, "spec.labels.k", "must be of type string"),
    ({"items": [{"name": "a"}, {"name": "a"}]}, "spec.items[1]", "duplicate item"),
    ({"template": {"spec": {"nodeName": "much-too-long"}}}, "spec.template.spec.nodeName",
     "maxLength 8"),
])
def test_violations_are_located(crd: Crd, spec: dict[str, Any], path: str, words: str) -> None:
    found = validate_custom_resource(job(**spec), crd)
    assert [(p.path, p.pruned) for p in found] == [(path, False)]
    assert words in found[0].message


def test_missing_required_field(crd: Crd) -> None:
    manifest = job()
    del manifest["spec"]["mode"]
    assert problems(crd, manifest) == [("spec.mode", False)]


def test_unknown_fields_are_pruned_except_where_preserved(crd: Crd) -> None:
    manifest = job(extra=1, free={"kept": 1}, template={"metadata": {"labels": {"a": "b"}},
                                                      "spec": {"hostUsers": False}})
    assert sorted(problems(crd, manifest)) == [
        ("spec.extra", True),
        ("spec.template.metadata.labels", True),  # metadata without properties: all pruned
        ("spec.template.spec.hostUsers", True),
    ]


def test_wrong_kind_or_version(crd: Crd) -> None:
    assert problems(crd, {**job(), "kind": "Other"}) == [("", False)]
    assert problems(crd, {**job(), "apiVersion": "example.com/v9"}) == [("apiVersion", False)]


def test_a_number_where_the_crd_types_int_or_string_as_string(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "port": {"type": "string", "format": "int-or-string"}}}}}
    document = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "spec": {"group": "example.com", "names": {"kind": "Job"},
                         "versions": [{"name": "v1", "schema": {"openAPIV3Schema": schema}}]}}
    path = tmp_path / "old.yaml"
    path.write_text(yaml.safe_dump(document))
    crd = load_crd(str(path))
    manifest = {"apiVersion": "example.com/v1", "kind": "Job", "spec": {"port": 8080}}
    [found] = validate_custom_resource(manifest, crd)
    assert found.path == "spec.port" and "string only" in found.message
    assert validate_custom_resource({**manifest, "spec": {"port": "http"}}, crd) == []


def test_the_schema_is_compiled_once_per_crd(crd: Crd) -> None:
    root = crd.root("v1")
    assert root is not None and crd.root("v1") is root
    validate_custom_resource(job(replicas=2), crd)
    spec = root.child("spec")
    assert spec is not None and root.child("spec") is spec
    assert spec.child("replicas") is spec.child("replicas")
    assert crd.root("v9") is None


def test_real_pytorchjob_crd() -> None:
    crd = shipped_crd(PYTORCH_CRD)
    assert (crd.group, crd.kind, list(crd.versions)) == ("kubeflow.org", "PyTorchJob", ["v1"])
    assert crd.operator == "Kubeflow Training Operator v1.9.4"
    pod = {"metadata": {"labels": {"a": "b"}},
           "spec": {"containers": [{"name": "pytorch", "image": "x", "bogus": 1}]}}
    manifest = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
                "metadata": {"name": "j"},
                "spec": {"pytorchReplicaSpecs": {"Master": {"replicas": 1, "template": pod}}}}
    found = validate_custom_resource(manifest, crd)
    assert [(p.path, p.pruned) for p in found] == [
        ("spec.pytorchReplicaSpecs.Master.template.spec.containers[0].bogus", True)]
    with pytest.raises(AssertionError, match="bogus"):
        assert_valid_custom_resource(manifest, PYTORCH_CRD)
    del pod["spec"]["containers"][0]["bogus"]
    assert_valid_custom_resource(manifest, PYTORCH_CRD)
    assert_valid_custom_resource(manifest, crd)


def test_a_kind_without_a_declared_crd_fails_the_assertion() -> None:
    from podtemplate import TaskType

    bare = TaskType(name="bare", distribution="x", kind="PyTorchJob",
                    api_version="kubeflow.org/v1")
    with pytest.raises(AssertionError, match="no CRD declared"):
        assert_valid_custom_resource({"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob"},
                                     bare)

"""The pod fields a CRD would prune (``schemas/pruning.py``): a pod's pruned fields are the
ones the CRD check reports as pruned, and the newer fields are exactly those the CRD's pod
schema lacks of the shipped Kubernetes one."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from podtemplate.errors import PluginError
from podtemplate.plugin import CrdPodSchema, crd_pod_schema
from podtemplate.schemas._compiled import Problems, Walk, flatten
from podtemplate.schemas.crd import Crd, crd_from_document
from podtemplate.schemas.source import shipped_pod_schema

DEFINITIONS: Mapping[str, Any] = shipped_pod_schema()["components"]["schemas"]


def inline(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A Kubernetes schema with its references inlined, as a CRD embeds it."""
    while "$ref" in schema or len(schema.get("allOf") or ()) == 1:
        ref = schema.get("$ref") or schema["allOf"][0]["$ref"]
        schema = DEFINITIONS[ref.rsplit("/", 1)[-1]]
    out = {key: value for key, value in schema.items()
           if key not in ("properties", "items", "additionalProperties", "allOf", "$ref")}
    if "properties" in schema:
        out["properties"] = {name: inline(child) for name, child in schema["properties"].items()}
    if isinstance(schema.get("items"), Mapping):
        out["items"] = inline(schema["items"])
    extra = schema.get("additionalProperties")
    if extra is not None:
        out["additionalProperties"] = inline(extra) if isinstance(extra, Mapping) else extra
    return out


def crd_with(pod: Mapping[str, Any]) -> Crd:
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "template": pod, "replicas": {"type": "integer"}}}}}
    return crd_from_document({"spec": {
        "group": "example.com", "names": {"kind": "Job"},
        "versions": [{"name": "v1", "served": True, "schema": {"openAPIV3Schema": schema}}]}},
        "jobs.json")


FULL_POD = inline({"$ref": "#/components/schemas/io.k8s.api.core.v1.PodTemplateSpec"})


def older_pod() -> dict[str, Any]:
    """The shipped pod schema less four fields, and with labels and annotations the only
    metadata (as controller-gen writes a pod template's)."""
    pod = copy.deepcopy(FULL_POD)
    metadata = pod["properties"]["metadata"]
    metadata["properties"] = {key: metadata["properties"][key]
                              for key in ("labels", "annotations")}
    spec = pod["properties"]["spec"]["properties"]
    del spec["os"]
    del spec["containers"]["items"]["properties"]["resizePolicy"]
    del spec["securityContext"]["properties"]["appArmorProfile"]
    del spec["volumes"]["items"]["properties"]["image"]
    return pod


OLDER = crd_with(older_pod())


def test_newer_fields_are_what_the_crd_lacks() -> None:
    schema = crd_pod_schema(OLDER, "spec.template")
    assert schema.newer_fields() == (
        "spec.containers[*].resizePolicy", "spec.os",
        "spec.securityContext.appArmorProfile", "spec.volumes[*].image")


def test_the_current_pod_schema_lacks_nothing() -> None:
    assert crd_pod_schema(crd_with(FULL_POD), "spec.template").newer_fields() == ()


def test_an_object_that_keeps_unknown_fields_lacks_nothing_below() -> None:
    pod = older_pod()
    pod["properties"]["spec"] = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    assert crd_pod_schema(crd_with(pod), "spec.template").newer_fields() == ()


def test_pruned_names_each_top_most_field_from_the_pod() -> None:
    schema = crd_pod_schema(OLDER, "spec.template")
    pod = {
        "metadata": {"labels": {"any/key": "v"}, "name": "x"},
        "spec": {"os": {"name": "linux"}, "nodeSelector": {"k": "v"},
                 "securityContext": {"runAsUser": 1, "appArmorProfile": {"type": "x"}},
                 "containers": [{"name": "a", "image": "i"},
                                {"name": "b", "resizePolicy": [], "unknown": 1}]},
    }
    assert schema.pruned(pod) == [
        ("metadata", "name"), ("spec", "os"), ("spec", "securityContext", "appArmorProfile"),
        ("spec", "containers", 1, "resizePolicy"), ("spec", "containers", 1, "unknown")]
    assert schema.pruned({"spec": {"containers": [{"name": "a"}]}}) == []


KEYS = st.sampled_from(["metadata", "labels", "name", "spec", "os", "containers", "image",
                        "resizePolicy", "securityContext", "appArmorProfile", "runAsUser",
                        "nodeSelector", "tolerations", "volumes", "emptyDir", "unknown"])
VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.sampled_from(["", "a"])),
    lambda children: st.one_of(st.lists(children, max_size=3),
                               st.dictionaries(KEYS, children, max_size=4)),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(KEYS, VALUES, max_size=4))
def test_pruned_is_what_the_crd_check_reports_as_pruned(pod: dict[str, Any]) -> None:
    schema = crd_pod_schema(OLDER, "spec.template")
    out: Problems = []
    schema.node.check(pod, (), Walk(out, partial=True))
    assert schema.pruned(pod) == [flatten(at) for at, _, pruned in out if pruned]


def test_a_shipped_crd_that_cannot_be_read_is_a_plugin_error() -> None:
    with pytest.raises(PluginError, match="cannot be read"):
        crd_pod_schema("podtemplate:crds/missing.json", "spec.template")


def test_a_version_or_path_the_crd_lacks_is_a_plugin_error() -> None:
    with pytest.raises(PluginError, match="does not serve version 'v2'"):
        crd_pod_schema(OLDER, "spec.template", "v2")
    with pytest.raises(PluginError, match=r"no schema at 'spec\.pod'"):
        crd_pod_schema(OLDER, "spec.pod")


def test_made_once_per_crd_path_and_version() -> None:
    first = crd_pod_schema(OLDER, "spec.template")
    assert isinstance(first, CrdPodSchema)
    assert crd_pod_schema(OLDER, "spec.template") is first
    assert crd_pod_schema(OLDER, "spec.template", "v1").node is first.node

"""The generated list-rule table: up to date, faithful to the schema, and the generator."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from podtemplate.merge import _list_rules
from podtemplate.merge.engine import ENV_FROM_UNION, KEYED_DEVIATIONS, TOLERATIONS_UNION
from podtemplate.merge.rules import ATOMIC, EMPTY, MAP, SET, UNION, build_tree, descend

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "gen_list_rules.py"
MODULE = Path(_list_rules.__file__)
POD_JSON = "core/src/podtemplate/schemas/kubernetes/pod.json"
# An extraction of the same metadata made apart from gen_list_rules.py, from the upstream
# Kubernetes 1.35 OpenAPI document (see data/README.md).
MERGE_KEYS = Path(__file__).parent / "data" / "pod-merge-keys.json"


@pytest.fixture(scope="module")
def gen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_list_rules", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_list_rules"] = module
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------- against the shipped pod schema


def test_committed_module_is_what_the_script_generates(gen: ModuleType) -> None:
    raw = (REPO / POD_JSON).read_bytes()
    assert MODULE.read_text(encoding="utf-8") == gen.render_text(raw, POD_JSON), (
        "_list_rules.py is stale or hand-edited: regenerate it with "
        "python scripts/gen_kubernetes.py <the upstream OpenAPI document>")


def test_table_agrees_with_independently_derived_merge_keys() -> None:
    reference = json.loads(MERGE_KEYS.read_text(encoding="utf-8"))
    expected: dict[str, Any] = reference["lists"]
    assert reference["count"] == len(expected) == 155
    table = _list_rules.LIST_RULES
    assert sorted(table) == sorted(expected)
    for path, ref in expected.items():
        got = table[path]
        assert got.get("patch_strategy") == ref["patch_strategy"], path
        assert got.get("patch_merge_key") == ref["patch_merge_key"], path
        assert got.get("list_type") == ref["list_type"], path
        keys = got.get("list_map_keys")
        assert (list(keys) if keys else None) == ref["list_map_keys"], path
        if ref["list_type"] == "map":
            assert (got["strategy"], list(got["keys"])) == ("map", ref["list_map_keys"]), path
        elif ref["list_type"] == "set":
            assert got["strategy"] == "set", path
        else:
            assert got["strategy"] == "atomic", path


def test_header_names_generator_source_and_version() -> None:
    text = MODULE.read_text(encoding="utf-8")
    assert "DO NOT EDIT" in text.split('"""')[1]
    assert _list_rules.GENERATED_BY == "scripts/gen_list_rules.py"
    assert _list_rules.ROOT == "io.k8s.api.core.v1.PodTemplateSpec"
    assert _list_rules.KUBERNETES_VERSION == "1.35"
    assert _list_rules.SOURCE == POD_JSON
    assert len(_list_rules.SOURCE_SHA256) == 64


def test_table_is_sorted_and_has_the_rules_the_merge_relies_on() -> None:
    table = _list_rules.LIST_RULES
    assert list(table) == sorted(table)
    assert table["spec.containers[]"]["keys"] == ("name",)
    assert table["spec.containers[].env[]"]["keys"] == ("name",)
    assert table["spec.containers[].volumeMounts[]"]["keys"] == ("mountPath",)
    ports = table["spec.initContainers[].ports[]"]
    assert ports["keys"] == ("containerPort", "protocol")
    assert ports["key_defaults"] == {"protocol": "TCP"}
    assert table["spec.topologySpreadConstraints[]"]["keys"] == ("topologyKey",
                                                                  "whenUnsatisfiable")
    assert "key_defaults" not in table["spec.topologySpreadConstraints[]"]
    assert table["metadata.finalizers[]"]["strategy"] == "set"
    assert table["spec.containers[].command[]"]["strategy"] == "atomic"
    assert table["spec.tolerations[]"]["strategy"] == "atomic"  # the schema's word


# -------------------------------------------------------------------- the rule tree


def test_tree_applies_the_documented_deviations() -> None:
    tree = build_tree(_list_rules.LIST_RULES, union_lists=TOLERATIONS_UNION + ENV_FROM_UNION,
                      keyed_lists=KEYED_DEVIATIONS)
    assert descend(tree, "spec.tolerations").kind == UNION
    for kind in ("containers", "initContainers", "ephemeralContainers"):
        assert descend(tree, f"spec.{kind}[].envFrom").kind == UNION
        assert descend(tree, f"spec.{kind}[].env").kind == MAP
    gates = descend(tree, "spec.readinessGates")
    assert (gates.kind, gates.keys) == (MAP, ("conditionType",))
    sysctls = descend(tree, "spec.securityContext.sysctls")
    assert (sysctls.kind, sysctls.keys) == (MAP, ("name",))
    ports = descend(tree, "spec.containers[].ports")
    assert (ports.keys, ports.defaults, ports.required) == (
        ("containerPort", "protocol"), (None, "TCP"), ("containerPort",))
    assert descend(tree, "metadata.finalizers").kind == SET
    assert descend(tree, "spec.containers[].args").kind == ATOMIC
    assert descend(tree, "spec.nodeSelector") is EMPTY
    assert descend(tree, "spec.containers[]") is descend(tree, "spec").fields["containers"].item


def test_build_tree_rejects_a_path_that_is_not_a_list() -> None:
    with pytest.raises(ValueError, match="must end in"):
        build_tree({"spec.containers": {"strategy": "atomic"}})


# ---------------------------------------------------------------- the generator itself


def _ref(name: str, v2: bool) -> dict[str, str]:
    return {"$ref": ("#/definitions/" if v2 else "#/components/schemas/") + name}


def _document(v2: bool) -> dict[str, Any]:
    schemas: dict[str, Any] = {
        "io.k8s.api.core.v1.PodTemplateSpec": {"properties": {
            "metadata": {"allOf": [_ref("Meta", v2)]},
            "spec": {"allOf": [_ref("Spec", v2)]},
        }},
        "Meta": {"properties": {"finalizers": {
            "type": "array", "items": {"type": "string"},
            "x-kubernetes-patch-strategy": "merge", "x-kubernetes-list-type": "set"}}},
        "Spec": {"properties": {
            "ports": {"type": "array", "items": _ref("Port", v2),
                      "x-kubernetes-patch-strategy": "merge",
                      "x-kubernetes-patch-merge-key": "port",
                      "x-kubernetes-list-type": "map",
                      "x-kubernetes-list-map-keys": ["port", "protocol"]},
            "legacy": {"type": "array", "items": _ref("Named", v2),
                       "x-kubernetes-patch-strategy": "merge",
                       "x-kubernetes-patch-merge-key": "id"},
            "tags": {"type": "array", "items": {"type": "string"},
                     "x-kubernetes-patch-strategy": "merge"},
            "groups": {"type": "object", "additionalProperties": {
                "type": "array", "items": {"type": "string"}}},
            "tree": _ref("Tree", v2),
        }},
        "Port": {"required": ["port"], "properties": {
            "port": {"type": "integer", "default": 0},
            "protocol": {"type": "string", "default": "TCP"}}},
        "Named": {"properties": {"id": {"type": "string"}}},
        # Recursive: the walk must terminate.
        "Tree": {"properties": {"children": {"type": "array", "items": _ref("Tree", v2)}}},
    }
    if v2:
        return {"swagger": "2.0", "definitions": schemas}
    return {"openapi": "3.0.0", "components": {"schemas": schemas}}


@pytest.mark.parametrize("v2", [False, True], ids=["openapi-v3", "swagger-v2"])
def test_generator_walks_refs_items_maps_and_cycles(gen: ModuleType, v2: bool) -> None:
    table = gen.build_rules(_document(v2))
    assert list(table) == sorted(table)
    assert table["metadata.finalizers[]"]["strategy"] == "set"
    assert table["spec.ports[]"] == {
        "strategy": "map", "keys": ("port", "protocol"), "key_defaults": {"protocol": "TCP"},
        "patch_strategy": "merge", "patch_merge_key": "port", "list_type": "map",
        "list_map_keys": ("port", "protocol")}
    # Only the older patch metadata: the merge key alone makes it keyed, none a union.
    assert (table["spec.legacy[]"]["strategy"], table["spec.legacy[]"]["keys"]) == (
        "map", ("id",))
    assert table["spec.tags[]"]["strategy"] == "set"
    assert table["spec.groups{}[]"] == {"strategy": "atomic"}
    assert table["spec.tree.children[]"] == {"strategy": "atomic"}


def test_generator_output_is_deterministic_and_importable(gen: ModuleType,
                                                          tmp_path: Path) -> None:
    source = tmp_path / "kubernetes-9.99-api.json"
    source.write_text(json.dumps(_document(False)), encoding="utf-8")
    out = tmp_path / "rules.py"
    assert gen.main([str(source), "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert text == gen.render(source)
    namespace: dict[str, Any] = {}
    exec(compile(text, str(out), "exec"), namespace)
    assert namespace["KUBERNETES_VERSION"] == "9.99"
    assert namespace["LIST_RULES"]["spec.ports[]"]["keys"] == ("port", "protocol")


def test_generator_reports_a_document_without_the_root(gen: ModuleType, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    source = tmp_path / "bad.json"
    source.write_text(json.dumps({"components": {"schemas": {}}}), encoding="utf-8")
    out = tmp_path / "rules.py"
    assert gen.main([str(source), "--out", str(out)]) == 2
    assert "PodTemplateSpec not found" in capsys.readouterr().err
    assert not out.exists()

"""The probe is derived from the Kubernetes schema, covers every PodSpec and Container
field, and every value in it is valid and distinctive."""

from __future__ import annotations

import copy
import importlib.util
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from podtemplate import ApiRuleError, check_pod_template
from podtemplate.conformance import _probe_values
from podtemplate.conformance.polarity import boolean_leaves
from podtemplate.conformance.probe import INIT, PRIMARY, SIDECAR, top_path
from podtemplate.schemas.source import (
    CONTAINER,
    POD_SPEC,
    SchemaSource,
    builtin_schema_source,
    load_schema_source,
    shipped_pod_schema,
    shipped_pod_schema_source,
)
from podtemplate.testing import build_probe, default_probe

REPO = Path(__file__).resolve().parents[2]


def with_property(source: SchemaSource, owner: str, name: str, schema: dict[str, Any],
                  extra: dict[str, Any] | None = None) -> SchemaSource:
    schemas = copy.deepcopy(dict(source.schemas))
    schemas[owner]["properties"][name] = schema
    schemas.update(extra or {})
    return SchemaSource(schemas=schemas, label="edited")


def leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for sub in value.values():
            yield from leaves(sub)
    elif isinstance(value, list):
        for sub in value:
            yield from leaves(sub)
    else:
        yield value


# ------------------------------------------------------------------ derived from the schema


def test_every_podspec_and_container_field_is_probed_or_explained() -> None:
    source = builtin_schema_source()
    probe = build_probe(source)
    covered = set(probe.paths) | set(probe.not_probed)
    for name in source.definition(POD_SPEC)["properties"]:
        if name not in ("containers", "initContainers"):
            assert f"spec.{name}" in covered, name
    for name in source.definition(CONTAINER)["properties"]:
        for where in (f"containers[{PRIMARY}]", f"containers[{SIDECAR}]",
                      f"initContainers[{INIT}]"):
            assert name == "name" or f"spec.{where}.{name}" in covered, (where, name)
    assert {"metadata.labels", "metadata.annotations"} <= set(probe.paths)
    assert len(probe.paths) > 100


def test_a_field_of_the_shipped_schema_is_known_whatever_the_client_knows() -> None:
    # workloadRef is in Kubernetes 1.35; kubernetes client 37 has no model field for it.
    from podtemplate.conformance.probe import _schema_rejects

    assert _schema_rejects("spec.workloadRef", {"name": "w", "podGroup": "g"}) is None
    assert "GenericWorkload" in build_probe(builtin_schema_source()).not_probed[
        "spec.workloadRef"]


def test_a_field_the_shipped_schema_lacks_is_reported_not_dropped() -> None:
    group = "io.k8s.api.core.v1.PodSchedulingGroup"  # in the client's models, not in 1.35
    edited = with_property(
        builtin_schema_source(), POD_SPEC, "schedulingGroup",
        {"allOf": [{"$ref": f"#/components/schemas/{group}"}]},
        {group: {"type": "object", "properties": {"podGroupName": {"type": "string"}}}})
    edited = with_property(edited, CONTAINER, "futureField", {"type": "string"})
    probe = build_probe(edited)
    for path in ("spec.schedulingGroup", f"spec.containers[{PRIMARY}].futureField",
                 f"spec.initContainers[{INIT}].futureField"):
        assert path not in probe.paths
        assert "shipped Kubernetes 1.35 pod schema refuses it" in probe.not_probed[path]


def test_removing_a_field_from_the_schema_removes_it() -> None:
    source = builtin_schema_source()
    schemas = copy.deepcopy(dict(source.schemas))
    del schemas[POD_SPEC]["properties"]["priorityClassName"]
    probe = build_probe(SchemaSource(schemas=schemas, label="edited"))
    assert "spec.priorityClassName" not in probe.paths


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_shipped_pod_schema_is_what_the_generator_makes_of_it() -> None:
    """The generator's reduction is a fixed point: the shipped file was made by it, not
    edited by hand (freshness against upstream: ``scripts/gen_kubernetes.py --check``)."""
    gen = _script("gen_kubernetes")
    shipped = shipped_pod_schema()
    text = (REPO / gen.POD_JSON).read_text(encoding="utf-8")
    assert gen.dumps(gen.pod_document(shipped, shipped["info"]["version"])) == text


def test_shipped_pod_schema_records_where_it_came_from() -> None:
    source = shipped_pod_schema_source()
    assert source["kubernetes_version"] == shipped_pod_schema()["info"]["version"] == "1.35"
    assert source["license"] == "Apache-2.0"
    upstream = source["upstream"]
    assert upstream["repository"] == "kubernetes/kubernetes" and upstream["ref"]
    assert len(upstream["sha256"]) == 64 and len(upstream["blob"]) == 40
    assert "shipped" in builtin_schema_source().label


def test_another_openapi_document_can_be_given(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(shipped_pod_schema()), encoding="utf-8")
    source = load_schema_source(path)
    assert source.label == "doc.json"
    assert [f.path for f in build_probe(source).fields] == [
        f.path for f in build_probe(builtin_schema_source()).fields]


# ------------------------------------------------------------------ valid and distinctive


def test_every_variant_validates_strictly_as_a_pod_template() -> None:
    for template in default_probe().templates:
        layer = template.layer()
        layer["spec"].setdefault("containers", [])
        layer["spec"]["containers"] = [c if c.get("image") else {**c, "image": "busybox"}
                                       for c in layer["spec"]["containers"]] or [
            {"name": PRIMARY, "image": "busybox"}]
        assert check_pod_template(layer) == []


def test_fields_that_clash_are_in_different_variants() -> None:
    probe = default_probe()
    variant = {f.path: f.variant for f in probe.fields if not f.polarity}
    assert len(probe.templates) >= 2
    for moved, kept, _ in _probe_values.APART:
        assert variant[moved] != variant[kept], (moved, kept)
    assert set(probe.apart) == {moved for moved, _, _ in _probe_values.APART}


def test_numbers_and_generated_texts_are_unique() -> None:
    probe = default_probe()  # the main probe's: the second polarity's are 0, "" and []
    main = [f for f in probe.fields if not f.polarity]
    numbers = Counter(v for f in main for v in leaves(f.value)
                      if isinstance(v, int) and not isinstance(v, bool))
    assert numbers and max(numbers.values()) == 1, numbers.most_common(3)
    texts = Counter(v for f in main for v in leaves(f.value)
                    if isinstance(v, str) and v.startswith("probe-"))
    shared = {_probe_values.VOLUME, _probe_values.BLOCK_VOLUME, _probe_values.CLAIM}
    assert {t for t, n in texts.items() if n > 1} <= shared


# ------------------------------------------------------------------ the second polarity


def test_every_boolean_is_probed_in_both_polarities() -> None:
    source = builtin_schema_source()
    probe = build_probe(source)
    main = {f.path: f.value for f in probe.fields if not f.polarity}
    for leaf in boolean_leaves(source, list(main)):
        top = top_path(leaf) if leaf.count(".") > 1 else leaf
        given = main[top] if leaf == top else _leaf(main[top], leaf[len(top) + 1:])
        for polarity in (True, False):
            name = f"{leaf}={json.dumps(polarity)}"
            assert given is polarity or name in probe.paths or name in probe.not_probed, name


def _leaf(value: Any, dotted: str) -> Any:
    for key in dotted.split("."):
        value = value.get(key) if isinstance(value, dict) else None
    return value


@pytest.mark.parametrize("label", [
    "spec.automountServiceAccountToken=false",
    f"spec.containers[{PRIMARY}].securityContext.allowPrivilegeEscalation=false",
    f"spec.containers[{PRIMARY}].securityContext.privileged=true",
    f"spec.containers[{PRIMARY}].securityContext.privileged=false",
    "spec.terminationGracePeriodSeconds=0",
    "spec.dnsConfig.nameservers=[]",
    f"spec.containers[{PRIMARY}].args=[]",
    f"spec.containers[{PRIMARY}].workingDir=\"\"",
])
def test_the_second_polarity_sets_false_zero_and_empty_values(label: str) -> None:
    assert label in default_probe().paths


def test_values_the_api_server_refuses_are_not_probed_and_say_why() -> None:
    not_probed = default_probe().not_probed
    assert "between 1 and" in not_probed["spec.activeDeadlineSeconds=0"]
    assert "image" in not_probed[f"spec.containers[{PRIMARY}].image=\"\""]


def test_second_polarity_templates_pass_the_api_server_rules() -> None:
    probe = default_probe()
    for variant in sorted({f.variant for f in probe.fields if f.polarity}):
        template = probe.templates[variant]
        containers = [{**c, "image": c.get("image", "busybox")}
                      for c in template.pod_spec.get("containers", [])]
        spec = {**template.pod_spec, "containers": containers or [
            {"name": PRIMARY, "image": "busybox"}]}
        assert check_pod_template({"spec": spec}) == [], variant


def test_values_name_the_field_they_probe() -> None:
    probe = default_probe()
    assert probe.field("spec.tolerations").value[0]["key"].endswith("/tolerations")
    image = probe.field(f"spec.containers[{SIDECAR}].image").value
    assert image == "probe-sidecar-image"
    env = probe.field(f"spec.initContainers[{INIT}].env").value
    assert env == [{"name": "PROBE_INIT_ENV", "value": "probe-init-env-value"}]


def test_string_fields_with_listed_values_all_have_hints(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert default_probe().unhinted_enums == ()
    hints = dict(_probe_values.FIELD_HINTS)
    del hints["PodSpec.dnsPolicy"]  # the guard notices a new enum-like string field
    monkeypatch.setattr("podtemplate.conformance.probe.FIELD_HINTS", hints)
    # The made-up value the guard would list is refused as the API server refuses it.
    with pytest.raises(ApiRuleError, match=r"spec\.dnsPolicy: 'probe-dns-policy' is not "
                       r"supported; rule: dnsPolicy is one of"):
        build_probe(builtin_schema_source())


def test_probe_is_json_and_deterministic() -> None:
    first = build_probe(builtin_schema_source())
    second = build_probe(builtin_schema_source())
    assert json.dumps([f.value for f in first.fields]) == json.dumps(
        [f.value for f in second.fields])

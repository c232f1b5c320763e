"""The one merge's container aliases (``default``, ``default-init``, the primary alias)
expanded in a layer, and the merge laws on generated pod specs."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from podtemplate.merge.engine import (
    clean,
    duplicate_keys,
    expand_container_aliases,
    merge,
    merge_into,
)
from podtemplate.testing.sizing import examples


def env(spec: dict[str, Any], container: str = "main") -> list[dict[str, Any]]:
    return next(c for c in spec["containers"] if c["name"] == container)["env"]


def containers(*items: dict[str, Any]) -> dict[str, Any]:
    return {"containers": list(items)}


def mutable_ids(value: Any) -> Iterator[int]:
    if isinstance(value, dict):
        yield id(value)
        for sub in value.values():
            yield from mutable_ids(sub)
    elif isinstance(value, list):
        yield id(value)
        for sub in value:
            yield from mutable_ids(sub)


def has_directive(value: Any) -> bool:
    if isinstance(value, dict):
        return any(str(k).startswith("$") or has_directive(v) for k, v in value.items())
    if isinstance(value, list):
        return any(has_directive(item) for item in value)
    return False


# ------------------------------------------------------------ expand_container_aliases


def expand(spec: dict[str, Any], *, primary: str = "main", alias: str | None = "primary",
           names: tuple[str, ...] = ("main",), init: tuple[str, ...] = ()) -> dict[str, Any]:
    return expand_container_aliases(spec, primary_name=primary, layer_primary_name=alias,
                                    container_names=list(names), init_container_names=list(init))


def test_primary_alias_is_renamed() -> None:
    spec = containers({"name": "side", "image": "s"}, {"name": "primary", "image": "p"})
    assert expand(spec)["containers"] == [{"name": "side", "image": "s"},
                                          {"name": "main", "image": "p"}]
    # Without an alias of its own (None) a container called "primary" is a sidecar.
    assert expand(spec, alias=None) == spec


def test_primary_alias_merges_over_a_literal_entry() -> None:
    spec = containers({"name": "primary", "image": "alias", "env": [{"name": "A", "value": "a"}]},
                      {"name": "main", "image": "literal", "args": ["x"],
                       "env": [{"name": "A", "value": "l"}, {"name": "B", "value": "b"}]})
    assert expand(spec)["containers"] == [
        {"name": "main", "image": "alias", "args": ["x"],
         "env": [{"name": "A", "value": "a"}, {"name": "B", "value": "b"}]}]


def test_default_is_merged_beneath_every_container_and_creates_missing_ones() -> None:
    spec = containers({"name": "log", "image": "l"},
                      {"name": "default", "image": "d", "imagePullPolicy": "Always",
                       "env": [{"name": "D", "value": "d"}, {"name": "X", "value": "d"}]},
                      {"name": "primary", "env": [{"name": "X", "value": "p"}]})
    out = expand(spec, names=("main", "log", "worker"))
    assert out["containers"] == [
        {"name": "log", "image": "l", "imagePullPolicy": "Always",
         "env": [{"name": "D", "value": "d"}, {"name": "X", "value": "d"}]},
        {"name": "main", "image": "d", "imagePullPolicy": "Always",
         "env": [{"name": "D", "value": "d"}, {"name": "X", "value": "p"}]},
        {"name": "worker", "image": "d", "imagePullPolicy": "Always",
         "env": [{"name": "D", "value": "d"}, {"name": "X", "value": "d"}]}]


def test_sidecars_outside_the_names_are_kept_as_is() -> None:
    spec = containers({"name": "default", "image": "d"}, {"name": "proxy", "image": "p"})
    assert expand(spec, names=("main",))["containers"] == [
        {"name": "proxy", "image": "p"}, {"name": "main", "image": "d"}]


def test_default_init_applies_to_init_containers_only() -> None:
    spec = {"containers": [{"name": "main", "image": "m"}],
            "initContainers": [{"name": "default-init", "resources": {"limits": {"cpu": "1"}}},
                               {"name": "fetch", "image": "f"}]}
    out = expand(spec, init=("fetch", "warm"))
    assert out["containers"] == [{"name": "main", "image": "m"}]
    assert out["initContainers"] == [
        {"name": "fetch", "resources": {"limits": {"cpu": "1"}}, "image": "f"},
        {"name": "warm", "resources": {"limits": {"cpu": "1"}}}]


def test_expand_leaves_input_untouched_and_shares_nothing() -> None:
    spec = containers({"name": "default", "env": [{"name": "A", "value": "1"}]},
                      {"name": "primary", "image": "p"})
    before = copy.deepcopy(spec)
    out = expand(spec, names=("main", "other"))
    assert spec == before
    assert not set(mutable_ids(out)) & set(mutable_ids(spec))
    out["containers"][0]["env"][0]["value"] = "changed"
    assert out["containers"][1]["env"][0]["value"] == "1"


def test_expanded_layer_keeps_directives_for_the_merge() -> None:
    cluster = containers({"name": "main", "image": "c",
                          "env": [{"name": "OLD", "value": "1"},
                                  {"name": "SECRET", "valueFrom": {"secretKeyRef": {}}}]})
    layer = containers({"name": "default", "env": [{"name": "SECRET", "$patch": "delete"}]},
                       {"name": "primary", "env": [{"name": "SECRET", "value": "plain"},
                                                   {"name": "OLD", "$patch": "delete"}]})
    out = merge(cluster, expand(layer))
    # default deletes SECRET, then the primary entry adds it fresh: no stale valueFrom.
    assert env(out) == [{"name": "SECRET", "value": "plain"}]


# ------------------------------------------------------------------------ property tests

NAMES = st.sampled_from(["main", "side", "log", "proxy"])
ENV_NAMES = st.sampled_from(["A", "B", "C", "D", "E"])
SHORT = st.text(alphabet="abcxyz019-", max_size=4)


def _port_key(port: dict[str, Any]) -> tuple[Any, Any]:
    return port["containerPort"], port.get("protocol", "TCP")


env_var = st.fixed_dictionaries(
    {"name": ENV_NAMES},
    optional={"value": SHORT,
              "valueFrom": st.fixed_dictionaries({"fieldRef": st.fixed_dictionaries(
                  {"fieldPath": st.sampled_from(["metadata.name", "status.podIP"])})})})
port = st.fixed_dictionaries(
    {"containerPort": st.sampled_from([80, 443, 8080])},
    optional={"protocol": st.sampled_from(["TCP", "UDP"]), "name": SHORT})
mount = st.fixed_dictionaries({"name": st.sampled_from(["data", "cache"]),
                               "mountPath": st.sampled_from(["/data", "/cache", "/tmp"])},
                              optional={"readOnly": st.booleans()})
container = st.fixed_dictionaries(
    {"name": NAMES},
    optional={"image": SHORT,
              "command": st.lists(SHORT, max_size=3),
              "env": st.lists(env_var, max_size=4, unique_by=lambda e: e["name"]),
              "ports": st.lists(port, max_size=3, unique_by=_port_key),
              "volumeMounts": st.lists(mount, max_size=3, unique_by=lambda m: m["mountPath"]),
              "resources": st.fixed_dictionaries({}, optional={
                  "limits": st.dictionaries(st.sampled_from(["cpu", "memory"]),
                                            st.sampled_from(["1", "2Gi", "500m"]))}),
              "stdin": st.booleans()})
volume = st.fixed_dictionaries(
    {"name": st.sampled_from(["data", "cache", "shm"])},
    optional={"emptyDir": st.fixed_dictionaries({}, optional={"medium": st.just("Memory")}),
              "configMap": st.fixed_dictionaries({"name": SHORT})})
toleration = st.fixed_dictionaries(
    {"key": st.sampled_from(["spot", "gpu", "arm"])},
    optional={"operator": st.sampled_from(["Exists", "Equal"]), "value": SHORT,
              "effect": st.sampled_from(["NoSchedule", "NoExecute"])})
pod_spec = st.fixed_dictionaries({}, optional={
    "containers": st.lists(container, max_size=3, unique_by=lambda c: c["name"]),
    "initContainers": st.lists(container, max_size=2, unique_by=lambda c: c["name"]),
    "volumes": st.lists(volume, max_size=3, unique_by=lambda v: v["name"]),
    "tolerations": st.lists(toleration, max_size=3,
                          unique_by=lambda t: json.dumps(t, sort_keys=True)),
    "nodeSelector": st.dictionaries(st.sampled_from(["pool", "zone", "gpu"]), SHORT,
                                    max_size=3),
    "hostNetwork": st.booleans(),
    "terminationGracePeriodSeconds": st.integers(min_value=0, max_value=60),
    "priorityClassName": SHORT,
})

PROPERTY = settings(max_examples=examples(150), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(pod_spec)
def test_law_merge_with_empty_is_identity(x: dict[str, Any]) -> None:
    assert merge(x, {}) == x


@PROPERTY
@given(pod_spec)
def test_law_empty_merged_with_x_is_clean_x(x: dict[str, Any]) -> None:
    assert merge({}, x) == clean(x) == x


@PROPERTY
@given(pod_spec)
def test_law_merge_is_idempotent(x: dict[str, Any]) -> None:
    assert merge(x, x) == x


@PROPERTY
@given(pod_spec, pod_spec)
def test_law_no_duplicate_keys_and_inputs_untouched(a: dict[str, Any],
                                                    b: dict[str, Any]) -> None:
    before = copy.deepcopy((a, b))
    out = merge(a, b)
    assert duplicate_keys(out) == []
    assert (a, b) == before
    assert not set(mutable_ids(out)) & (set(mutable_ids(a)) | set(mutable_ids(b)))


@PROPERTY
@given(pod_spec, pod_spec)
def test_law_higher_scalars_win_and_lower_containers_survive(a: dict[str, Any],
                                                             b: dict[str, Any]) -> None:
    out = merge(a, b)
    for key in ("hostNetwork", "terminationGracePeriodSeconds", "priorityClassName"):
        if key in b:
            assert out[key] == b[key]
        elif key in a:
            assert out[key] == a[key]
    names = [c["name"] for c in out.get("containers", [])]
    expected = list(dict.fromkeys(c["name"] for c in a.get("containers", []) + b.get(
        "containers", [])))
    assert names == expected


@PROPERTY
@given(pod_spec, pod_spec, st.lists(ENV_NAMES, max_size=3),
       st.lists(st.sampled_from(["data", "cache", "shm"]), max_size=2))
def test_law_deletes_remove_and_no_directive_survives(a: dict[str, Any], b: dict[str, Any],
                                                      env_deletes: list[str],
                                                      volume_deletes: list[str]) -> None:
    higher = copy.deepcopy(b)
    higher.setdefault("volumes", [])
    higher["volumes"] = [{"name": n, "$patch": "delete"} for n in volume_deletes] + [
        v for v in higher["volumes"] if v["name"] not in volume_deletes]
    for c in higher.get("containers", []):
        c["env"] = [{"name": n, "$patch": "delete"} for n in env_deletes] + [
            e for e in c.get("env", []) if e["name"] not in env_deletes]
    out = merge(a, higher)
    assert not has_directive(out)
    assert duplicate_keys(out) == []
    assert not {v["name"] for v in out.get("volumes", [])} & set(volume_deletes)
    for c in higher.get("containers", []):
        merged = next(o for o in out["containers"] if o["name"] == c["name"])
        assert not {e["name"] for e in merged.get("env", [])} & set(env_deletes)


KEYED = {
    "containers": lambda item: item["name"],
    "initContainers": lambda item: item["name"],
    "env": lambda item: item["name"],
    "volumes": lambda item: item["name"],
    "volumeMounts": lambda item: item["mountPath"],
    "ports": lambda item: f"{item['containerPort']},{item.get('protocol', 'TCP')}",
}


def leaf_paths(value: Any, path: str = "spec") -> Iterator[str]:
    """Concrete paths of the leaves of a generated spec, as provenance names them
    (tolerations, a union recorded by index, are checked separately)."""
    field = path.rsplit(".", 1)[-1]
    if isinstance(value, dict):
        if not value and path != "spec":
            yield path  # an empty object is a value (the root is not)
        for key, sub in value.items():
            yield from leaf_paths(sub, f"{path}.{key}")
    elif isinstance(value, list) and field in KEYED:
        for item in value:
            yield from leaf_paths(item, f"{path}[{KEYED[field](item)}]")
    elif field != "tolerations":
        yield path  # plain values and atomic lists


@PROPERTY
@given(pod_spec, pod_spec)
def test_law_provenance_names_the_layer_of_every_output_leaf(a: dict[str, Any],
                                                             b: dict[str, Any]) -> None:
    provenance: dict[str, str] = {}
    acc: dict[str, Any] = {}
    merge_into(acc, a, layer="a", provenance=provenance)
    merge_into(acc, b, layer="b", provenance=provenance)
    assert acc == merge(a, b)
    set_by_b = set(leaf_paths(b))
    expected = {path: "b" if path in set_by_b else "a" for path in leaf_paths(acc)}
    for pos, toleration in enumerate(acc.get("tolerations", [])):
        from_b = toleration in b.get("tolerations", [])
        expected[f"spec.tolerations[{pos}]"] = "b" if from_b else "a"
    assert provenance == expected

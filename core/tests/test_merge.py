"""The one merge (docs/design.md): every rule and every directive. Its purity and
provenance are in test_merge_purity.py, the container aliases and the laws in
test_merge_laws.py."""

from __future__ import annotations

import importlib
from collections import OrderedDict
from typing import Any

import pytest
from podtemplate.errors import MergeError
from podtemplate.merge.engine import (
    clean,
    merge,
)


def env(spec: dict[str, Any], container: str = "main") -> list[dict[str, Any]]:
    return next(c for c in spec["containers"] if c["name"] == container)["env"]


def containers(*items: dict[str, Any]) -> dict[str, Any]:
    return {"containers": list(items)}


def has_directive(value: Any) -> bool:
    if isinstance(value, dict):
        return any(str(k).startswith("$") or has_directive(v) for k, v in value.items())
    if isinstance(value, list):
        return any(has_directive(item) for item in value)
    return False


def has_null(value: Any) -> bool:
    if isinstance(value, dict):
        return any(v is None or has_null(v) for v in value.values())
    if isinstance(value, list):
        return any(item is None or has_null(item) for item in value)
    return False


# ------------------------------------------------------------------ objects and scalars


def test_cluster_env_under_task_env_gives_exactly_one_value() -> None:
    cluster = containers({"name": "main", "env": [{"name": "FOO", "value": "1"}]})
    task = containers({"name": "main", "env": [{"name": "FOO", "value": "2"}]})
    assert env(merge(cluster, task)) == [{"name": "FOO", "value": "2"}]


def test_sidecar_and_init_container_of_the_lower_layer_survive() -> None:
    lower = {"containers": [{"name": "main", "image": "a"}, {"name": "proxy", "image": "p"}],
             "initContainers": [{"name": "setup", "image": "s"}]}
    higher = {"containers": [{"name": "main", "image": "b"}]}
    out = merge(lower, higher)
    assert out["containers"] == [{"name": "main", "image": "b"},
                                 {"name": "proxy", "image": "p"}]
    assert out["initContainers"] == [{"name": "setup", "image": "s"}]


@pytest.mark.parametrize(("field", "low", "high"), [
    ("hostNetwork", True, False),
    ("terminationGracePeriodSeconds", 30, 0),
    ("priorityClassName", "high", ""),
    ("schedulerName", "a", "b"),
])
def test_falsy_values_override(field: str, low: Any, high: Any) -> None:
    assert merge({field: low}, {field: high}) == {field: high}


def test_null_removes_a_key_and_never_reaches_output() -> None:
    lower = {"nodeSelector": {"a": "1", "b": "2"}, "runtimeClassName": "nvidia"}
    out = merge(lower, {"nodeSelector": {"a": None}, "runtimeClassName": None,
                        "hostname": None})
    assert out == {"nodeSelector": {"b": "2"}}
    assert not has_null(merge({"x": {"y": None}}, {"z": [{"name": "a", "v": None}]}))


def test_maps_merge_key_by_key_and_higher_wins() -> None:
    lower = {"nodeSelector": {"pool": "cpu", "zone": "a"},
             "securityContext": {"runAsUser": 1000, "fsGroup": 2000}}
    higher = {"nodeSelector": {"pool": "gpu"}, "securityContext": {"runAsUser": 0}}
    assert merge(lower, higher) == {
        "nodeSelector": {"pool": "gpu", "zone": "a"},
        "securityContext": {"runAsUser": 0, "fsGroup": 2000}}


def test_type_change_replaces() -> None:
    assert merge({"a": {"b": 1}}, {"a": "x"}) == {"a": "x"}
    assert merge({"a": [1]}, {"a": {"b": 1}}) == {"a": {"b": 1}}


# -------------------------------------------------------------------------- keyed lists


def test_keyed_items_merge_new_ones_append_lower_order_kept() -> None:
    lower = containers({"name": "main", "env": [{"name": "A", "value": "1"},
                                                {"name": "B", "value": "2"}]})
    higher = containers({"name": "main", "env": [{"name": "C", "value": "3"},
                                                 {"name": "A", "valueFrom": {"x": 1}}]})
    assert env(merge(lower, higher)) == [
        {"name": "A", "value": "1", "valueFrom": {"x": 1}},
        {"name": "B", "value": "2"},
        {"name": "C", "value": "3"}]


@pytest.mark.parametrize(("field", "key", "a", "b"), [
    ("volumes", "name", {"emptyDir": {}}, {"emptyDir": {"medium": "Memory"}}),
    ("imagePullSecrets", "name", {}, {}),
    ("hostAliases", "ip", {"hostnames": ["a"]}, {"hostnames": ["b"]}),
    ("schedulingGates", "name", {}, {}),
    ("resourceClaims", "name", {"resourceClaimName": "a"}, {"resourceClaimName": "b"}),
    ("readinessGates", "conditionType", {}, {}),
])
def test_pod_level_keyed_lists(field: str, key: str, a: dict[str, Any],
                               b: dict[str, Any]) -> None:
    lower = {field: [{key: "one", **a}, {key: "two"}]}
    higher = {field: [{key: "one", **b}, {key: "three"}]}
    out = merge(lower, higher)[field]
    assert [item[key] for item in out] == ["one", "two", "three"]
    assert out[0] == {key: "one", **merge(a, b, root="")}


def test_volume_mounts_keyed_by_mount_path() -> None:
    lower = containers({"name": "main", "volumeMounts": [{"name": "a", "mountPath": "/d"}]})
    higher = containers({"name": "main", "volumeMounts": [{"name": "b", "mountPath": "/d"}]})
    assert merge(lower, higher)["containers"][0]["volumeMounts"] == [
        {"name": "b", "mountPath": "/d"}]


def test_ports_keyed_by_port_and_protocol_with_tcp_default() -> None:
    lower = containers({"name": "main", "ports": [{"containerPort": 53, "name": "dns"}]})
    higher = containers({"name": "main", "ports": [
        {"containerPort": 53, "protocol": "UDP", "name": "dns-udp"},
        {"containerPort": 53, "protocol": "TCP", "hostPort": 53}]})
    assert merge(lower, higher)["containers"][0]["ports"] == [
        {"containerPort": 53, "name": "dns", "protocol": "TCP", "hostPort": 53},
        {"containerPort": 53, "protocol": "UDP", "name": "dns-udp"}]


def test_topology_spread_constraints_keyed_by_key_and_when_unsatisfiable() -> None:
    zone = {"topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "maxSkew": 1}
    lower = {"topologySpreadConstraints": [zone]}
    higher = {"topologySpreadConstraints": [
        {**zone, "maxSkew": 2},
        {"topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway", "maxSkew": 5}]}
    out = merge(lower, higher)["topologySpreadConstraints"]
    assert [(c["whenUnsatisfiable"], c["maxSkew"]) for c in out] == [
        ("DoNotSchedule", 2), ("ScheduleAnyway", 5)]


def test_pod_sysctls_keyed_by_name() -> None:
    lower = {"securityContext": {"sysctls": [{"name": "a", "value": "1"},
                                             {"name": "b", "value": "2"}]}}
    higher = {"securityContext": {"sysctls": [{"name": "a", "value": "9"}]}}
    assert merge(lower, higher)["securityContext"]["sysctls"] == [
        {"name": "a", "value": "9"}, {"name": "b", "value": "2"}]


def test_duplicate_keys_within_one_layer_collapse_in_the_output() -> None:
    layer = containers({"name": "main", "env": [{"name": "A", "value": "1"},
                                                {"name": "A", "value": "2"}]})
    assert env(merge({}, layer)) == [{"name": "A", "value": "2"}]


def test_keyed_merge_of_a_long_list_keeps_the_lower_order() -> None:
    # That it takes linear time is measured by the benchmarks (template_scaling).
    size = 10_000
    lower = containers({"name": "main", "env": [{"name": f"V{i}", "value": "1"}
                                                for i in range(size)]})
    higher = containers({"name": "main", "env": [{"name": f"V{i}", "value": "2"}
                                                 for i in reversed(range(size))]})
    out = merge(lower, higher)
    assert env(out) == [{"name": f"V{i}", "value": "2"} for i in range(size)]


# --------------------------------------------------------------------- set, union, atomic

# The module, not the function that ``podtemplate`` exports under the same name.
merge_module = importlib.import_module("podtemplate.merge.engine")


def test_set_list_is_a_union_without_duplicates() -> None:
    lower = {"metadata": {"finalizers": ["a", "b"]}}
    higher = {"metadata": {"finalizers": ["c", "a", "c"]}}
    assert merge(lower, higher, root="")["metadata"]["finalizers"] == ["a", "b", "c"]


def test_lower_toleration_survives_and_exact_duplicates_appear_once() -> None:
    spot = {"key": "spot", "operator": "Exists", "effect": "NoSchedule"}
    gpu = {"key": "nvidia.com/gpu", "operator": "Exists"}
    out = merge({"tolerations": [spot]}, {"tolerations": [gpu, dict(spot)]})
    assert out["tolerations"] == [spot, gpu]
    # Not an exact duplicate: kept as a second toleration.
    seconds = {**spot, "tolerationSeconds": 60}
    assert merge({"tolerations": [spot]}, {"tolerations": [seconds]})["tolerations"] == [
        spot, seconds]


@pytest.mark.parametrize("kind", ["containers", "initContainers", "ephemeralContainers"])
def test_env_from_is_a_union(kind: str) -> None:
    platform = {"secretRef": {"name": "platform"}}
    mine = {"configMapRef": {"name": "mine"}}
    lower = {kind: [{"name": "c", "envFrom": [platform]}]}
    higher = {kind: [{"name": "c", "envFrom": [mine, platform]}]}
    assert merge(lower, higher)[kind][0]["envFrom"] == [platform, mine]


def test_union_dedup_is_linear_in_list_size(monkeypatch: pytest.MonkeyPatch) -> None:
    # Counted, not timed: each item's identity is taken a bounded number of times.
    calls = 0
    ident = merge_module._ident

    def counting(item: Any) -> Any:
        nonlocal calls
        calls += 1
        return ident(item)

    def searched(*args: Any) -> Any:
        raise AssertionError("a long union list is searched item by item")

    monkeypatch.setattr(merge_module, "_ident", counting)
    monkeypatch.setattr(merge_module, "union_position", searched)
    many = [{"key": f"k{i}", "operator": "Exists"} for i in range(5000)]
    out = merge({"tolerations": many}, {"tolerations": list(reversed(many))})
    assert out["tolerations"] == many
    assert calls <= 3 * 2 * len(many)


@pytest.mark.parametrize("size", [1, 40])  # a short list is searched, a long one indexed
def test_union_dedup_tells_plain_types_apart(size: int) -> None:
    base = [{"key": f"k{i}", "operator": "Exists"} for i in range(size)]
    one = {"key": "t", "operator": "Exists", "tolerationSeconds": 1}
    true = {"key": "t", "operator": "Exists", "tolerationSeconds": True}  # == one in Python
    out = merge({"tolerations": [*base, one]}, {"tolerations": [true, dict(one), *base]})
    seconds = [t.get("tolerationSeconds") for t in out["tolerations"]]
    assert [type(value) for value in seconds] == [type(None)] * size + [int, bool]


@pytest.mark.parametrize(("spec_low", "spec_high", "path"), [
    ({"command": ["a", "b"]}, {"command": ["c"]}, "command"),
    ({"args": ["--x"]}, {"args": []}, "args"),
])
def test_atomic_container_lists_are_replaced(spec_low: dict[str, Any],
                                             spec_high: dict[str, Any], path: str) -> None:
    out = merge(containers({"name": "m", **spec_low}), containers({"name": "m", **spec_high}))
    assert out["containers"][0][path] == spec_high[path]


def test_affinity_terms_and_unknown_lists_are_atomic() -> None:
    term = {"matchExpressions": [{"key": "a", "operator": "In", "values": ["x"]}]}
    other = {"matchExpressions": [{"key": "b", "operator": "In", "values": ["y"]}]}
    path = ("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
    lower: dict[str, Any] = {path[0]: {path[1]: {path[2]: {"nodeSelectorTerms": [term]}}}}
    higher: dict[str, Any] = {path[0]: {path[1]: {path[2]: {"nodeSelectorTerms": [other]}}}}
    assert merge(lower, higher)[path[0]][path[1]][path[2]]["nodeSelectorTerms"] == [other]
    assert merge({"dnsConfig": {"nameservers": ["1"]}},
                 {"dnsConfig": {"nameservers": ["2"]}}) == {"dnsConfig": {"nameservers": ["2"]}}
    assert merge({"made-up": [{"name": "a"}]}, {"made-up": [{"name": "b"}]}) == {
        "made-up": [{"name": "b"}]}


# ----------------------------------------------------------------------------- roots


def test_root_pod_template_spec_merges_metadata_and_spec() -> None:
    lower = {"metadata": {"labels": {"a": "1"}, "annotations": {"x": "1"}},
             "spec": {"containers": [{"name": "m", "env": [{"name": "A", "value": "1"}]}]}}
    higher = {"metadata": {"labels": {"b": "2"}},
              "spec": {"containers": [{"name": "m", "env": [{"name": "A", "value": "2"}]}]}}
    out = merge(lower, higher, root="")
    assert out["metadata"] == {"labels": {"a": "1", "b": "2"}, "annotations": {"x": "1"}}
    assert out["spec"]["containers"][0]["env"] == [{"name": "A", "value": "2"}]


def test_root_one_container() -> None:
    lower = {"name": "m", "env": [{"name": "A", "value": "1"}], "ports": [{"containerPort": 1}]}
    higher = {"env": [{"name": "B", "value": "2"}], "ports": [{"containerPort": 2}]}
    out = merge(lower, higher, root="spec.containers[]")
    assert [e["name"] for e in out["env"]] == ["A", "B"]
    assert [p["containerPort"] for p in out["ports"]] == [1, 2]


# -------------------------------------------------------------------------- directives


def test_patch_delete_removes_an_inherited_volume() -> None:
    lower = {"volumes": [{"name": "a", "emptyDir": {}}, {"name": "b", "emptyDir": {}}]}
    out = merge(lower, {"volumes": [{"name": "a", "$patch": "delete"}]})
    assert out == {"volumes": [{"name": "b", "emptyDir": {}}]}


def test_patch_delete_then_re_add_in_one_list_gives_a_fresh_item() -> None:
    lower = containers({"name": "m", "env": [{"name": "A", "valueFrom": {"x": 1}},
                                             {"name": "B", "value": "b"}]})
    higher = containers({"name": "m", "env": [{"name": "A", "$patch": "delete"},
                                              {"name": "A", "value": "new"}]})
    assert env(merge(lower, higher), "m") == [{"name": "B", "value": "b"},
                                              {"name": "A", "value": "new"}]


def test_patch_delete_of_something_not_inherited_is_a_no_op() -> None:
    out = merge({"hostNetwork": True}, {"volumes": [{"name": "gone", "$patch": "delete"}]})
    assert out == {"hostNetwork": True}


def test_a_list_emptied_by_directives_is_dropped_but_an_explicit_empty_list_stays() -> None:
    lower = {"volumes": [{"name": "a", "emptyDir": {}}], "tolerations": [{"key": "x"}],
             "containers": [{"name": "m", "args": ["--x"], "env": [{"name": "A"}]}]}
    assert merge(lower, {"volumes": [{"name": "a", "$patch": "delete"}],
                         "tolerations": [{"$patch": "replace"}]}) == {
        "containers": lower["containers"]}
    assert merge(lower, containers({"name": "m", "args": []}))["containers"][0]["args"] == []
    assert merge({}, {"env": []}, root="spec.containers[]") == {"env": []}


def test_patch_delete_on_a_port_uses_the_protocol_default() -> None:
    lower = containers({"name": "m", "ports": [{"containerPort": 80},
                                               {"containerPort": 80, "protocol": "UDP"}]})
    higher = containers({"name": "m", "ports": [{"containerPort": 80, "$patch": "delete"}]})
    assert merge(lower, higher)["containers"][0]["ports"] == [
        {"containerPort": 80, "protocol": "UDP"}]


def test_patch_delete_in_a_union_removes_matching_items() -> None:
    lower = {"tolerations": [{"key": "spot", "operator": "Exists"},
                             {"key": "spot", "operator": "Equal", "value": "x"},
                             {"key": "gpu", "operator": "Exists"}]}
    out = merge(lower, {"tolerations": [{"$patch": "delete", "key": "spot"}]})
    assert out == {"tolerations": [{"key": "gpu", "operator": "Exists"}]}
    out = merge(lower, {"tolerations": [{"$patch": "delete", "key": "spot", "value": "x"}]})
    assert [t.get("value") for t in out["tolerations"]] == [None, None]


def test_patch_replace_on_a_keyed_list() -> None:
    lower = {"volumes": [{"name": "a", "emptyDir": {}}]}
    higher = {"volumes": [{"$patch": "replace"}, {"name": "b", "emptyDir": {}}]}
    assert merge(lower, higher) == {"volumes": [{"name": "b", "emptyDir": {}}]}


@pytest.mark.parametrize("marker", [dict, OrderedDict])  # any mapping a loader gives
def test_patch_replace_on_a_union_list(marker: type[dict[str, str]]) -> None:
    lower = {"tolerations": [{"key": "spot", "operator": "Exists"}]}
    higher = {"tolerations": [marker({"$patch": "replace"}),
                              {"key": "gpu", "operator": "Exists"}]}
    assert merge(lower, higher) == {"tolerations": [{"key": "gpu", "operator": "Exists"}]}


def test_patch_replace_on_a_dict() -> None:
    lower = {"securityContext": {"runAsUser": 1, "fsGroup": 2}}
    higher = {"securityContext": {"$patch": "replace", "runAsNonRoot": True}}
    assert merge(lower, higher) == {"securityContext": {"runAsNonRoot": True}}


def test_patch_replace_on_a_keyed_item() -> None:
    lower = containers({"name": "m", "image": "a", "command": ["x"]})
    higher = containers({"name": "m", "$patch": "replace", "image": "b"})
    assert merge(lower, higher) == containers({"name": "m", "image": "b"})


def test_patch_delete_as_a_dict_value_removes_the_key() -> None:
    lower = {"affinity": {"nodeAffinity": {"x": 1}}, "dnsPolicy": "None"}
    assert merge(lower, {"affinity": {"$patch": "delete"}}) == {"dnsPolicy": "None"}


def test_patch_merge_is_the_default_behaviour() -> None:
    lower = {"securityContext": {"runAsUser": 1}}
    higher = {"securityContext": {"$patch": "merge", "fsGroup": 2}}
    assert merge(lower, higher) == {"securityContext": {"runAsUser": 1, "fsGroup": 2}}


def test_whole_object_directives_and_null_patch() -> None:
    lower = {"hostNetwork": True, "nodeSelector": {"a": "1"}}
    assert merge(lower, {"$patch": "delete"}) == {}
    assert merge(lower, {"$patch": "replace", "dnsPolicy": "None"}) == {"dnsPolicy": "None"}
    # A null $patch is no directive (null just means "no such key").
    assert merge(lower, {"nodeSelector": {"$patch": None, "b": "2"}}) == {
        "hostNetwork": True, "nodeSelector": {"a": "1", "b": "2"}}


def test_no_directive_survives_when_higher_lands_on_nothing() -> None:
    higher = {"securityContext": {"$patch": "replace", "runAsUser": 1},
              "affinity": {"$patch": "delete"},
              "volumes": [{"$patch": "replace"}, {"name": "a", "emptyDir": {}}],
              "tolerations": [{"$patch": "delete", "key": "x"}, {"key": "y"}],
              "containers": [{"name": "m", "env": [{"name": "X", "$patch": "delete"}],
                              "command": [{"$patch": "replace"}, "run"],
                              "resources": {"$patch": "replace", "limits": {"cpu": "1"}}}]}
    out = merge({}, higher)
    assert not has_directive(out)
    assert out == {"securityContext": {"runAsUser": 1},
                   "volumes": [{"name": "a", "emptyDir": {}}],
                   "tolerations": [{"key": "y"}],
                   "containers": [{"name": "m", "command": ["run"],
                                   "resources": {"limits": {"cpu": "1"}}}]}
    assert out == clean(higher)


def test_directives_in_the_lower_layer_are_cleaned_too() -> None:
    lower = {"volumes": [{"name": "a", "$patch": "delete"}], "x": {"$patch": "replace"}}
    assert merge(lower, {}) == {"x": {}}


# ------------------------------------------------------------------ malformed directives


@pytest.mark.parametrize(("higher", "field"), [
    ({"affinity": {"$patch": "bogus"}}, "spec.affinity"),
    ({"containers": [{"name": "m", "env": [{"name": "A", "$patch": "remove"}]}]},
     "spec.containers[m].env[A]"),
    ({"containers": [{"name": "m", "env": [{"$patch": "delete"}]}]},
     "spec.containers[m].env[0]"),
    ({"containers": [{"name": "m", "ports": [{"protocol": "UDP", "$patch": "delete"}]}]},
     "spec.containers[m].ports[0]"),
    ({"tolerations": [{"$patch": "delete"}]}, "spec.tolerations[0]"),
    ({"volumes": [{"name": "a"}, {"$patch": "replace"}]}, "spec.volumes[1]"),
    ({"containers": [{"name": "m", "command": ["a", {"$patch": "bogus"}]}]},
     "spec.containers[m].command[1]"),
    ({"$setElementOrder/containers": [{"name": "m"}]}, "spec.$setElementOrder/containers"),
    ({"containers": ["main"]}, "spec.containers[0]"),
])
def test_malformed_directives_raise_merge_error_with_path_and_fix(higher: dict[str, Any],
                                                                  field: str) -> None:
    lower = containers({"name": "m", "ports": [{"containerPort": 1}]})
    with pytest.raises(MergeError) as info:
        merge(lower, higher)
    assert info.value.field == field
    assert info.value.fix


def test_delete_in_a_set_list_is_rejected() -> None:
    with pytest.raises(MergeError) as info:
        merge({}, {"metadata": {"finalizers": [{"$patch": "delete", "value": "a"}]}}, root="")
    assert info.value.field == "metadata.finalizers[0]"


def test_merge_error_path_respects_root() -> None:
    with pytest.raises(MergeError) as info:
        merge({}, {"spec": {"affinity": {"$patch": "nope"}}}, root="")
    assert info.value.field == "spec.affinity"
    with pytest.raises(MergeError) as info:
        clean({"a": [{"$patch": "nope"}]})
    assert info.value.field == "a[0]"

"""The merge rules (docs/design.md, "The merge"; README, "Merge rules"), one case each:
falsy values, directives, keyed lists with several key fields, unions, provenance,
copy-on-write folds and the composition of magic container entries within one layer."""

from __future__ import annotations

import copy
from typing import Any

from podtemplate.merge._fast import Cow
from podtemplate.merge.engine import expand_container_aliases, merge, merge_into


def fold(*layers: dict[str, Any], provenance: dict[str, str] | None = None) -> dict[str, Any]:
    """``layers`` folded over nothing, each recorded under its position (``L0``, ``L1``...)."""
    acc: dict[str, Any] = {}
    for number, layer in enumerate(layers):
        merge_into(acc, layer, layer=f"L{number}", provenance=provenance)
    return acc


def main(*fields: dict[str, Any]) -> dict[str, Any]:
    """A pod spec whose one container ``main`` has ``fields``."""
    out: dict[str, Any] = {"name": "main"}
    for part in fields:
        out.update(part)
    return {"containers": [out]}


def only(spec: dict[str, Any], name: str = "main") -> dict[str, Any]:
    (found,) = [c for c in spec["containers"] if c["name"] == name]
    return found


# ------------------------------------------------------------------------ falsy and null


def test_falsy_values_of_keyed_items_override() -> None:
    lower = main({"env": [{"name": "A", "value": "x"}],
                  "volumeMounts": [{"name": "v", "mountPath": "/v", "readOnly": True}],
                  "ports": [{"containerPort": 80, "hostPort": 8080}]})
    higher = main({"env": [{"name": "A", "value": ""}],
                   "volumeMounts": [{"name": "v", "mountPath": "/v", "readOnly": False}],
                   "ports": [{"containerPort": 80, "hostPort": 0}]})
    out = only(merge(lower, higher))
    assert out["env"] == [{"name": "A", "value": ""}]
    assert out["volumeMounts"] == [{"name": "v", "mountPath": "/v", "readOnly": False}]
    assert out["ports"] == [{"containerPort": 80, "hostPort": 0}]


def test_null_removes_keys_at_every_depth_in_a_plain_fold() -> None:
    lower = {"securityContext": {"runAsUser": 1, "fsGroup": 2}, "hostNetwork": True}
    out = fold(lower, {"securityContext": {"runAsUser": None}, "hostNetwork": None})
    assert out == {"securityContext": {"fsGroup": 2}}


def test_an_object_deleted_with_a_directive_disappears() -> None:
    lower = {"securityContext": {"runAsUser": 1}, "affinity": {"nodeAffinity": {}}}
    out = fold(lower, {"securityContext": {"$patch": "delete"}})
    assert out == {"affinity": {"nodeAffinity": {}}}


# ---------------------------------------------------------------------- directives on lists


def test_every_delete_item_of_one_list_removes_its_item() -> None:
    lower = {"volumes": [{"name": n, "emptyDir": {}} for n in ("a", "b", "c", "d")]}
    higher = {"volumes": [{"name": "a", "$patch": "delete"}, {"name": "c", "$patch": "delete"},
                          {"name": "d", "$patch": "delete"}]}
    assert fold(lower, higher) == {"volumes": [{"name": "b", "emptyDir": {}}]}


def test_a_replace_marker_drops_what_the_list_inherits() -> None:
    lower = main({"env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]})
    higher = main({"env": [{"$patch": "replace"}, {"name": "C", "value": "3"}]})
    assert only(merge(lower, higher))["env"] == [{"name": "C", "value": "3"}]


def test_replace_on_an_object_drops_what_it_inherits() -> None:
    lower = main({"resources": {"limits": {"cpu": "1"}, "requests": {"cpu": "1"}}})
    higher = main({"resources": {"$patch": "replace", "requests": {"cpu": "2"}}})
    assert only(merge(lower, higher))["resources"] == {"requests": {"cpu": "2"}}


# ------------------------------------------------------------- keyed lists, several key fields


def test_ports_are_matched_by_port_and_protocol_in_place() -> None:
    lower = main({"ports": [{"containerPort": 53, "protocol": "TCP"},
                            {"containerPort": 53, "protocol": "UDP"},
                            {"containerPort": 80}]})
    higher = main({"ports": [{"containerPort": 53, "protocol": "UDP", "name": "dns"},
                             {"containerPort": 80, "protocol": "TCP", "name": "http"}]})
    assert only(merge(lower, higher))["ports"] == [
        {"containerPort": 53, "protocol": "TCP"},
        {"containerPort": 53, "protocol": "UDP", "name": "dns"},
        {"containerPort": 80, "name": "http", "protocol": "TCP"}]


def test_a_container_given_twice_by_one_layer_is_one_container() -> None:
    higher = {"containers": [{"name": "side", "image": "s:1", "env": [{"name": "A", "value": "1"}]},
                             {"name": "main", "image": "m:1"},
                             {"name": "side", "args": ["x"]}]}
    out = fold({"containers": [{"name": "main", "image": "m:0"}]}, higher)
    assert out["containers"] == [
        {"name": "main", "image": "m:1"},
        {"name": "side", "image": "s:1", "env": [{"name": "A", "value": "1"}], "args": ["x"]}]


# --------------------------------------------------------------------------------- unions


def toleration(key: str, effect: str = "NoSchedule") -> dict[str, Any]:
    return {"key": key, "operator": "Exists", "effect": effect}


def test_an_item_given_twice_in_a_long_union_appears_once() -> None:
    lower = {"tolerations": [toleration(f"t{n}") for n in range(20)]}
    higher = {"tolerations": [toleration("new"), toleration("t3"), toleration("new")]}
    out = fold(lower, higher)["tolerations"]
    assert out == [*lower["tolerations"], toleration("new")]


def test_a_union_delete_removes_only_items_matching_every_field_it_gives() -> None:
    lower = {"tolerations": [toleration("gpu"), toleration("spot"),
                             toleration("gpu", "NoExecute")]}
    higher = {"tolerations": [{"$patch": "delete", "key": "gpu", "effect": "NoSchedule"}]}
    assert fold(lower, higher)["tolerations"] == [toleration("spot"),
                                                  toleration("gpu", "NoExecute")]


# ----------------------------------------------------------------------------- provenance


def test_provenance_of_union_items_follows_deletes_and_names_the_highest_giver() -> None:
    provenance: dict[str, str] = {}
    out = fold({"tolerations": [toleration("a"), toleration("b")]},
               {"tolerations": [{"$patch": "delete", "key": "a"}, toleration("b"),
                                toleration("c")]},
               provenance=provenance)
    assert out["tolerations"] == [toleration("b"), toleration("c")]
    assert provenance == {"spec.tolerations[0]": "L1", "spec.tolerations[1]": "L1"}


def test_provenance_of_a_union_item_a_higher_layer_deletes_goes() -> None:
    provenance: dict[str, str] = {}
    fold({"tolerations": [toleration("a"), toleration("b")]},
         {"tolerations": [{"$patch": "delete", "key": "a"}]}, provenance=provenance)
    assert provenance == {"spec.tolerations[0]": "L0"}


def test_provenance_of_keyed_items_names_the_layer_that_last_set_each_value() -> None:
    provenance: dict[str, str] = {}
    fold(main({"env": [{"name": "A", "value": "1"}, {"name": "B", "value": "1"}]}),
         main({"env": [{"name": "A", "value": "2"}]}), provenance=provenance)
    assert provenance["spec.containers[main].env[A].value"] == "L1"
    assert provenance["spec.containers[main].env[B].value"] == "L0"


def test_provenance_of_removed_ports_goes_with_them() -> None:
    ports = main({"ports": [{"containerPort": 8080, "name": "http"}, {"containerPort": 9090}]})
    for higher in (main({"ports": [{"$patch": "delete", "containerPort": 8080}]}),
                   main({"ports": [{"$patch": "replace"}, {"containerPort": 9090}]})):
        provenance: dict[str, str] = {}
        fold(ports, higher, provenance=provenance)
        assert not [path for path in provenance if "8080" in path], higher


def test_provenance_of_an_object_replaced_by_a_value_goes() -> None:
    provenance: dict[str, str] = {}
    fold({"nodeSelector": {"zone": "a"}}, {"nodeSelector": "all"}, provenance=provenance)
    assert provenance == {"spec.nodeSelector": "L1"}


# ------------------------------------------------------------------ copy-on-write folds


def test_a_copy_on_write_fold_of_an_unclean_layer_cleans_it() -> None:
    layer = {"securityContext": {"runAsUser": None, "runAsGroup": 1},
             "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                 "nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Exists"}],
                                        "matchFields": None}]}}}}
    cow = Cow()  # cow.share is False: the layer is not clean, nothing is taken by reference
    out = merge_into({}, layer, cow=cow)
    assert out == merge_into({}, layer)
    assert out["securityContext"] == {"runAsGroup": 1}
    terms = out["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert terms["nodeSelectorTerms"] == [{"matchExpressions": [{"key": "a",
                                                                 "operator": "Exists"}]}]


def test_a_copy_on_write_fold_never_changes_the_clean_layer_it_took_from() -> None:
    clean = {"containers": [{"name": "main", "image": "m:1",
                             "env": [{"name": "A", "value": "1"}],
                             "resources": {"limits": {"cpu": "1"}}}],
             "volumes": [{"name": "v", "emptyDir": {}}]}
    before = copy.deepcopy(clean)
    higher = {"containers": [{"name": "main", "env": [{"name": "A", "value": "2"}],
                              "resources": {"limits": {"cpu": "2"}}}],
              "volumes": [{"name": "v", "emptyDir": {"medium": "Memory"}}]}
    for first in (clean, {"containers": [{"name": "main"}]}):
        cow = Cow()
        acc: dict[str, Any] = {}
        for layer, share in ((first, True), (clean, True), (higher, False)):
            cow.share = share
            merge_into(acc, layer, cow=cow)
        assert clean == before
        assert acc == fold(first, clean, higher)


# ------------------------------------------------ magic entries composed within one layer


def expand_over(lower: dict[str, Any], layer: dict[str, Any], names: tuple[str, ...] = ("main",),
                ) -> dict[str, Any]:
    """``layer``'s magic entries expanded for a pod of containers ``names``, merged over
    ``lower``."""
    spec = expand_container_aliases(layer, primary_name="main", layer_primary_name="primary",
                                    container_names=list(names), init_container_names=[])
    return merge(lower, spec)


LOWER = main({"image": "m:0", "envFrom": [{"configMapRef": {"name": "x"}}],
              "env": [{"name": "LOW", "value": "1"}],
              "securityContext": {"runAsUser": 1, "runAsGroup": 2},
              "volumeMounts": [{"name": "cache", "mountPath": "/cache", "readOnly": True}]})


def test_a_container_entry_with_replace_replaces_what_its_default_entry_gives() -> None:
    layer = {"containers": [{"name": "default", "env": [{"name": "D", "value": "1"}]},
                            {"name": "main", "$patch": "replace", "image": "m:1"}]}
    assert only(expand_over(LOWER, layer)) == {"name": "main", "image": "m:1"}


def test_union_items_of_the_default_entry_come_before_the_container_s_own() -> None:
    layer = {"containers": [{"name": "default", "envFrom": [{"configMapRef": {"name": "a"}}]},
                            {"name": "primary", "envFrom": [{"configMapRef": {"name": "b"}}]}]}
    assert only(expand_over(LOWER, layer))["envFrom"] == [
        {"configMapRef": {"name": n}} for n in ("x", "a", "b")]


def test_what_the_default_entry_removes_the_container_entry_sets_afresh() -> None:
    layer = {"containers": [{"name": "default", "securityContext": None, "env": None},
                            {"name": "main", "securityContext": {"runAsNonRoot": True},
                             "env": [{"name": "OWN", "value": "1"}]}]}
    out = only(expand_over(LOWER, layer))
    assert out["securityContext"] == {"runAsNonRoot": True}
    assert out["env"] == [{"name": "OWN", "value": "1"}]


def test_an_item_the_default_entry_deletes_the_container_entry_adds_afresh() -> None:
    layer = {"containers": [
        {"name": "default", "volumeMounts": [{"mountPath": "/cache", "$patch": "delete"}]},
        {"name": "main", "volumeMounts": [{"name": "cache", "mountPath": "/cache"}]}]}
    assert only(expand_over(LOWER, layer))["volumeMounts"] == [
        {"name": "cache", "mountPath": "/cache"}]

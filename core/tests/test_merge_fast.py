"""The merge's fast paths (``merge/_fast.py``) give exactly what the plain path gives: the
same output, key order included, and the same provenance, on generated layers."""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from podtemplate.errors import MergeError
from podtemplate.merge import _fast
from podtemplate.merge import engine as engine_module
from podtemplate.merge.engine import merge, merge_into, rules_at
from podtemplate.testing.sizing import examples

PLAIN_LEAF = st.one_of(st.sampled_from(["a", "b", "1"]), st.integers(0, 2), st.booleans())
NAMES = st.sampled_from(["A", "B", "C", "D"])


def _maybe_directive(item: dict[str, Any], draw: Any) -> dict[str, Any]:
    choice = draw(st.sampled_from(["none", "none", "none", "delete", "null", "nested"]))
    if choice == "delete":
        return {**item, "$patch": "delete"}
    if choice == "null":
        return {**item, "value": None}
    if choice == "nested":
        return {**item, "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}
    return item


@st.composite
def env_lists(draw: Any) -> list[dict[str, Any]]:
    return [_maybe_directive({"name": draw(NAMES), "value": draw(PLAIN_LEAF)}, draw)
            for _ in range(draw(st.integers(0, 5)))]


@st.composite
def tolerations(draw: Any) -> list[dict[str, Any]]:
    count = draw(st.sampled_from([0, 1, 3, 20]))  # short lists searched, long ones indexed
    items: list[dict[str, Any]] = []
    for _ in range(count):
        item: dict[str, Any] = {"key": draw(NAMES), "operator": "Exists"}
        if draw(st.booleans()):
            item["tolerationSeconds"] = draw(st.sampled_from([1, True, 1.0, "1"]))
        items.append(item)
    if items and draw(st.booleans()):
        items.append({"$patch": "delete", "key": draw(NAMES)})
    return items


@st.composite
def layers(draw: Any) -> dict[str, Any]:
    container: dict[str, Any] = {"name": draw(st.sampled_from(["main", "side"]))}
    if draw(st.booleans()):
        container["env"] = draw(env_lists())
    if draw(st.booleans()):
        container["command"] = draw(st.lists(PLAIN_LEAF, max_size=3))
    if draw(st.booleans()):
        container["ports"] = [{"containerPort": draw(st.integers(80, 82)),
                               "name": draw(NAMES)}]
    spec: dict[str, Any] = {"containers": [container]}
    if draw(st.booleans()):
        spec["tolerations"] = draw(tolerations())
    if draw(st.booleans()):
        spec["nodeSelector"] = {draw(NAMES): draw(PLAIN_LEAF)}
    return spec


def _plain_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine_module, "is_flat", lambda value: False)
    monkeypatch.setattr(engine_module, "plain_values", lambda items: False)
    monkeypatch.setattr(engine_module, "SEARCHED", -1)  # every union list indexed


def _fold(stack: list[dict[str, Any]], provenance: dict[str, str] | None
          ) -> dict[str, Any]:
    acc: dict[str, Any] = {}
    for number, layer in enumerate(stack):
        merge_into(acc, layer, layer=f"layer {number}", provenance=provenance)
    return acc


@settings(max_examples=examples(150), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stack=st.lists(layers(), min_size=1, max_size=4), record=st.booleans())
def test_fast_and_plain_paths_fold_alike(stack: list[dict[str, Any]], record: bool,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    fast_provenance: dict[str, str] | None = {} if record else None
    fast = _fold(stack, fast_provenance)
    with monkeypatch.context() as patched:
        _plain_path(patched)
        plain_provenance: dict[str, str] | None = {} if record else None
        plain = _fold(stack, plain_provenance)
    # JSON text compares key order and tells 1, 1.0 and True apart.
    assert json.dumps(fast) == json.dumps(plain)
    assert fast_provenance == plain_provenance


def test_the_fast_paths_are_taken_and_the_plain_switch_turns_them_off(
        monkeypatch: pytest.MonkeyPatch) -> None:
    taken: list[str] = []
    for name in ("is_flat", "plain_values", "union_position"):
        real = getattr(_fast, name)

        def spy(*args: Any, _real: Any = real, _name: str = name) -> Any:
            taken.append(_name)
            return _real(*args)

        monkeypatch.setattr(engine_module, name, spy)
    spec = {"containers": [{"name": "m", "env": [{"name": "A", "value": "1"}],
                            "command": ["run"]}],
            "tolerations": [{"key": "a", "operator": "Exists"}]}
    merge(spec, spec)
    assert {"is_flat", "plain_values", "union_position"} <= set(taken)


@st.composite
def odd_fragments(draw: Any) -> dict[str, Any]:
    """A layer, now and then with what a merge over nothing changes: a duplicate key or
    union item, a tuple, a dict subclass, a null item, a replace marker, a stray ``$``
    key, a key the merge refuses."""
    spec = draw(layers())
    twist = draw(st.sampled_from(["none", "none", "dup-env", "dup-toleration", "tuple",
                                  "subclass", "null-item", "replace", "dollar",
                                  "dict-key", "ports", "empty"]))
    container = spec["containers"][0]
    if twist == "dup-env":
        container["env"] = [{"name": "A", "value": "1"}, {"name": "A", "value": "1"}]
    elif twist == "dup-toleration":
        spec["tolerations"] = [{"key": "k", "operator": "Exists"}] * 2
    elif twist == "tuple":
        container["args"] = ("a", "b")
    elif twist == "subclass":
        spec["nodeSelector"] = OrderedDict(a="1")
    elif twist == "null-item":
        spec["tolerations"] = [None]
    elif twist == "replace":
        spec["containers"] = [{"$patch": "replace"}, container]
    elif twist == "dollar":
        container["$setElementOrder/env"] = [{"name": "A"}]
    elif twist == "dict-key":
        container["env"] = [{"name": {"x": 1}, "value": "1"}]
    elif twist == "ports":  # the same key once the protocol default is filled in
        container["ports"] = [{"containerPort": 80}, {"containerPort": 80, "protocol": "TCP"}]
    elif twist == "empty":
        spec["volumes"] = []
    return spec


def _clean_by_definition(fragment: dict[str, Any]) -> bool:
    try:
        return _fast.is_clean(fragment, merge_into({}, fragment))
    except MergeError:
        return False


@settings(max_examples=examples(300), deadline=None)
@given(fragment=odd_fragments())
def test_clean_as_merged_tells_what_the_merge_over_nothing_tells(fragment: dict[str, Any]
                                                                 ) -> None:
    assert _fast.clean_as_merged(fragment, rules_at("spec")) == _clean_by_definition(fragment)


def test_clean_as_merged_finds_each_change_of_the_merge() -> None:
    node = rules_at("spec")
    clean = {"containers": [{"name": "m", "env": [{"name": "A", "value": "1"}]}],
             "tolerations": [{"key": "k", "operator": "Exists"}]}
    assert _fast.clean_as_merged(clean, node)
    for changed in (
        {**clean, "nodeSelector": None},
        {**clean, "tolerations": [{"key": "k", "operator": "Exists"}] * 2},
        {**clean, "containers": [{"name": "m"}, {"name": "m"}]},
        {**clean, "containers": [{"name": "m", "args": ("x",)}]},
        {**clean, "containers": [{"$patch": "replace"}, {"name": "m"}]},
        {**clean, "$patch": "merge"},
    ):
        assert not _fast.clean_as_merged(changed, node)
        assert not _clean_by_definition(changed)


def test_own_path_copies_what_the_fold_borrowed_and_keeps_what_it_holds_borrowed() -> None:
    """A pod changed between two copy-on-write folds (reconcile_limits): the objects on
    the way are copied, and what they hold stays borrowed, so the next fold copies it
    before changing it instead of changing the template."""
    requests = {"cpu": "2"}
    template = {"containers": [{"name": "main", "resources": {"requests": requests,
                                                              "limits": {"cpu": "1"}}}]}
    snapshot = json.dumps(template)
    cow = _fast.Cow()
    cow.share = True
    pod: dict[str, Any] = merge_into({}, template, cow=cow)
    owned = cow.own_path(pod, "containers", 0, "resources")
    owned["limits"] = {"cpu": "2"}
    cow.share = False
    merge_into(pod, {"containers": [{"name": "main", "resources": {
        "requests": {"memory": "1Gi"}}}]}, cow=cow)
    assert json.dumps(template) == snapshot
    assert pod["containers"][0]["resources"] == {
        "requests": {"cpu": "2", "memory": "1Gi"}, "limits": {"cpu": "2"}}
    assert requests == {"cpu": "2"}

"""The merge's fast paths (``merge/_fast.py``) give exactly what the plain path gives: the
same output, key order included, and the same provenance, on generated layers."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from podtemplate.merge import _fast
from podtemplate.merge import engine as engine_module
from podtemplate.merge.engine import merge, merge_into

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


@settings(max_examples=150, deadline=None,
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

"""The one merge's purity and provenance: inputs left as they are and outputs sharing
nothing with them, duplicate keys reported, the layer that set every leaf recorded (and
forgotten for what a higher layer deletes), no paths built when none is asked for."""

from __future__ import annotations

import copy
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from podtemplate.merge.engine import (
    clean,
    duplicate_keys,
    merge,
    merge_into,
)

# The module itself (``podtemplate.merge.engine`` the attribute is the re-exported function).
MERGE = sys.modules["podtemplate.merge.engine"]


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


# ------------------------------------------------------------- purity and ownership


def rich_spec(tag: str) -> dict[str, Any]:
    return {"containers": [{"name": "main", "image": tag, "env": [{"name": "A", "value": tag}],
                            "command": ["run", tag], "resources": {"limits": {"cpu": "1"}},
                            "volumeMounts": [{"name": "v", "mountPath": "/v"}]},
                           {"name": f"side-{tag}", "image": "s"}],
            "volumes": [{"name": "v", "emptyDir": {}}],
            "tolerations": [{"key": tag, "operator": "Exists"}],
            "nodeSelector": {tag: tag}, "affinity": {"podAffinity": {"x": [tag]}}}


def test_inputs_are_unchanged_and_output_shares_nothing() -> None:
    lower, higher = rich_spec("a"), rich_spec("b")
    higher["securityContext"] = {"$patch": "replace", "runAsUser": 1}
    before = copy.deepcopy((lower, higher))
    out = merge(lower, higher)
    assert (lower, higher) == before
    assert not set(mutable_ids(out)) & (set(mutable_ids(lower)) | set(mutable_ids(higher)))
    # Merging onto nothing and nothing onto something copy too.
    assert not set(mutable_ids(merge({}, higher))) & set(mutable_ids(higher))
    assert not set(mutable_ids(merge(lower, {}))) & set(mutable_ids(lower))


def test_merge_into_updates_target_and_copies_from_higher() -> None:
    target = merge({}, rich_spec("a"))
    higher = rich_spec("b")
    before = copy.deepcopy(higher)
    result = merge_into(target, higher)
    assert result is target
    assert target["containers"][0]["image"] == "b"
    assert higher == before
    assert not set(mutable_ids(target)) & set(mutable_ids(higher))
    target["containers"][0]["env"].append({"name": "Z"})
    target["tolerations"].clear()
    assert higher == before


def test_merge_equals_folding_with_merge_into() -> None:
    layers = [rich_spec("a"), rich_spec("b"), rich_spec("c")]
    acc: dict[str, Any] = {}
    for layer in layers:
        merge_into(acc, layer)
    assert acc == merge(merge(layers[0], layers[1]), layers[2])


def test_clean_removes_directives_and_nulls_and_copies() -> None:
    value = {"a": None, "b": {"$patch": "replace", "c": 1, "d": None},
             "e": [{"$patch": "replace"}, {"f": None, "g": 1}, None, {"$patch": "delete"}],
             "h": {"$patch": "delete"}, "i": (1, 2)}
    out = clean(value)
    assert out == {"b": {"c": 1}, "e": [{"g": 1}], "i": [1, 2]}
    assert not set(mutable_ids(out)) & set(mutable_ids(value))
    assert clean("x") == "x"


# --------------------------------------------------------------------- duplicate keys


def test_duplicate_keys_reports_paths() -> None:
    spec = {"containers": [{"name": "m", "env": [{"name": "FOO"}, {"name": "FOO"},
                                                 {"name": "BAR"}]},
                           {"name": "m"}],
            "volumes": [{"name": "v"}, {"name": "w"}],
            "tolerations": [{"key": "a"}, {"key": "a"}]}
    assert duplicate_keys(spec) == ["spec.containers[m]", "spec.containers[0].env[FOO]"]
    assert duplicate_keys({"spec": {"volumes": [{"name": "v"}, {"name": "v"}]}}, root="") == [
        "spec.volumes[v]"]
    ports = containers({"name": "m", "ports": [{"containerPort": 80},
                                               {"containerPort": 80, "protocol": "TCP"},
                                               {"containerPort": 80, "protocol": "UDP"}]})
    assert duplicate_keys(ports) == ["spec.containers[0].ports[80,TCP]"]
    deleting = {"volumes": [{"name": "v", "$patch": "delete"}, {"name": "v"}]}
    assert duplicate_keys(deleting) == []
    assert duplicate_keys({}) == []


# ---------------------------------------------------------------------------- provenance


def test_provenance_records_the_layer_of_every_leaf() -> None:
    provenance: dict[str, str] = {}
    acc: dict[str, Any] = {}
    merge_into(acc, {"nodeSelector": {"gpu": "a100", "zone": "a"},
                     "tolerations": [{"key": "spot", "operator": "Exists"}],
                     "containers": [{"name": "pytorch", "image": "x", "command": ["a"],
                                     "env": [{"name": "FOO", "value": "1"}],
                                     "ports": [{"containerPort": 80}]}],
                     "volumes": [{"name": "scratch", "emptyDir": {}}]},
               layer="cluster", provenance=provenance)
    merge_into(acc, {"nodeSelector": {"gpu": "h100"},
                     "tolerations": [{"key": "gpu", "operator": "Exists"}],
                     "containers": [{"name": "pytorch", "env": [{"name": "FOO", "value": "2"}],
                                     "command": ["b"]}]},
               layer="task", provenance=provenance)
    assert provenance == {
        "spec.nodeSelector.gpu": "task",
        "spec.nodeSelector.zone": "cluster",
        "spec.tolerations[0]": "cluster",
        "spec.tolerations[1]": "task",
        "spec.containers[pytorch].name": "task",
        "spec.containers[pytorch].image": "cluster",
        "spec.containers[pytorch].command": "task",
        "spec.containers[pytorch].env[FOO].name": "task",
        "spec.containers[pytorch].env[FOO].value": "task",
        "spec.containers[pytorch].ports[80,TCP].containerPort": "cluster",
        "spec.volumes[scratch].name": "cluster",
        "spec.volumes[scratch].emptyDir": "cluster",
    }


def test_provenance_forgets_what_a_higher_layer_deletes() -> None:
    provenance: dict[str, str] = {}
    acc: dict[str, Any] = {}
    merge_into(acc, {"nodeSelector": {"a": "1"}, "runtimeClassName": "x",
                     "volumes": [{"name": "v", "emptyDir": {}}, {"name": "w", "emptyDir": {}}],
                     "tolerations": [{"key": "a"}, {"key": "b"}, {"key": "c"}],
                     "securityContext": {"runAsUser": 1, "fsGroup": 2}},
               layer="one", provenance=provenance)
    merge_into(acc, {"nodeSelector": None, "runtimeClassName": None,
                     "volumes": [{"name": "v", "$patch": "delete"}],
                     "tolerations": [{"$patch": "delete", "key": "b"}],
                     "securityContext": {"$patch": "replace", "runAsNonRoot": True}},
               layer="two", provenance=provenance)
    assert acc["tolerations"] == [{"key": "a"}, {"key": "c"}]
    assert provenance == {
        "spec.volumes[w].name": "one",
        "spec.volumes[w].emptyDir": "one",
        "spec.tolerations[0]": "one",
        "spec.tolerations[1]": "one",  # was [2]: indices follow the merged list
        "spec.securityContext.runAsNonRoot": "two",
    }


def test_provenance_with_whole_template_root() -> None:
    provenance: dict[str, str] = {}
    merge({"metadata": {"labels": {"a": "1"}}}, {"metadata": {"labels": {"b": "2"}}},
          root="", layer="hi", provenance=provenance)
    assert provenance == {"metadata.labels.b": "hi"}


def test_provenance_does_not_change_the_result() -> None:
    lower, higher = rich_spec("a"), rich_spec("b")
    assert merge(lower, higher, provenance={}, layer="x") == merge(lower, higher)


def test_no_paths_are_built_without_provenance(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def spy(name: str, real: Any) -> Any:
        def wrapper(*args: Any) -> Any:
            calls.append(name)
            return real(*args)
        return wrapper

    monkeypatch.setattr(MERGE, "join", spy("join", MERGE.join))
    monkeypatch.setattr(MERGE, "render_key", spy("render_key", MERGE.render_key))
    lower, higher = rich_spec("a"), rich_spec("b")
    higher["volumes"].append({"name": "v", "$patch": "delete"})
    merge(lower, higher)
    assert calls == []
    merge(lower, higher, provenance={})
    assert calls  # the spy works: with provenance, paths are built

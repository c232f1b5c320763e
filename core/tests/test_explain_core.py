"""The parts of ``explain`` in core: the line-marking YAML load, definition sites, the
trace of resolution, and explain of a Python task (no plugin needed)."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from podtemplate import (
    Platform,
    PodTemplate,
    Resources,
    Role,
    YamlError,
    explain,
    make_context,
    resolve_pod,
    task,
)
from podtemplate.dispatch import define_roles
from podtemplate.files.yaml_lines import load_marked
from podtemplate.files.yamlio import load_all
from podtemplate.platform import DefaultResources
from podtemplate.testing.sizing import examples

HERE = str(Path(__file__).resolve())


def line_here(snippet: str) -> int:
    """The line of this file that holds ``snippet`` (its first occurrence after the
    imports), so that the expected lines are not written down twice."""
    lines = Path(__file__).read_text().splitlines()
    return next(i + 1 for i, text in enumerate(lines) if snippet in text and "line_here" not in text)


# ------------------------------------------------------------------ line-marking YAML load


DOCUMENT = """\
kind: PodTemplate
template:
  spec:
    containers:
      - name: main
        env:
          - {name: A, value: "1"}
          - name: B
            value: "2"
    nodeSelector: {pool: gpu}
---
second: document
"""


def test_marks_give_the_line_of_every_value() -> None:
    (first, first_marks), (second, second_marks) = load_marked(DOCUMENT)
    assert (first, second) == tuple(load_all(DOCUMENT))  # the same data as the safe load
    spec = first_marks.child("template").child("spec")  # type: ignore[union-attr]
    containers = spec.child("containers")  # type: ignore[union-attr]
    assert containers.line == 4  # type: ignore[union-attr]
    main = containers.child(0)  # type: ignore[union-attr]
    assert main.line == 5 and main.child("name").line == 5  # type: ignore[union-attr]
    env = main.child("env")  # type: ignore[union-attr]
    assert env.child(0).child("value").line == 7  # type: ignore[union-attr]
    assert env.child(1).line == 8 and env.child(1).child("value").line == 9  # type: ignore[union-attr]
    assert spec.child("nodeSelector").child("pool").line == 10  # type: ignore[union-attr]
    assert second_marks.child("second").line == 12  # type: ignore[union-attr]
    assert env.child(2) is None and spec.child("missing") is None  # type: ignore[union-attr]


def test_marks_refuse_what_the_safe_load_refuses() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}]\n" for i in range(6))
    for bad in (bomb, "a: !!python/object:os.system x\n", "a: [unclosed\n"):
        with pytest.raises(YamlError) as safe:
            load_all(bad, source="x.yaml")
        with pytest.raises(YamlError) as marked:
            load_marked(bad, source="x.yaml")
        assert str(marked.value) == str(safe.value)


# ---------------------------------------------------------------------- definition sites


TEMPLATE = PodTemplate({"nodeSelector": {"a": "b"}})  # the site: this line
ROLE = Role(image="x:1")  # a role's site


@task(image="python:3.11")
def decorated() -> None: ...


@task
def bare() -> None: ...


def test_definitions_know_the_line_that_made_them() -> None:
    assert TEMPLATE.defined_at is not None and ROLE.defined_at is not None
    assert (TEMPLATE.defined_at.file, TEMPLATE.defined_at.line) == (
        HERE, line_here("TEMPLATE = PodTemplate("))
    assert ROLE.defined_at.line == line_here("ROLE = Role(")
    assert decorated.defined_at is not None and bare.defined_at is not None
    assert decorated.defined_at.line == line_here("@task(image=\"python:3.11\")")
    assert bare.fn is not None
    assert bare.defined_at.line == inspect.getsourcelines(bare.fn)[1]  # the @task line
    assert decorated.defined_at.file == HERE


def test_where_a_definition_was_made_does_not_change_what_equals_what() -> None:
    first = PodTemplate({"nodeSelector": {"a": "b"}})
    assert first == TEMPLATE and first.defined_at != None  # noqa: E711
    assert Role(image="x:1") == ROLE
    assert decorated.with_overrides(pod_template=first).defined_at is decorated.defined_at


# ------------------------------------------------------------------------------ the trace


def test_the_trace_sees_each_layer_only_when_provenance_is_recorded() -> None:
    @task(image="python:3.11", pod_template=PodTemplate({"nodeSelector": {"a": "b"}}))
    def traced() -> None: ...

    context = make_context(platform=Platform(defaultResources=DefaultResources(requests={"cpu": "1"})))
    (role,) = define_roles(traced, context)
    seen: list[tuple[str, dict[str, Any]]] = []

    def trace(layer: Any, pod: dict[str, Any]) -> None:
        seen.append((layer.label, {**pod["spec"]}))

    plain = resolve_pod(traced, role, context, trace=trace)
    assert seen == []  # without provenance the trace is not called
    provenance: dict[str, str] = {}
    recorded = resolve_pod(traced, role, context, provenance=provenance, trace=trace)
    assert recorded == plain
    assert [label for label, _ in seen] == ["task template", "task settings",
                                            "platform defaultResources", "operator (python)"]
    assert seen[0][1]["nodeSelector"] == {"a": "b"}


# --------------------------------------------------------------------- a Python task


def test_explain_a_python_task_without_platform_file() -> None:
    template = PodTemplate({"containers": [{"name": "primary", "image": "busybox:1"}],
                            "nodeSelector": {"pool": "a"}})

    @task(image="python:3.11", pod_template=template,
          requests=Resources(cpu="1"))
    def job() -> None: ...

    result = explain(job, platform=Platform(defaultResources=DefaultResources(requests={"memory": "1Gi"})))
    (only,) = result["tasks"]
    (pod,) = only["roles"]
    values = {v["path"]: v for v in pod["values"]}
    image = values["spec.containers[primary].image"]
    assert (image["value"], image["layer"]) == ("python:3.11", "task-settings")
    assert image["source"] == {"file": str(Path(HERE).relative_to(Path.cwd()))
                               if HERE.startswith(str(Path.cwd())) else HERE,
                               "line": job.defined_at.line}  # type: ignore[union-attr]
    assert [(o["value"], o["layer"]) for o in image["overridden"]] == [("busybox:1",
                                                                        "task-template")]
    memory = values["spec.containers[primary].resources.requests.memory"]
    assert memory["layer"] == "default-resources" and memory["source"] is None
    assert "not given as a file" in memory["detail"]
    assert values["spec.restartPolicy"]["layer"] == "operator"
    assert values["metadata.name"]["value"] == "job"
    assert pod["removed"] == []


def test_an_empty_object_filled_by_a_higher_layer_is_not_removed() -> None:
    @task(image="python:3.11",
          pod_template=PodTemplate({"volumes": [{"name": "cache", "emptyDir": {}}]}))
    def cached() -> None: ...

    memory = PodTemplate({"volumes": [{"name": "cache", "emptyDir": {"medium": "Memory"}}]})
    result = explain(cached.with_overrides(pod_template=memory), platform=Platform())
    (pod,) = result["tasks"][0]["roles"]
    assert pod["removed"] == []
    medium = next(v for v in pod["values"] if v["path"] == "spec.volumes[cache].emptyDir.medium")
    assert (medium["value"], medium["layer"]) == ("Memory", "run-override")
    assert medium["source"]["line"] == memory.defined_at.line  # type: ignore[union-attr]
    assert "with_overrides" in medium["detail"]
    assert not [v for v in pod["values"] if v["path"] == "spec.volumes[cache].emptyDir"]


# ------------------------------------------------------- attribution against a model fold

KEYS = ("a", "b", "c")
values_or_null = st.dictionaries(st.sampled_from(KEYS),
                                 st.one_of(st.none(), st.sampled_from(["x", "y", ""])),
                                 max_size=3)


@settings(max_examples=examples(60), deadline=None)
@given(interruptible=st.dictionaries(st.sampled_from(KEYS), st.sampled_from(["x", "y"]),
                                     max_size=3),
       template=values_or_null, task_override=values_or_null, run_override=values_or_null)
def test_each_value_is_attributed_to_the_highest_layer_that_set_it(
        interruptible: dict[str, str], template: dict[str, str | None],
        task_override: dict[str, str | None], run_override: dict[str, str | None]) -> None:
    """Maps folded by hand, lowest first: the layer that last set a key owns its value
    and lists the values it replaced; a null removes what a lower layer set. A
    with_overrides template replaces the task's own template's pod spec, as on Flyte."""
    layers: list[tuple[str, Mapping[str, str | None]]] = [
        ("interruptible", interruptible), ("task-template", {} if task_override else template),
        ("with_overrides", task_override), ("--override", run_override)]
    expected: dict[str, tuple[str, str, list[str]]] = {}  # key -> (value, layer, replaced)
    gone: dict[str, tuple[str, str]] = {}  # key -> (value lost, remover), the last removal
    for layer, mapping in layers:
        for key, new in mapping.items():
            if new is None:
                if key in expected:
                    gone[key] = (expected.pop(key)[0], layer)
                continue
            lower = expected.get(key)
            replaced = [*lower[2], lower[0]] if lower else []
            expected[key] = (new, layer, replaced)

    @task(image="python:3.11", interruptible=True,
          pod_template=PodTemplate({"nodeSelector": template}) if template else None)
    def folded() -> None: ...

    subject = folded.with_overrides(pod_template=PodTemplate({"nodeSelector": task_override})
                                    if task_override else None)
    result = explain(subject, platform=Platform(interruptible={"nodeSelector": interruptible}),
                     override=PodTemplate({"nodeSelector": run_override}) if run_override
                     else None)
    (pod,) = result["tasks"][0]["roles"]
    prefix = "spec.nodeSelector."
    found = {v["path"].removeprefix(prefix): v for v in pod["values"]
             if v["path"].startswith(prefix)}
    assert set(found) == set(expected)
    names = {"interruptible": "interruptible", "task-template": "task-template",
             "with_overrides": "run-override", "--override": "run-override"}
    for key, (value, layer, replaced) in expected.items():
        entry = found[key]
        assert (entry["value"], entry["layer"]) == (value, names[layer])
        assert ("with_overrides" in (entry["detail"] or "")) == (layer == "with_overrides")
        assert [low["value"] for low in entry["overridden"]] == replaced
    removed = {v["path"].removeprefix(prefix): v for v in pod["removed"]
               if v["path"].startswith(prefix)}
    assert {k for k in removed if k not in expected} == set(gone) - set(expected)
    for key, (value, layer) in gone.items():
        if key not in expected:
            assert removed[key]["value"] == value and removed[key]["layer"] == names[layer]

"""The definition layers composed once (``resolve._fast.composed_runs``) and the first
fold made once (``resolve._fast.started_pod``) give exactly what folding the layers one
by one gives - the same pod, key order included, the same error - over whatever the
platform's layers put below them; and the composition is made once per task and role,
when the same layers come again, not once per render."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from podtemplate import (
    Platform,
    PodTemplate,
    PodTemplateError,
    Resources,
    Role,
    RoleSpec,
    make_context,
    resolve_pod,
    task,
)
from podtemplate.merge.engine import expand_container_aliases
from podtemplate.model.apiserver import check_pod_template
from podtemplate.model.compiled import ENV
from podtemplate.resolve import _fast
from podtemplate.resolve.layers import Layer
from podtemplate.testing import assert_valid_pod_template
from podtemplate.testing.sizing import examples

NAMES = st.sampled_from(["a", "b", "c"])
VALUES = st.sampled_from(["1", "x", "on"])
CONTAINERS = st.sampled_from(["primary", "main", "side", "trainer", "default"])


@st.composite
def env(draw: Any) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(0, 3))):
        name = draw(st.sampled_from(["A", "B", "C"]))
        kind = draw(st.sampled_from(["value", "value", "field", "null", "delete"]))
        if kind == "field":
            items.append({"name": name, "valueFrom": {"fieldRef": {
                "fieldPath": "metadata.name"}}})
        elif kind == "null":
            items.append({"name": name, "value": None})
        elif kind == "delete":
            items.append({"name": name, "$patch": "delete"})
        else:
            items.append({"name": name, "value": draw(VALUES)})
    return items


@st.composite
def container(draw: Any) -> dict[str, Any]:
    item: dict[str, Any] = {"name": draw(CONTAINERS)}
    if draw(st.booleans()):
        item["env"] = draw(env())
    if draw(st.booleans()):
        item["image"] = draw(st.sampled_from(["busybox", "envoy:1"]))
    if draw(st.booleans()):
        item["args"] = draw(st.lists(VALUES, max_size=2))
    if draw(st.booleans()):
        item["volumeMounts"] = [{"name": "data", "mountPath": draw(st.sampled_from(
            ["/data", "/d2"]))}]
    if draw(st.booleans()):  # a union list: items are not merged by key
        item["envFrom"] = [{"configMapRef": {"name": draw(NAMES)}}]
    if draw(st.booleans()):
        item["resources"] = {draw(st.sampled_from(["requests", "limits"])): {
            "memory": draw(st.sampled_from(["1Gi", "2Gi"]))}}
    return item


@st.composite
def spec(draw: Any) -> dict[str, Any]:
    """A PodSpec fragment: valid and clean mostly, with directives, nulls and ``default``
    entries now and then (those layers are not composed)."""
    out: dict[str, Any] = {}
    if draw(st.booleans()):
        out["containers"] = draw(st.lists(container(), max_size=2))
    if draw(st.booleans()):
        out["volumes"] = [{"name": "data", "emptyDir": draw(st.sampled_from(
            [{}, {"medium": "Memory"}]))}]
    if draw(st.booleans()):
        out["tolerations"] = [{"key": draw(NAMES), "operator": "Exists"}
                              for _ in range(draw(st.integers(1, 2)))]
    if draw(st.booleans()):
        out["nodeSelector"] = {draw(NAMES): draw(st.one_of(VALUES, st.none()))}
    if draw(st.booleans()):
        out["securityContext"] = {"runAsNonRoot": draw(st.booleans())}
    if draw(st.integers(0, 5)) == 0:
        out["containers"] = [{"$patch": "replace"}, *out.get("containers", [])]
    return out


def template(draw: Any) -> PodTemplate | None:
    if not draw(st.booleans()):
        return None
    labels = {"team": draw(VALUES)} if draw(st.booleans()) else {}
    return PodTemplate(draw(spec()), labels=labels,
                       primary_container_name=draw(st.sampled_from(["primary", "main"])))


@st.composite
def cases(draw: Any) -> tuple[Any, RoleSpec, Platform]:
    try:
        return _case(draw)
    except PodTemplateError:  # refused when defined (a duplicate key...): not a case
        reject()


def _case(draw: Any) -> tuple[Any, RoleSpec, Platform]:
    def job() -> None: ...

    made = task(name="t", pod_template=template(draw),
                env={"E": draw(VALUES)} if draw(st.booleans()) else None,
                image=draw(st.sampled_from([None, "python:3.12"])),
                requests=draw(st.sampled_from([None, Resources(memory="2Gi")])))(job)
    override = template(draw)
    if override is not None:
        made = made.with_overrides(pod_template=override)
    role = Role(pod_template=template(draw), image=draw(st.sampled_from([None, "img:2"])),
                env={"R": "1"} if draw(st.booleans()) else None)
    role_spec = RoleSpec(name="worker", template_path="spec.worker",
                         container_name=draw(st.sampled_from([None, "trainer"])), role=role,
                         inherit=draw(st.sampled_from(["all", "all", "scheduling"])))
    base = draw(spec())
    if not base:
        return made, role_spec, Platform(defaultImage="python:3.11")
    platform = Platform(defaultImage="python:3.11", interruptible=base)
    return made.with_overrides(interruptible=True), role_spec, platform


def _resolve(made: Any, role_spec: RoleSpec, platform: Platform, *, plain: bool = False
             ) -> str:
    """The pod as JSON text (key order and 1 / 1.0 / True told apart), or the error;
    ``plain``: folded layer by layer, with no fast path (recording provenance does that)."""
    try:
        pod = resolve_pod(made, role_spec, make_context(platform=platform),
                          provenance={} if plain else None)
    except PodTemplateError as error:
        return f"error: {error}"
    problems = check_pod_template(pod)  # the render refuses such a pod (check_final_pods)
    if problems:
        return f"refused: {problems[0]}"
    assert_valid_pod_template(pod)
    return json.dumps(pod)


def _plain(layers: Any, primary: str, slots: Any) -> list[Layer]:
    return list(layers)


@settings(max_examples=examples(200), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(case=cases())
def test_composed_layers_fold_as_the_layers_one_by_one(
        case: tuple[Any, RoleSpec, Platform], monkeypatch: pytest.MonkeyPatch) -> None:
    made, role_spec, platform = case
    # The first render notes the task's layers; the second composes them; the third and
    # fourth are served from what the second kept.
    first = _resolve(made, role_spec, platform)
    second = _resolve(made, role_spec, platform)
    composed = _resolve(made, role_spec, platform)
    again = _resolve(made, role_spec, platform)
    with monkeypatch.context() as patched:
        patched.setattr(_fast, "composed_runs", _plain)
        uncomposed = _resolve(made, role_spec, platform)
    plain = _resolve(made, role_spec, platform, plain=True)
    assert first == second == composed == again == plain
    assert uncomposed == plain


def _sample() -> tuple[Any, RoleSpec]:
    def job() -> None: ...

    made = task(name="t", env={"A": "1"}, pod_template=PodTemplate(
        {"containers": [{"name": "primary", "env": [{"name": "B", "value": "2"}]},
                        {"name": "side", "image": "envoy:1"}],
         "tolerations": [{"key": "k", "operator": "Exists"}]}))(job)
    role = Role(pod_template=PodTemplate({"nodeSelector": {"pool": "gpu"}}), env={"R": "1"})
    return made, RoleSpec(name="worker", template_path="spec.worker",
                          container_name="trainer", role=role)


def test_the_composition_is_made_once_and_used(monkeypatch: pytest.MonkeyPatch) -> None:
    made, role_spec = _sample()
    composed: list[str] = []
    real = _fast._compose

    def spy(layers: Any, primary: str) -> Layer:
        layer = real(layers, primary)
        composed.append(layer.label)
        return layer

    monkeypatch.setattr(_fast, "_compose", spy)
    def render(spec: RoleSpec) -> dict[str, Any]:
        return resolve_pod(made, spec, make_context(platform=Platform(
            defaultImage="python:3.11")))

    pods = [render(role_spec)]
    assert composed == []  # the first render notes the layers and folds them one by one
    pods += [render(role_spec) for _ in range(3)]
    # Composed by the second render, and reused after.
    assert composed == ["task template + task settings + role template (worker) + "
                        "role settings (worker)"]
    assert pods[0] == pods[1] == pods[2] == pods[3]
    names = [c["name"] for c in pods[0]["spec"]["containers"]]
    assert names == ["trainer", "side"]
    trainer = pods[0]["spec"]["containers"][0]
    assert [e["name"] for e in trainer["env"]] == ["B", "A", "R"]
    # A role made afresh (as some plugins do per render) but equal to the first gives the
    # same layers: the composition stands. One that differs is noted, folded one by
    # one, and composed when it comes again, in the same slot. Nothing piles up.
    fresh = RoleSpec(name="worker", template_path="spec.worker", container_name="trainer",
                     role=role_spec.role.model_copy() if role_spec.role else None)
    assert render(fresh) == pods[0]
    assert len(composed) == 1
    other = RoleSpec(name="worker", template_path="spec.worker", container_name="trainer",
                     role=Role(pod_template=PodTemplate({"nodeSelector": {"pool": "cpu"}}),
                               env={"R": "1"}))
    assert render(other)["spec"]["nodeSelector"] == {"pool": "cpu"}
    assert len(composed) == 1
    assert render(other)["spec"]["nodeSelector"] == {"pool": "cpu"}
    assert len(composed) == 2
    slots = made.compiled(_fast.COMPOSED_SLOTS, dict, "worker", "trainer")
    assert list(slots) == [0]


def test_a_layer_with_a_directive_is_folded_on_its_own(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    def job() -> None: ...

    made = task(name="t", env={"A": "1"}, pod_template=PodTemplate(
        {"tolerations": [{"key": "k", "operator": "Exists"}, {"$patch": "delete",
                                                             "key": "spot"}]}))(job)
    role_spec = RoleSpec(name="pod", template_path="")
    folded: list[str] = []
    real = _fast.FastFold.__call__

    def spy(self: _fast.FastFold, acc: dict[str, Any], layer: Layer) -> None:
        folded.append(layer.label)
        real(self, acc, layer)

    monkeypatch.setattr(_fast.FastFold, "__call__", spy)
    platform = Platform(defaultImage="python:3.11",
                        interruptible={"tolerations": [{"key": "spot", "operator": "Exists"}]})
    pod = resolve_pod(made.with_overrides(interruptible=True), role_spec,
                      make_context(platform=platform))
    assert folded[:3] == ["platform interruptible", "task template", "task settings"]
    assert [t["key"] for t in pod["spec"]["tolerations"]] == ["k"]


@settings(max_examples=examples(200), deadline=None)
@given(fragment=spec(), primary=st.sampled_from(["primary", "trainer", "main"]),
       alias=st.sampled_from(["primary", "main", None]))
def test_a_renamed_primary_alias_is_the_full_expansion(fragment: dict[str, Any], primary: str,
                                                       alias: str | None) -> None:
    """The shortcut that renames the one aliased entry gives the expansion's pod data."""
    def full() -> dict[str, Any]:
        return expand_container_aliases(fragment, primary_name=primary,
                                        layer_primary_name=alias,
                                        container_names=[primary, "side"],
                                        init_container_names=[])

    try:
        expected = json.dumps(full())
    except PodTemplateError:
        reject()
    assert json.dumps(_fast.aliases_expanded(fragment, primary, alias, full)) == expected


# What the render writes after layers 1-6: defaultResources, the policy, resource
# tolerations, an operator layer; each case is rendered under several of these platforms
# in turn, so that one platform's render reaching what is kept for later renders (a
# template, a task's or role's compiled layers, a composition, a started pod) shows.
AFTER_THE_FOLD = [
    {},
    {"defaultResources": {"requests": {"memory": "1Gi", "cpu": "500m"},
                          "limits": {"memory": "2Gi"}}},
    {"policy": {"enforce": {"containers": [{
        "name": "default", "securityContext": {"allowPrivilegeEscalation": False},
        "env": [{"name": "P", "value": "1"}]}]}}},
    {"resourceTolerations": {"memory": [{"key": "mem", "operator": "Exists"}]}},
]
OPERATOR_LAYERS = [
    {},
    {"spec": {"containers": [{"name": "trainer", "env": [{"name": "A", "value": "op"}],
                              "volumeMounts": [{"name": "data", "mountPath": "/op"}]}]}},
    {"spec": {"containers": [{"name": "primary", "env": [{"name": "B", "value": "op"}],
                              "ports": [{"containerPort": 80}]}],
              "tolerations": [{"key": "op", "operator": "Exists"}]}},
]


def _definitions(made: Any, role_spec: RoleSpec, platform: Platform) -> str:
    templates = (made.pod_template, made.override,
                 role_spec.role.pod_template if role_spec.role else None)
    return repr([None if t is None else (t.pod_spec, t.labels, t.annotations)
                 for t in templates] + [platform.interruptible])


@settings(max_examples=examples(100), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), order=st.lists(st.sampled_from(range(len(AFTER_THE_FOLD))),
                                    min_size=2, max_size=3),
       operator=st.sampled_from(OPERATOR_LAYERS))
def test_renders_again_under_other_platforms_change_nothing_kept(
        case: tuple[Any, RoleSpec, Platform], order: list[int],
        operator: dict[str, Any]) -> None:
    made, role_spec, platform = case
    role_spec = dataclasses.replace(role_spec, operator_layer=operator)
    given_platform = platform.model_dump(by_alias=True, exclude_unset=True)
    platforms = [Platform.model_validate({**given_platform, **AFTER_THE_FOLD[number]})
                 for number in order]
    before = _definitions(made, role_spec, platform)
    expected = [_resolve(made, role_spec, each, plain=True) for each in platforms]
    for _ in range(3):  # one by one, composed, started from the composition's pod
        assert [_resolve(made, role_spec, each) for each in platforms] == expected
    assert _definitions(made, role_spec, platform) == before


def test_a_union_item_both_primary_entries_give_is_given_once() -> None:
    """A template with an entry under its primary alias and one under the primary name
    the operator requires: the two are composed into one entry, which concatenates their
    union lists (envFrom); the merge gives each item once, and so must the composition
    of the task's layers (it is not clean, so it is merged, not taken as it is)."""
    def job() -> None: ...

    config = {"configMapRef": {"name": "cfg"}}
    made = task(name="t", env={"A": "1"}, pod_template=PodTemplate(
        {"containers": [{"name": "trainer", "envFrom": [config]},
                        {"name": "main", "envFrom": [dict(config)]}]},
        primary_container_name="main"))(job)
    role_spec = RoleSpec(name="worker", template_path="", container_name="trainer")
    platform = Platform(defaultImage="python:3.11")
    plain = _resolve(made, role_spec, platform, plain=True)
    assert json.loads(plain)["spec"]["containers"][0]["envFrom"] == [config]
    assert [_resolve(made, role_spec, platform) for _ in range(3)] == [plain] * 3


def test_a_one_off_render_keeps_only_a_note_on_the_task() -> None:
    """A task rendered once (the CLI's renders) keeps what its layers were made from, not
    the layers nor their composition: its memory stays flat in the number of tasks. The
    second render takes the same path and finds the same layers: it keeps its settings
    layers (the task's and the role's, one note each) and composes them."""
    made, role_spec = _sample()
    assert role_spec.role is not None
    before = set(made._compiled)
    role_before = set(role_spec.role._compiled)
    slot = (_fast.COMPOSED_SLOTS, "worker", "trainer")
    for render in range(2):
        resolve_pod(made, role_spec, make_context(platform=Platform(
            defaultImage="python:3.11")))
        added = set(made._compiled) - before
        role_added = set(role_spec.role._compiled) - role_before - {ENV}
        assert slot in added and len(added) == 2 and len(role_added) == 1
        notes = [made._compiled[key] for key in added - {slot}] + [
            role_spec.role._compiled[key] for key in role_added]
        kept = [held[-1] for held in notes]
        if render == 0:  # noted, no layer kept
            assert notes == [[None], [None]]
        else:  # kept: the settings layers the composition is made of
            assert all(isinstance(layer, Layer) for layer in kept)
    slots = made.compiled(_fast.COMPOSED_SLOTS, dict, "worker", "trainer")
    (made_from, composed), = slots.values()
    assert composed is not None and all(not isinstance(part, dict) for part in made_from)

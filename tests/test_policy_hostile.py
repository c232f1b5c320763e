"""The hostile corpus carried by every layer a task controls - and by the platform's
interruptible fragment - into every task type and role: under ``restricted`` none gets
through, each is reported with the layer that carried it; under ``baseline`` the
restricted-only cases render."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from podtemplate import Platform, PodTemplate, Task, render
from podtemplate.dispatch import build_plugin_manager, task_types
from podtemplate.policy import NOT_SET, PodSecurityLevel, Violation
from podtemplate.testing.policy_corpus import HOSTILE_CASES, HostileCase
from podtemplate.testing.policy_kit import (
    make_platform,
    role_names,
    sample,
    violations_of,
    write_templates,
)

MANAGER = build_plugin_manager()
TYPES = sorted(task_types(MANAGER))

CARRIERS = ("task template", "role template", "task override", "run override",
            "platform interruptible")
WITH_ROLES = [t for t in TYPES if role_names(MANAGER, t) != ["pod"]]


@dataclass(frozen=True)
class Carried:
    case: HostileCase
    carrier: str
    task_type: str
    role: str | None  # the role whose template carries it, for the role template

    @property
    def id(self) -> str:
        return f"{self.case.name}-{self.carrier.replace(' ', '-')}-{self.task_type}" + (
            f"-{self.role}" if self.role else "")


def carried() -> Iterator[Carried]:
    """Every case in every carrier, the task types (and roles) taking turns."""
    for shift, carrier in enumerate(CARRIERS):
        types = WITH_ROLES if carrier == "role template" else TYPES
        for index, case in enumerate(HOSTILE_CASES):
            if carrier == "platform interruptible" and case.annotations:
                continue  # the fragment is a PodSpec: it carries no annotations
            task_type = types[(index + shift) % len(types)]
            roles = role_names(MANAGER, task_type)
            role = roles[(index // len(types)) % len(roles)] if carrier == "role template" \
                else None
            yield Carried(case, carrier, task_type, role)


CARRIED = list(carried())


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_templates(tmp_path_factory.mktemp("policy-templates"))


def render_carried(item: Carried, templates: Path, level: PodSecurityLevel) -> list[Violation]:
    case = item.case
    template = PodTemplate(case.spec, annotations=case.annotations or None)
    extra: dict[str, Any] = {}
    task: Task
    override = None
    if item.carrier == "task template":
        task = sample(MANAGER, item.task_type, pod_template=template)
    elif item.carrier == "role template":
        assert item.role is not None
        task = sample(MANAGER, item.task_type, role_templates={item.role: template})
    elif item.carrier == "task override":
        task = sample(MANAGER, item.task_type).with_overrides(pod_template=template)
    elif item.carrier == "run override":
        task, override = sample(MANAGER, item.task_type), template
    else:  # the interruptible fragment names no primary: 'default' reaches it
        extra["interruptible"] = _primary_as_default(case.spec)
        task = sample(MANAGER, item.task_type, interruptible=True)
    return violations_of(MANAGER, task, make_platform(templates, level, **extra), override=override)


def _primary_as_default(spec: dict[str, Any]) -> dict[str, Any]:
    containers = [{**c, "name": "default"} if c["name"] == "primary" else c
                  for c in spec.get("containers", ())]
    return {**spec, "containers": containers} if containers else spec


def expected_layer(item: Carried) -> str:
    return f"role template ({item.role})" if item.carrier == "role template" else item.carrier


def matches(violation: Violation, item: Carried, level: str) -> bool:
    pattern = re.escape(item.case.path).replace(re.escape("[primary]"), r"\[[^\]]+\]")
    return (violation.rule == f"{level}: {item.case.control}"
            and re.fullmatch(pattern, violation.path) is not None
            and (item.role is None or violation.role == item.role))


def test_the_corpus_reaches_every_task_type_role_and_carrier() -> None:
    assert len(HOSTILE_CASES) >= 30
    assert {item.task_type for item in CARRIED} == set(TYPES) and len(TYPES) == 7
    assert {item.carrier for item in CARRIED} == set(CARRIERS)
    roles = {(item.task_type, item.role) for item in CARRIED if item.role}
    assert roles == {(t, r) for t in WITH_ROLES for r in role_names(MANAGER, t)}


@pytest.mark.parametrize("item", CARRIED, ids=lambda item: item.id)
def test_restricted_lets_no_hostile_template_through(item: Carried, templates: Path) -> None:
    violations = render_carried(item, templates, "restricted")
    hits = [v for v in violations if matches(v, item, "restricted")]
    assert hits, f"not reported: {item.case.path}; got {[str(v) for v in violations]}"
    for hit in hits:
        assert hit.task and hit.role
        if hit.value is not NOT_SET:
            assert hit.origin is not None and hit.origin.layer == expected_layer(item), hit


@pytest.mark.parametrize("item", CARRIED, ids=lambda item: item.id)
def test_baseline_rejects_its_cases_and_renders_the_restricted_only_ones(
        item: Carried, templates: Path) -> None:
    violations = render_carried(item, templates, "baseline")
    if item.case.level == "baseline":
        assert any(matches(v, item, "baseline") for v in violations), \
            [str(v) for v in violations]
    else:
        assert violations == []


def test_the_sample_of_each_task_type_is_its_own() -> None:
    # The kit once took the first plugin's answer to the sample hook: every "task type"
    # above was then the same one.
    for task_type in TYPES:
        assert sample(MANAGER, task_type).task_type == task_type


@pytest.mark.parametrize("case", HOSTILE_CASES, ids=lambda case: case.name)
def test_trainer_v2_lets_no_hostile_template_through(case: HostileCase,
                                                     templates: Path) -> None:
    """taskTypes.pytorch.operator: trainer - the hostile template in the task's template
    reaches the TrainingRuntime's node pod, so the policy judges it there."""
    template = PodTemplate(case.spec, annotations=case.annotations or None)
    task = sample(MANAGER, "pytorch", pod_template=template)
    violations = violations_of(MANAGER, task, _trainer(templates))
    item = Carried(case, "task template", "pytorch", "node")
    hits = [v for v in violations if matches(v, item, "restricted")]
    assert hits, f"not reported: {case.path}; got {[str(v) for v in violations]}"
    assert all(hit.origin is None or hit.origin.layer == "task template" for hit in hits
               if hit.value is not NOT_SET)


def test_trainer_v2_renders_the_compliant_sample(templates: Path) -> None:
    # violations_of validates the TrainingRuntime and the TrainJob with their shipped CRDs
    assert violations_of(MANAGER, sample(MANAGER, "pytorch"), _trainer(templates)) == []
    manifests = render(sample(MANAGER, "pytorch"), platform=_trainer(templates),
                       plugin_manager=MANAGER)
    assert [m["kind"] for m in manifests] == ["TrainingRuntime", "TrainJob"]


def _trainer(templates: Path) -> Platform:
    platform = make_platform(templates, "restricted")
    return platform.model_copy(update={"task_types": {"pytorch": {"operator": "trainer"}}})

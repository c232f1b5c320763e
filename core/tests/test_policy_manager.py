"""``make_plugin_manager``: the plugin manager of a plugin's policy tests, whose template
store is the platform's (the kit's manager finds only the probe templates)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from podtemplate import PodTemplate, RenderContext, RoleSpec, Task, TaskType
from podtemplate.dispatch import task_types
from podtemplate.plugin import hookimpl, pod_manifest, sample_function_task
from podtemplate.testing import make_plugin_manager
from podtemplate.testing.policy_kit import (
    make_platform,
    sample,
    violations_of,
    write_templates,
)


class OnePod:
    """A task type that is not installed: one pod, built as resolved."""

    @hookimpl
    def podtemplate_add_task_types(self) -> Sequence[TaskType]:
        return [TaskType(name="onepod", distribution="test-onepod")]

    @hookimpl
    def podtemplate_define_roles(self, task: Task, context: RenderContext) -> list[RoleSpec]:
        return [RoleSpec(name="pod", template_path="")]

    @hookimpl
    def podtemplate_build_manifests(self, task: Task, roles: Sequence[RoleSpec],
                                    pods: Mapping[str, dict[str, Any]],
                                    context: RenderContext) -> list[dict[str, Any]]:
        return [pod_manifest(task, pods["pod"], context)]

    @hookimpl
    def podtemplate_make_sample_task(self, task_type: str, pod_template: PodTemplate | None,
                                     pod_template_name: str | None,
                                     role_templates: Mapping[str, PodTemplate]) -> Task:
        return sample_function_task(task_type, image="ghcr.io/acme/python:3.11",
                                    pod_template=pod_template,
                                    pod_template_name=pod_template_name)


def test_the_platforms_compliant_template_is_found(tmp_path: Path) -> None:
    manager = make_plugin_manager()
    platform = make_platform(write_templates(tmp_path / "templates"))
    assert violations_of(manager, sample(manager, "python"), platform) == []


def test_a_hostile_task_template_is_caught(tmp_path: Path) -> None:
    manager = make_plugin_manager()
    platform = make_platform(write_templates(tmp_path / "templates"))
    hostile = PodTemplate(pod_spec={"hostNetwork": True})
    [violation] = violations_of(manager, sample(manager, "python", hostile), platform)
    assert violation.path == "spec.hostNetwork"


def test_a_plugin_under_test_is_registered_beside_the_installed_ones(tmp_path: Path) -> None:
    manager = make_plugin_manager([OnePod()])
    assert {"onepod", "python"} <= set(task_types(manager))
    platform = make_platform(write_templates(tmp_path / "templates"))
    assert violations_of(manager, sample(manager, "onepod"), platform) == []
    hostile = PodTemplate(pod_spec={"containers": [
        {"name": "primary", "securityContext": {"privileged": True}}]})
    found = violations_of(manager, sample(manager, "onepod", hostile), platform)
    assert [v.path for v in found] == ["spec.containers[primary].securityContext.privileged"]

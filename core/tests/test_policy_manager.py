"""``make_plugin_manager``: the plugin manager of a plugin's policy tests, whose template
store is the platform's (the kit's manager finds only the probe templates)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from podtemplate import PodTemplate, RenderContext, RoleSpec, Task, TaskType
from podtemplate.dispatch import task_types
from podtemplate.plugin import (
    TaskTypePlugin,
    pod_manifest,
    sample_function_task,
    single_pod_role,
)
from podtemplate.testing import make_plugin_manager
from podtemplate.testing.policy_kit import (
    make_platform,
    sample,
    violations_of,
    write_templates,
)


class OnePod(TaskTypePlugin):
    """A task type that is not installed: one pod, built as resolved."""

    task_type = TaskType(name="onepod", distribution="test-onepod")

    def define_roles(self, task: Task, context: RenderContext) -> list[RoleSpec]:
        return [single_pod_role("onepod")]

    def build(self, task: Task, roles: Sequence[RoleSpec], pods: Mapping[str, dict[str, Any]],
              context: RenderContext) -> list[dict[str, Any]]:
        return [pod_manifest(task, pods["pod"], context)]

    def sample(self, pod_template: PodTemplate | None, pod_template_name: str | None,
               role_templates: Mapping[str, PodTemplate]) -> Task:
        return sample_function_task("onepod", image="ghcr.io/acme/python:3.11",
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

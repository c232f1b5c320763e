"""The checks judge the pods a build emits, however it made them: a build that copies the
pods it was handed and then sets a bad value, an unknown field or a duplicate key fails
the render (exit 2 from the CLI) as one that changes them in place does. So does an
object it returns that the API server would refuse beyond the roles' pods."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from podtemplate import (
    ApiRuleError,
    InvalidPodSpecError,
    Platform,
    RenderContext,
    RoleSpec,
    Task,
    TaskType,
    build_plugin_manager,
    hookimpl,
    pod_manifest,
    render,
)
from podtemplate.cli.main import main

Change = Callable[[dict[str, Any]], None]


def bogus_dns_policy(spec: dict[str, Any]) -> None:
    spec["dnsPolicy"] = "Bogus"


def unknown_field(spec: dict[str, Any]) -> None:
    spec["bogusField"] = {"on": True}


def duplicate_env(spec: dict[str, Any]) -> None:
    primary = dict(spec["containers"][0])
    primary["env"] = [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}]
    spec["containers"] = [primary, *spec["containers"][1:]]


CHANGES = {"dns-policy": (bogus_dns_policy, "spec.dnsPolicy"),
           "unknown-field": (unknown_field, "spec.bogusField"),
           "duplicate-env": (duplicate_env, "spec.containers[0].env")}


class CopyingBuild:
    """A task type whose build copies the pod it was handed, then changes the copy."""

    def __init__(self, change: Change, in_place: bool) -> None:
        self.change = change
        self.in_place = in_place

    @hookimpl
    def podtemplate_add_task_types(self) -> Sequence[TaskType]:
        return [TaskType(name="planted", distribution="test-planted")]

    @hookimpl
    def podtemplate_define_roles(self, task: Task, context: RenderContext) -> list[RoleSpec]:
        return [RoleSpec(name="pod", template_path="")]

    @hookimpl
    def podtemplate_build_manifests(self, task: Task, roles: Sequence[RoleSpec],
                                    pods: Mapping[str, dict[str, Any]],
                                    context: RenderContext) -> list[dict[str, Any]]:
        pod = pods["pod"] if self.in_place else dict(pods["pod"])
        spec = pod["spec"] if self.in_place else dict(pod["spec"])
        self.change(spec)
        pod["spec"] = spec
        return [pod_manifest(task, pod, context)]


PLANTED = Task(name="planted", task_type="planted", image="busybox:1.36")


@pytest.mark.parametrize("in_place", [False, True], ids=["copied", "in-place"])
@pytest.mark.parametrize("name", sorted(CHANGES))
def test_render_refuses_what_the_build_emits(name: str, in_place: bool) -> None:
    change, field = CHANGES[name]
    manager = build_plugin_manager([CopyingBuild(change, in_place)], load_entry_points=False)
    with pytest.raises(InvalidPodSpecError) as caught:
        render(PLANTED, platform=Platform(), plugin_manager=manager)
    assert (caught.value.task, caught.value.role) == ("planted", "pod")
    assert caught.value.field is not None and caught.value.field.startswith(field)


def test_an_unchanged_copy_renders() -> None:
    manager = build_plugin_manager([CopyingBuild(lambda spec: None, False)],
                                   load_entry_points=False)
    [pod] = render(PLANTED, platform=Platform(), plugin_manager=manager)
    assert pod["spec"]["containers"][0]["image"] == "busybox:1.36"


Objects = list[dict[str, Any]]


def unknown_top_field(manifests: Objects) -> None:
    manifests[0]["bogusField"] = 1


def bad_object_label(manifests: Objects) -> None:
    manifests[0]["metadata"] = {**manifests[0]["metadata"], "labels": {"bad label!": "x"}}


def extra_bad_pod(manifests: Objects) -> None:
    manifests.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "extra"},
                      "spec": {"dnsPolicy": "Bogus",
                               "containers": [{"name": "c", "image": "busybox:1.36"}]}})


def extra_bad_configmap(manifests: Objects) -> None:
    manifests.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "conf"},
                      "data": {"retries": 3}})


# What a build returns besides the roles' pods: (change, the kind of object it makes, the
# field path and the object named in the error).
OBJECT_CHANGES = {"unknown-top-field": (unknown_top_field, "pod", "bogusField", "Pod planted"),
                  "object-label": (bad_object_label, "wrapped", "metadata.labels.bad label!",
                                   "Wrapper planted"),
                  "extra-pod": (extra_bad_pod, "wrapped", "spec.dnsPolicy", "Pod extra"),
                  "extra-configmap": (extra_bad_configmap, "pod", "data.retries",
                                      "ConfigMap conf")}


class ObjectBuild(CopyingBuild):
    """A task type whose build copies what it builds - a ``v1 Pod``, or an object of
    its own holding the pod at ``spec.template`` (``wrapped``) - then changes the list
    of manifests."""

    def __init__(self, change: Callable[[Objects], None], shape: str) -> None:
        super().__init__(lambda spec: None, in_place=False)
        self.change_objects = change
        self.path = "spec.template" if shape == "wrapped" else ""

    @hookimpl
    def podtemplate_define_roles(self, task: Task, context: RenderContext) -> list[RoleSpec]:
        return [RoleSpec(name="pod", template_path=self.path)]

    @hookimpl
    def podtemplate_build_manifests(self, task: Task, roles: Sequence[RoleSpec],
                                    pods: Mapping[str, dict[str, Any]],
                                    context: RenderContext) -> list[dict[str, Any]]:
        if self.path:
            manifests = [{"apiVersion": "example.com/v1", "kind": "Wrapper",
                          "metadata": {"name": "planted"},
                          "spec": {"template": dict(pods["pod"])}}]
        else:
            manifests = [dict(pod_manifest(task, pods["pod"], context))]
        self.change_objects(manifests)
        return manifests


@pytest.mark.parametrize("name", sorted(OBJECT_CHANGES))
def test_render_refuses_the_objects_a_build_returns_as_the_api_server_would(name: str) -> None:
    """What ``podtemplate validate`` refuses in a render's output, the render refuses:
    a Pod's unknown top-level field, an object's own bad label, a ``v1 Pod`` that is no
    role's, a ConfigMap value that is not a string."""
    change, shape, field, what = OBJECT_CHANGES[name]
    manager = build_plugin_manager([ObjectBuild(change, shape)], load_entry_points=False)
    with pytest.raises(ApiRuleError) as caught:
        render(PLANTED, platform=Platform(), plugin_manager=manager)
    assert caught.value.task == "planted" and caught.value.field == field
    assert f"(in {what})" in caught.value.message


@pytest.mark.parametrize("shape", ["pod", "wrapped"])
def test_objects_built_right_render(shape: str) -> None:
    manager = build_plugin_manager([ObjectBuild(lambda manifests: None, shape)],
                                   load_entry_points=False)
    [built] = render(PLANTED, platform=Platform(), plugin_manager=manager)
    assert built["kind"] == ("Wrapper" if shape == "wrapped" else "Pod")


@pytest.mark.parametrize("name", sorted(CHANGES) + sorted(OBJECT_CHANGES))
def test_the_cli_exits_2_on_what_the_build_emits(name: str, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    if name in CHANGES:
        plugin: CopyingBuild = CopyingBuild(CHANGES[name][0], False)
        field = CHANGES[name][1]
    else:
        change, shape, field, _ = OBJECT_CHANGES[name]
        plugin = ObjectBuild(change, shape)
    manager = build_plugin_manager([plugin], load_entry_points=False)
    monkeypatch.setattr(sys.modules["podtemplate.render"], "build_plugin_manager",
                        lambda: manager)
    module = tmp_path / f"planted_{name.replace('-', '_')}.py"
    module.write_text(textwrap.dedent("""
        from podtemplate import Task
        planted = Task(name="planted", task_type="planted", image="busybox:1.36")
    """))
    result = CliRunner().invoke(main, ["render", str(module)], catch_exceptions=False)
    assert result.exit_code == 2, result.output
    assert field.split("[")[0] in result.output

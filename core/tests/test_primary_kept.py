"""The task's own container survives every layer, or the layer that removes it is named:
the policy's `enforce` (above the operator's layer, so a removal there was an internal
error, or a pod without the task's container and exit 0), a template's `default` entry,
and a `$patch: replace` of the whole spec below the task's settings, which starts the pod
from that spec whether or not the task sets anything of its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from podtemplate import Platform, PodTemplate, render, resolve_pod, task
from podtemplate.dispatch import define_roles
from podtemplate.errors import DefinitionError, PlatformConfigError, PodTemplateError
from podtemplate.platform import load_platform
from podtemplate.render import make_context


@task
def bare() -> None: ...


REPLACING = {"$patch": "replace", "nodeSelector": {"pool": "spot"}}


@task(interruptible=True)
def spot() -> None: ...


@task(interruptible=True, image="python:3.12")
def spot_with_image() -> None: ...


@task(pod_template=PodTemplate(pod_spec=REPLACING))
def alone() -> None: ...


@task(pod_template=PodTemplate(pod_spec=REPLACING), image="python:3.12")
def alone_with_image() -> None: ...


@task(pod_template=PodTemplate(pod_spec={"containers": [{"name": "default",
                                                         "$patch": "delete"}]}))
def removing() -> None: ...


@task(pod_template=PodTemplate(pod_spec={"containers": None}))
def removing_the_list() -> None: ...


@task(pod_template=PodTemplate(pod_spec={"containers": {"$patch": "delete"}}))
def deleting_the_list() -> None: ...


def pod_of(manifests: list[dict[str, Any]]) -> dict[str, Any]:
    (pod,) = [m for m in manifests if m["kind"] == "Pod"]
    return pod


@pytest.mark.parametrize("containers", [
    None,  # the list deleted
    {"$patch": "delete"},  # the list deleted, as a directive
])
def test_an_enforce_that_removes_the_task_container_is_named(containers: Any,
                                                            tmp_path: Path) -> None:
    written = tmp_path / "platform.yaml"
    written.write_text(json.dumps({"defaultImage": "python:3.11",
                                   "policy": {"enforce": {"containers": containers}}}))
    platform = load_platform(written)
    with pytest.raises(PlatformConfigError, match=r"policy\.enforce removes the primary") as caught:
        render(bare, platform=platform)
    assert caught.value.field == "policy.enforce.containers" and caught.value.exit_code == 2
    assert caught.value.file == str(written)
    context = make_context(platform=platform)
    (role,) = define_roles(bare, context)
    with pytest.raises(PlatformConfigError, match=r"policy\.enforce removes"):  # explain's fold
        resolve_pod(bare, role, context, provenance={})


@pytest.mark.parametrize(("containers", "field"), [
    ([{"name": "default", "$patch": "replace", "image": "registry.example/base:1"}],
     "policy.enforce.containers[default].$patch"),
    ([{"$patch": "replace"}, {"name": "side", "image": "busybox:1.36"}],
     "policy.enforce.containers.$patch"),
    # deleted, then given again: a pod with the image alone, without the task's command
    ([{"name": "default", "$patch": "delete"}, {"name": "primary", "image": "x:1"}],
     "policy.enforce.containers[default].$patch"),
    ([{"name": "primary", "$patch": "delete"}], "policy.enforce.containers[primary].$patch"),
])
def test_an_enforce_that_replaces_or_deletes_the_task_container_is_refused_at_load(
        containers: list[dict[str, Any]], field: str) -> None:
    """It would drop what the task and its operator set there: the pod rendered with
    exit 0 and no command (or without the task's container), so the task never ran."""
    with pytest.raises(PodTemplateError, match=r"`\$patch: \w+` on the container") as caught:
        Platform(policy={"enforce": {"containers": containers}})
    assert caught.value.field == field


@pytest.mark.parametrize("tasks", [(spot, spot_with_image), (alone, alone_with_image)])
def test_replacing_the_spec_below_the_task_settings_renders_with_or_without_them(
        tasks: tuple[Any, Any]) -> None:
    """A task that sets nothing of its own (its image is the platform's default) loses
    nothing to the replace: its container is there, as when it sets an image."""
    platform = Platform(defaultImage="python:3.11", interruptible=REPLACING)
    for chosen, image in zip(tasks, ("python:3.11", "python:3.12"), strict=True):
        spec = pod_of(render(chosen, platform=platform))["spec"]
        assert spec["nodeSelector"] == {"pool": "spot"}
        (container,) = spec["containers"]
        assert container["name"] == "primary" and container["image"] == image
        assert container["command"][:2] == ["python", "-m"]


@pytest.mark.parametrize("chosen", [removing, removing_the_list, deleting_the_list])
def test_a_template_that_deletes_every_container_is_named(chosen: Any) -> None:
    """A `default` entry deleted, the list set to null or deleted: 'a layer' before."""
    with pytest.raises(DefinitionError, match="task template deletes the primary container"):
        render(chosen, platform=Platform(defaultImage="python:3.11"))

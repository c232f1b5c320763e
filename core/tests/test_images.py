"""flytekit's image placeholders (images.py): resolved from platform.yaml's ``images:`` as
Flyte's image config resolves them, or refused with one line naming the placeholder."""

from __future__ import annotations

import pytest
from podtemplate import DefinitionError, Platform, PlatformConfigError
from podtemplate.images import resolve_image, resolve_pod_images, split_image

IMAGES = {"trainer": "ghcr.io/acme/train:1.2", "local": "localhost:5000/x",
          "pinned": "ghcr.io/acme/train@sha256:" + "a" * 64}


@pytest.mark.parametrize(("reference", "parts"), [
    ("ghcr.io/acme/train:1.2", ("ghcr.io/acme/train", "1.2")),
    ("localhost:5000/x", ("localhost:5000/x", "latest")),
    ("python", ("python", "latest")),
])
def test_a_reference_splits_into_fqn_and_version(reference: str,
                                                 parts: tuple[str, str]) -> None:
    assert split_image(reference) == parts


@pytest.mark.parametrize(("image", "resolved"), [
    ("{{.image.trainer.fqn}}:{{.image.trainer.version}}", "ghcr.io/acme/train:1.2"),
    ("{{ .image.trainer.fqn }}:v9", "ghcr.io/acme/train:v9"),
    ("{{.images.trainer}}", "ghcr.io/acme/train:1.2"),
    ("{{.image.pinned}}", IMAGES["pinned"]),
    ("{{.image.local.fqn}}:{{.image.local.version}}", "localhost:5000/x:latest"),
    ("python:3.11", "python:3.11"),
])
def test_placeholders_are_replaced_from_the_map(image: str, resolved: str) -> None:
    assert resolve_image(image, IMAGES) == resolved


@pytest.mark.parametrize(("image", "message"), [
    ("{{.image.gpu.fqn}}:1", r"\{\{.image.gpu.fqn\}\} names no image .*known: local, "
     r"pinned, trainer"),
    ("{{.image.trainer.tag}}", r"'tag' is not fqn or version"),
    ("{{.image.pinned.fqn}}", r"images.pinned is a digest reference"),
    ("{{.inputs.a}}", r"holds a placeholder podtemplate does not know"),
])
def test_a_placeholder_that_cannot_be_resolved_is_one_line_with_the_fix(
        image: str, message: str) -> None:
    with pytest.raises(DefinitionError, match=message) as raised:
        resolve_image(image, IMAGES)
    assert raised.value.fix and "\n" not in str(raised.value)


def test_a_pod_is_resolved_without_touching_the_containers_it_was_given() -> None:
    sidecar = {"name": "side", "image": "{{.image.trainer}}"}
    init = [{"name": "warm", "image": "busybox"}]
    spec = {"containers": [{"name": "main", "image": "python:3.11"}, sidecar],
            "initContainers": init}
    resolve_pod_images(spec, IMAGES)
    assert spec["containers"][1]["image"] == "ghcr.io/acme/train:1.2"
    assert sidecar["image"] == "{{.image.trainer}}"  # a template's dict stays as it was
    assert spec["initContainers"] is init  # nothing to resolve: not copied


def test_an_unresolved_container_is_located_by_task_role_and_field() -> None:
    spec = {"containers": [{"name": "main", "image": "{{.image.nope}}"}]}
    with pytest.raises(DefinitionError) as raised:
        resolve_pod_images(spec, IMAGES, task="train", role="worker")
    assert str(raised.value).startswith(
        "task 'train', role 'worker', spec.containers[main].image: image placeholder")


def test_the_platform_images_map_takes_full_references_only() -> None:
    assert Platform(images={"default": "python:3.11"}).images == {"default": "python:3.11"}
    for bad in ("", "{{.image.other}}", 3):
        with pytest.raises(PlatformConfigError, match="images"):
            Platform(images={"default": bad})
    with pytest.raises(PlatformConfigError):
        Platform(imagez={"default": "python:3.11"})  # unknown keys stay errors

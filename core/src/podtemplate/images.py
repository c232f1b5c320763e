"""flytekit's image placeholders: ``{{.image.NAME.fqn}}:{{.image.NAME.version}}`` and
``{{.image.NAME}}`` (``.images.`` too), resolved from platform.yaml's ``images:`` map
(name -> full image reference), as Flyte's image config resolves them. A placeholder
naming no image there, or any ``{{`` left in an image, is refused with one line."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .errors import DefinitionError, PodTemplateError

__all__ = ["IMAGE_PLACEHOLDER", "check_image_reference", "resolve_image",
           "resolve_pod_images", "split_image"]

IMAGE_PLACEHOLDER = re.compile(r"\{\{\s*\.images?\.([A-Za-z0-9_-]+)(?:\.([A-Za-z0-9_]+))?\s*\}\}")
_PARTS = ("fqn", "version")


def split_image(reference: str) -> tuple[str, str]:
    """(fqn, version) of ``registry/name:tag``; no tag is Docker's ``latest``."""
    slash = reference.rfind("/")
    colon = reference.rfind(":")
    if colon > slash:
        return reference[:colon], reference[colon + 1:]
    return reference, "latest"


def check_image_reference(name: str, reference: Any) -> str:
    """An ``images:`` entry of platform.yaml: a full image reference, no placeholder."""
    if not isinstance(reference, str) or not reference.strip() or "{{" in reference:
        raise ValueError(f"images.{name} must be a full image reference such as "
                         f"ghcr.io/acme/train:1, got {reference!r}")
    return reference


def resolve_image(image: str, images: Mapping[str, str]) -> str:
    """``image`` with each placeholder replaced from ``images``; a :class:`DefinitionError`
    (no location: the caller adds it) names the first that cannot be."""

    def replace(match: re.Match[str]) -> str:
        name, part = match.group(1), match.group(2)
        reference = images.get(name)
        if reference is None:
            known = ", ".join(sorted(images)) or "none"
            raise DefinitionError(
                f"image placeholder {match.group(0)} names no image of platform.yaml's "
                f"images (known: {known})",
                fix=f"add images: {{{name}: REGISTRY/IMAGE:TAG}} to platform.yaml, or write "
                "the image itself")
        if part is None:
            return reference
        if part not in _PARTS or "@" in reference:
            raise DefinitionError(
                f"image placeholder {match.group(0)}: "
                + (f"{part!r} is not fqn or version" if part not in _PARTS
                   else f"images.{name} is a digest reference"),
                fix=f"write {{{{.image.{name}}}}} for the whole reference, or "
                f"{{{{.image.{name}.fqn}}}}:{{{{.image.{name}.version}}}}")
        return split_image(reference)[_PARTS.index(part)]

    resolved = IMAGE_PLACEHOLDER.sub(replace, image)
    if "{{" in resolved:
        raise DefinitionError(f"image {image!r} holds a placeholder podtemplate does not "
                              "know", fix="write {{.image.NAME}} (or .fqn/.version) with NAME "
                              "in platform.yaml's images, or the image itself")
    return resolved


def resolve_pod_images(spec: dict[str, Any], images: Mapping[str, str], *,
                       task: str | None = None, role: str | None = None) -> None:
    """Resolve the placeholders of every container's image of a pod spec, in place; a
    container (and its list) is copied before it changes (either may be a template's)."""
    for kind in ("initContainers", "containers"):
        containers = spec.get(kind)
        if not containers or not any("{{" in str(c.get("image") or "") for c in containers):
            continue
        spec[kind] = containers = list(containers)
        for index, container in enumerate(containers):
            image = container.get("image")
            if not isinstance(image, str) or "{{" not in image:
                continue
            try:
                resolved = resolve_image(image, images)
            except PodTemplateError as error:
                field = f"spec.{kind}[{container.get('name', index)}].image"
                raise error.located(task=task, role=role, field=field) from None
            containers[index] = {**container, "image": resolved}

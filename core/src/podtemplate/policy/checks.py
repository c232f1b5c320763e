"""The built-in policy checks (the plugin that runs them is :mod:`.builtin`): the Pod
Security Standards, allowed registries, resource ceilings and locked fields."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..model.names import parse_quantity
from .paths import match_path
from .pss import pod_security
from .pss_facts import CONTAINER_LISTS
from .subject import PolicySubject
from .violations import NOT_SET, Origin, Violation

__all__ = ["builtin_violations", "registry_violations", "ceiling_violations",
           "locked_violations"]


def builtin_violations(subject: PolicySubject) -> list[Violation]:
    """What the built-in checks find in the subject's pod, for the policy it names."""
    policy = subject.policy
    found: list[Violation] = []
    if policy.pod_security != "privileged":
        found += pod_security(subject.pod, policy.pod_security)
    if policy.allowed_registries is not None:
        found += registry_violations(subject.pod, policy.allowed_registries)
    if policy.max_resources:
        found += ceiling_violations(subject.pod, policy.max_resources)
    if policy.locked:
        found += locked_violations(subject)
    return found


def _containers(pod: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    spec = pod.get("spec") or {}
    for list_name in CONTAINER_LISTS:
        for index, container in enumerate(spec.get(list_name) or ()):
            if isinstance(container, Mapping):
                yield f"spec.{list_name}[{container.get('name') or index}]", container


def registry_violations(pod: Mapping[str, Any], prefixes: Sequence[str]) -> list[Violation]:
    """Every container image that starts with none of ``prefixes``."""
    found = []
    for path, container in _containers(pod):
        image = container.get("image")
        if isinstance(image, str) and not image.startswith(tuple(prefixes)):
            found.append(Violation(f"{path}.image", "allowedRegistries", image,
                                   "use an image from " + ", ".join(prefixes)))
    return found


def ceiling_violations(pod: Mapping[str, Any], ceiling: Mapping[str, str]
                       ) -> list[Violation]:
    """Every container request or limit above the ceiling (compared as quantities)."""
    found = []
    for path, container in _containers(pod):
        resources = container.get("resources") or {}
        for kind in ("requests", "limits"):
            for name, value in (resources.get(kind) or {}).items():
                top = ceiling.get(name)
                if top is not None and parse_quantity(str(value)) > parse_quantity(top):
                    found.append(Violation(
                        f"{path}.resources.{kind}.{name}", "maxResources", value,
                        f"ask for at most {top} {name} per container"))
    return found


_ABSENT = object()


def locked_violations(subject: PolicySubject) -> list[Violation]:
    """Every locked field whose final value differs from what the platform's layers
    alone give it: the task's layers changed (set, replaced or removed) it."""
    if subject.platform_pod is None or not subject.touched(subject.policy.locked):
        return []
    platform_pod = subject.platform_pod()
    found = []
    for pattern in subject.policy.locked:
        final = dict(match_path(subject.pod, pattern))
        given = dict(match_path(platform_pod, pattern))
        for path in sorted(final.keys() | given.keys()):
            value = final.get(path, _ABSENT)
            if value == given.get(path, _ABSENT):
                continue
            setters = [layer for layer in subject.provenance.setters(path)
                       if layer.kind == "task"]
            violation = Violation(
                path, "locked", NOT_SET if value is _ABSENT else value,
                f"only the platform may set {pattern}: remove it from the task's "
                "templates, settings and overrides")
            if setters:
                top = setters[-1]
                violation = violation.located(origin=Origin(top.label, top.file))
            found.append(violation)
    return found

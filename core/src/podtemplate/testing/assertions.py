"""Assertions shared by the tests of core and every plugin."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["assert_valid_pod", "assert_valid_pod_template", "container", "env_of"]


def assert_valid_pod(manifest: Mapping[str, Any]) -> None:
    """A ``v1 Pod`` validated strictly with the kubernetes client models."""
    from kubernetes.client import V1Pod

    assert manifest["apiVersion"] == "v1" and manifest["kind"] == "Pod", manifest.get("kind")
    V1Pod.model_validate(manifest)


def assert_valid_pod_template(template: Mapping[str, Any]) -> None:
    """A PodTemplateSpec (``metadata`` + ``spec``) validated strictly."""
    from kubernetes.client import V1PodTemplateSpec

    V1PodTemplateSpec.model_validate(template)


def container(pod: Mapping[str, Any], name: str) -> dict[str, Any]:
    """The one container named ``name`` of a pod or PodTemplateSpec."""
    spec = pod["spec"]
    matches = [c for c in spec["containers"] if c["name"] == name]
    assert len(matches) == 1, f"container {name} appears {len(matches)} times"
    return matches[0]


def env_of(container_: Mapping[str, Any]) -> dict[str, str | None]:
    """A container's env as a dict, asserting no name appears twice."""
    names = [e["name"] for e in container_.get("env", [])]
    assert len(names) == len(set(names)), f"duplicate env names: {names}"
    return {e["name"]: e.get("value") for e in container_.get("env", [])}

"""The policy: section of platform.yaml, and the built-in registry and ceiling checks on
single pods."""

from __future__ import annotations

from pathlib import Path

import pytest
from podtemplate import Platform
from podtemplate.errors import PlatformConfigError
from podtemplate.platform import load_platform
from podtemplate.policy import Policy
from podtemplate.policy.checks import ceiling_violations, registry_violations


def write_platform(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "platform.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_policy_section_loads_with_every_key(tmp_path: Path) -> None:
    platform = load_platform(write_platform(tmp_path, """
policy:
  podSecurity: restricted
  enforce:
    automountServiceAccountToken: false
  locked: [spec.serviceAccountName, spec.securityContext, "spec.containers[*].securityContext"]
  allowedRegistries: [ghcr.io/acme/, registry.acme.io/]
  maxResources: {cpu: 32, memory: 256Gi, nvidia.com/gpu: "8"}
"""))
    policy = platform.policy
    assert policy.pod_security == "restricted"
    assert policy.enforce == {"automountServiceAccountToken": False}
    assert policy.locked[2] == "spec.containers[*].securityContext"
    assert policy.allowed_registries == ("ghcr.io/acme/", "registry.acme.io/")
    assert policy.max_resources == {"cpu": "32", "memory": "256Gi", "nvidia.com/gpu": "8"}
    assert policy.active


def test_no_policy_section_asks_for_nothing() -> None:
    assert not Platform().policy.active
    assert Platform().policy.pod_security == "privileged"


@pytest.mark.parametrize(("text", "field", "message"), [
    ("policy: {podSecurity: strict}", "policy.podSecurity", "privileged"),
    ("policy: {enforce: {hostNetwrk: true}}", "policy.enforce.hostNetwrk", "unknown field"),
    ("policy: {locked: [spec.serviceAcount]}", "policy.locked", "serviceAcount"),
    ("policy: {locked: [status.phase]}", "policy.locked", "status"),
    ("policy: {locked: ['spec.containers[']}", "policy.locked", "not a field path"),
    ("policy: {allowedRegistries: []}", "policy.allowedRegistries", "at least one"),
    ("policy: {maxResources: {cpu: 4 cores}}", "policy.maxResources", "quantity"),
    ("policy: {podSecurity: baseline, audit: true}", "policy.audit", "unknown key 'audit'"),
])
def test_a_bad_policy_fails_at_load_time_naming_the_key(
        tmp_path: Path, text: str, field: str, message: str) -> None:
    with pytest.raises(PlatformConfigError) as raised:
        load_platform(write_platform(tmp_path, text))
    assert raised.value.field is not None and raised.value.field.startswith(field)
    assert message in str(raised.value)


def pod_with(*containers: dict[str, object]) -> dict[str, object]:
    return {"spec": {"containers": list(containers[:1]), "initContainers": list(containers[1:])}}


def test_every_image_must_come_from_an_allowed_registry() -> None:
    pod = pod_with({"name": "main", "image": "ghcr.io/acme/app:1"},
                   {"name": "setup", "image": "docker.io/evil/miner:latest"})
    found = registry_violations(pod, ("ghcr.io/acme/", "registry.acme.io/"))
    assert [(v.path, v.rule, v.value) for v in found] == [
        ("spec.initContainers[setup].image", "allowedRegistries",
         "docker.io/evil/miner:latest")]
    # a prefix is a prefix: ghcr.io/acme-evil/ does not start with ghcr.io/acme/
    assert registry_violations(pod_with({"name": "m", "image": "ghcr.io/acme-evil/x"}),
                               ("ghcr.io/acme/",))


def test_requests_and_limits_are_compared_as_quantities() -> None:
    pod = pod_with({"name": "main", "image": "x", "resources": {
        "requests": {"cpu": "32000m", "memory": "257Gi"},
        "limits": {"cpu": "33", "nvidia.com/gpu": "8", "memory": "0.25Ti"}}})
    found = ceiling_violations(pod, Policy(maxResources={
        "cpu": "32", "memory": "256Gi", "nvidia.com/gpu": "8"}).max_resources)
    assert sorted(v.path for v in found) == [
        "spec.containers[main].resources.limits.cpu",
        "spec.containers[main].resources.requests.memory"]

"""The Pod Security Standards checks on single pods: every hostile case is rejected by
the right control, baseline-only cases pass baseline, compliant pods pass."""

from __future__ import annotations

from typing import Any

import pytest
from podtemplate import check_pod_template
from podtemplate.merge import merge
from podtemplate.policy import NOT_SET, pod_security
from podtemplate.testing import assert_valid_pod_template
from podtemplate.testing.policy_corpus import (
    HOSTILE_CASES,
    RESTRICTED_POD_SECURITY,
    SAFE_CONTAINER_SECURITY,
    HostileCase,
)

IMAGE = "ghcr.io/acme/app:1"


def compliant_pod(**spec: Any) -> dict[str, Any]:
    pod = {"metadata": {"labels": {"app": "x"}}, "spec": {
        "securityContext": dict(RESTRICTED_POD_SECURITY),
        "containers": [{"name": "primary", "image": IMAGE,
                        "securityContext": dict(SAFE_CONTAINER_SECURITY)}]}}
    return merge(pod, {"spec": spec}, root="")


def hostile_pod(case: HostileCase) -> dict[str, Any]:
    pod = merge(compliant_pod(), {"metadata": {"annotations": case.annotations},
                                  "spec": case.spec}, root="")
    if "ephemeralContainers" in case.spec:
        # The one case the API server itself refuses in a pod or template (ephemeral
        # containers are added to running pods); a policy judges them wherever they are.
        assert [p.path for p in check_pod_template(pod)] == ["spec.ephemeralContainers"]
    else:
        assert_valid_pod_template(pod)
    return pod


def found(pod: dict[str, Any], level: str) -> set[tuple[str, str]]:
    return {(v.path, v.rule) for v in pod_security(pod, level)}


def test_the_corpus_covers_every_control_of_both_profiles() -> None:
    controls = {case.control for case in HOSTILE_CASES}
    assert controls == {
        "hostProcess", "hostNamespaces", "privileged", "capabilities", "hostPathVolumes",
        "hostPorts", "hostProbes", "appArmor", "seLinuxOptions", "procMount",
        "seccompProfile", "sysctls", "volumeTypes", "allowPrivilegeEscalation",
        "runAsNonRoot", "runAsUser"}
    assert len(HOSTILE_CASES) >= 30


@pytest.mark.parametrize("case", HOSTILE_CASES, ids=lambda case: case.name)
def test_restricted_rejects_every_hostile_case(case: HostileCase) -> None:
    assert (case.path, f"restricted: {case.control}") in found(hostile_pod(case), "restricted")


@pytest.mark.parametrize("case", HOSTILE_CASES, ids=lambda case: case.name)
def test_baseline_rejects_its_cases_and_passes_the_restricted_only_ones(
        case: HostileCase) -> None:
    violations = found(hostile_pod(case), "baseline")
    if case.level == "baseline":
        assert (case.path, f"baseline: {case.control}") in violations
    else:
        assert violations == set()


@pytest.mark.parametrize("case", HOSTILE_CASES, ids=lambda case: case.name)
def test_privileged_lets_everything_through(case: HostileCase) -> None:
    assert found(hostile_pod(case), "privileged") == set()


def test_a_compliant_pod_passes_both_profiles() -> None:
    pod = compliant_pod(
        initContainers=[{"name": "setup", "image": IMAGE,
                         "securityContext": dict(SAFE_CONTAINER_SECURITY)}],
        volumes=[{"name": n, source: spec} for n, source, spec in (
            ("a", "emptyDir", {}), ("b", "configMap", {"name": "c"}),
            ("c", "secret", {"secretName": "s"}), ("d", "persistentVolumeClaim",
                                                    {"claimName": "p"}),
            ("e", "projected", {"sources": []}), ("f", "downwardAPI", {}),
            # a CSI driver name has 2-63 characters (k8s validateCSIDriverName); an
            # ephemeral volume has its volumeClaimTemplate (k8s validateEphemeralVolumeSource)
            ("g", "csi", {"driver": "d.example.com"}), ("h", "ephemeral", {
                "volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"], "resources":
                                                 {"requests": {"storage": "1Gi"}}}}}))])
    pod["spec"]["securityContext"]["sysctls"] = [
        {"name": "net.ipv4.ip_unprivileged_port_start", "value": "0"},
        {"name": "net.ipv4.tcp_rmem", "value": "4096 87380 6291456"}]
    primary = pod["spec"]["containers"][0]
    primary["securityContext"].update(
        {"capabilities": {"drop": ["ALL"], "add": ["NET_BIND_SERVICE"]}, "runAsUser": 1000,
         "procMount": "Default", "seLinuxOptions": {"type": "container_t", "level": "s0:c1"},
         "appArmorProfile": {"type": "Localhost", "localhostProfile": "k8s-default"}})
    primary["ports"] = [{"containerPort": 8080, "hostPort": 0}]
    primary["readinessProbe"] = {"httpGet": {"port": 8080, "host": ""}}
    pod["metadata"]["annotations"] = {
        "container.apparmor.security.beta.kubernetes.io/primary": "localhost/k8s-default"}
    assert_valid_pod_template(pod)
    assert found(pod, "restricted") == set()
    assert found(pod, "baseline") == set()


def test_non_root_and_seccomp_may_be_set_per_container_instead_of_per_pod() -> None:
    pod = compliant_pod()
    pod["spec"]["securityContext"] = {}
    pod["spec"]["containers"][0]["securityContext"].update(RESTRICTED_POD_SECURITY)
    assert found(pod, "restricted") == set()


def test_a_missing_requirement_is_reported_as_not_set() -> None:
    pod = compliant_pod()
    pod["spec"]["securityContext"] = {}
    pod["spec"]["containers"][0]["securityContext"] = {}
    violations = {v.path: v for v in pod_security(pod, "restricted")}
    for field in ("runAsNonRoot", "seccompProfile.type", "allowPrivilegeEscalation",
                  "capabilities.drop"):
        violation = violations[f"spec.containers[primary].securityContext.{field}"]
        assert violation.value is NOT_SET
        assert "not set" in str(violation) and violation.fix


def test_windows_pods_are_spared_the_linux_only_controls() -> None:
    pod = compliant_pod(os={"name": "windows"})
    pod["spec"]["securityContext"] = {"runAsNonRoot": True}
    pod["spec"]["containers"][0]["securityContext"] = {}
    assert found(pod, "restricted") == set()
    pod["spec"]["containers"][0]["securityContext"] = {"privileged": True}
    assert ("spec.containers[primary].securityContext.privileged",
            "restricted: privileged") in found(pod, "restricted")


def test_a_field_both_capability_controls_reject_is_reported_once() -> None:
    pod = compliant_pod()
    pod["spec"]["containers"][0]["securityContext"]["capabilities"]["add"] = ["SYS_ADMIN"]
    violations = [v for v in pod_security(pod, "restricted")
                  if v.path.endswith("capabilities.add")]
    assert len(violations) == 1 and "NET_BIND_SERVICE" in violations[0].fix


def test_every_violation_of_a_pod_is_listed() -> None:
    cases = [c for c in HOSTILE_CASES if c.name in
             ("host-network", "privileged-primary", "host-path-root", "uid-zero-pod")]
    pod = compliant_pod()
    for case in cases:
        pod = merge(pod, {"spec": case.spec}, root="")
    assert {(c.path, f"restricted: {c.control}") for c in cases} <= found(pod, "restricted")


def test_an_unknown_level_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown Pod Security Standard level"):
        pod_security(compliant_pod(), "strict")

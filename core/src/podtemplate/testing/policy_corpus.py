"""Hostile pod templates: one or more for each control of the Pod Security Standards.

Each case is a fragment a task could carry in any layer (task template, role template,
run override, the platform's interruptible fragment, task settings where it fits): a
PodSpec fragment whose primary container is named ``primary``, plus pod annotations.
``level`` is the first profile that rejects it (``baseline`` cases break both profiles,
``restricted`` ones pass ``baseline``); ``control`` and ``path`` say which violation
a policy check must report, the primary container being ``[primary]`` in the path.

A policy plugin or a task type can run its own layers over the corpus: none may let a
case through under ``restricted``. Fragments hold only API-valid values, so a schema
check cannot be what stops them - but for ``privileged-ephemeral``: the API server refuses
ephemeral containers in a new pod or a pod template, and render does too once the policy
has judged the pod.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["HostileCase", "HOSTILE_CASES", "SAFE_CONTAINER_SECURITY", "RESTRICTED_POD_SECURITY"]

# What a compliant cluster template gives every container and the pod.
SAFE_CONTAINER_SECURITY: dict[str, Any] = {
    "allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}
RESTRICTED_POD_SECURITY: dict[str, Any] = {
    "runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}}

_IMAGE = "ghcr.io/acme/tool:1"


def _primary(security: dict[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "primary", **fields}
    if security is not None:
        container["securityContext"] = security
    return {"containers": [container]}


def _extra(list_name: str, name: str, security: dict[str, Any], **fields: Any
           ) -> dict[str, Any]:
    safe = dict(SAFE_CONTAINER_SECURITY)
    if security.get("privileged"):
        # the API server refuses allowPrivilegeEscalation: false on a privileged container
        del safe["allowPrivilegeEscalation"]
    return {list_name: [{"name": name, "image": _IMAGE,
                         "securityContext": {**safe, **security}, **fields}]}


@dataclass(frozen=True)
class HostileCase:
    name: str
    spec: dict[str, Any]
    level: Literal["baseline", "restricted"]
    control: str
    path: str
    annotations: dict[str, str] = field(default_factory=dict)

    @property
    def touches_primary_only(self) -> bool:
        """Whether the fragment sets nothing but the primary container's fields (task
        settings could carry it)."""
        return list(self.spec) == ["containers"] and len(self.spec["containers"]) == 1 \
            and self.spec["containers"][0]["name"] == "primary"


_PROBE = {"httpGet": {"port": 8080, "path": "/health", "host": "10.0.0.1"}}
_HOOK = {"preStop": {"tcpSocket": {"port": 22, "host": "169.254.169.254"}}}

HOSTILE_CASES: tuple[HostileCase, ...] = (
    # -- baseline: host namespaces
    HostileCase("host-network", {"hostNetwork": True}, "baseline", "hostNamespaces",
                "spec.hostNetwork"),
    HostileCase("host-pid", {"hostPID": True}, "baseline", "hostNamespaces", "spec.hostPID"),
    HostileCase("host-ipc", {"hostIPC": True}, "baseline", "hostNamespaces", "spec.hostIPC"),
    # -- privileged containers, in each container list
    # (with allowPrivilegeEscalation: true - the API server refuses false on a privileged
    # container, and a compliant cluster template sets false)
    HostileCase("privileged-primary",
                _primary({"privileged": True, "allowPrivilegeEscalation": True}), "baseline",
                "privileged", "spec.containers[primary].securityContext.privileged"),
    HostileCase("privileged-init", _extra("initContainers", "setup", {"privileged": True}),
                "baseline", "privileged", "spec.initContainers[setup].securityContext.privileged"),
    HostileCase("privileged-ephemeral",
                _extra("ephemeralContainers", "debug", {"privileged": True}), "baseline",
                "privileged", "spec.ephemeralContainers[debug].securityContext.privileged"),
    # -- capabilities
    HostileCase("cap-sys-admin", _primary({"capabilities": {"add": ["SYS_ADMIN"]}}),
                "baseline", "capabilities",
                "spec.containers[primary].securityContext.capabilities.add"),
    HostileCase("cap-net-admin-sidecar",
                _extra("containers", "side", {"capabilities": {"add": ["NET_ADMIN"],
                                                               "drop": ["ALL"]}}),
                "baseline", "capabilities",
                "spec.containers[side].securityContext.capabilities.add"),
    HostileCase("cap-setuid", _primary({"capabilities": {"add": ["SETUID"]}}),
                "restricted", "capabilities",
                "spec.containers[primary].securityContext.capabilities.add"),
    HostileCase("cap-keeps-all", _primary({"capabilities": {"drop": ["NET_RAW"]}}),
                "restricted", "capabilities",
                "spec.containers[primary].securityContext.capabilities.drop"),
    # -- volumes
    HostileCase("host-path-root", {"volumes": [{"name": "root", "hostPath": {"path": "/"}}]},
                "baseline", "hostPathVolumes", "spec.volumes[root].hostPath"),
    HostileCase("nfs-volume", {"volumes": [{"name": "share",
                                            "nfs": {"server": "nfs.acme", "path": "/"}}]},
                "restricted", "volumeTypes", "spec.volumes[share]"),
    HostileCase("git-repo-volume", {"volumes": [{"name": "code", "gitRepo": {
        "repository": "https://example.com/x.git"}}]}, "restricted", "volumeTypes",
                "spec.volumes[code]"),
    # -- host ports and host probes
    HostileCase("host-port", _primary(ports=[{"containerPort": 8080, "hostPort": 8080}]),
                "baseline", "hostPorts", "spec.containers[primary].ports[8080,TCP].hostPort"),
    HostileCase("host-port-init", _extra("initContainers", "setup", {},
                                         ports=[{"containerPort": 22, "hostPort": 22}]),
                "baseline", "hostPorts", "spec.initContainers[setup].ports[22,TCP].hostPort"),
    HostileCase("probe-host", _primary(livenessProbe=_PROBE), "baseline", "hostProbes",
                "spec.containers[primary].livenessProbe.httpGet.host"),
    HostileCase("hook-host", _primary(lifecycle=_HOOK), "baseline", "hostProbes",
                "spec.containers[primary].lifecycle.preStop.tcpSocket.host"),
    # -- AppArmor
    HostileCase("apparmor-pod", {"securityContext": {"appArmorProfile": {"type": "Unconfined"}}},
                "baseline", "appArmor", "spec.securityContext.appArmorProfile.type"),
    HostileCase("apparmor-container", _primary({"appArmorProfile": {"type": "Unconfined"}}),
                "baseline", "appArmor",
                "spec.containers[primary].securityContext.appArmorProfile.type"),
    HostileCase("apparmor-annotation", {}, "baseline", "appArmor",
                "metadata.annotations.container.apparmor.security.beta.kubernetes.io/primary",
                annotations={"container.apparmor.security.beta.kubernetes.io/primary":
                             "unconfined"}),
    # -- SELinux
    HostileCase("selinux-type", {"securityContext": {"seLinuxOptions": {"type": "spc_t"}}},
                "baseline", "seLinuxOptions", "spec.securityContext.seLinuxOptions.type"),
    HostileCase("selinux-user", _primary({"seLinuxOptions": {"user": "system_u"}}),
                "baseline", "seLinuxOptions",
                "spec.containers[primary].securityContext.seLinuxOptions.user"),
    HostileCase("selinux-role", _primary({"seLinuxOptions": {"role": "sysadm_r"}}),
                "baseline", "seLinuxOptions",
                "spec.containers[primary].securityContext.seLinuxOptions.role"),
    # -- /proc mount, seccomp, sysctls, Windows HostProcess
    # (Unmasked needs the pod's own user namespace: the API server refuses it otherwise)
    HostileCase("proc-unmasked", {**_primary({"procMount": "Unmasked"}), "hostUsers": False},
                "baseline",
                "procMount", "spec.containers[primary].securityContext.procMount"),
    HostileCase("seccomp-pod-unconfined",
                {"securityContext": {"seccompProfile": {"type": "Unconfined"}}}, "baseline",
                "seccompProfile", "spec.securityContext.seccompProfile.type"),
    HostileCase("seccomp-container-unconfined",
                _primary({"seccompProfile": {"type": "Unconfined"}}), "baseline",
                "seccompProfile", "spec.containers[primary].securityContext.seccompProfile.type"),
    HostileCase("seccomp-removed", {"securityContext": {"seccompProfile": None}},
                "restricted", "seccompProfile",
                "spec.containers[primary].securityContext.seccompProfile.type"),
    HostileCase("sysctl-unsafe", {"securityContext": {"sysctls": [
        {"name": "kernel.msgmax", "value": "65536"}]}}, "baseline", "sysctls",
                "spec.securityContext.sysctls[kernel.msgmax].name"),
    HostileCase("sysctl-net-core", {"securityContext": {"sysctls": [
        {"name": "net.core.somaxconn", "value": "1024"}]}}, "baseline", "sysctls",
                "spec.securityContext.sysctls[net.core.somaxconn].name"),
    HostileCase("host-process-pod", {"securityContext": {"windowsOptions": {
        "hostProcess": True}}}, "baseline", "hostProcess",
                "spec.securityContext.windowsOptions.hostProcess"),
    HostileCase("host-process-container", _primary({"windowsOptions": {"hostProcess": True}}),
                "baseline", "hostProcess",
                "spec.containers[primary].securityContext.windowsOptions.hostProcess"),
    # -- restricted: privilege escalation, non-root
    HostileCase("escalation", _primary({"allowPrivilegeEscalation": True}), "restricted",
                "allowPrivilegeEscalation",
                "spec.containers[primary].securityContext.allowPrivilegeEscalation"),
    HostileCase("escalation-init", _extra("initContainers", "setup",
                                          {"allowPrivilegeEscalation": True}),
                "restricted", "allowPrivilegeEscalation",
                "spec.initContainers[setup].securityContext.allowPrivilegeEscalation"),
    HostileCase("root-pod", {"securityContext": {"runAsNonRoot": False}}, "restricted",
                "runAsNonRoot", "spec.securityContext.runAsNonRoot"),
    HostileCase("root-container", _primary({"runAsNonRoot": False}), "restricted",
                "runAsNonRoot", "spec.containers[primary].securityContext.runAsNonRoot"),
    HostileCase("non-root-removed", {"securityContext": {"runAsNonRoot": None}},
                "restricted", "runAsNonRoot",
                "spec.containers[primary].securityContext.runAsNonRoot"),
    HostileCase("uid-zero-pod", {"securityContext": {"runAsUser": 0}}, "restricted",
                "runAsUser", "spec.securityContext.runAsUser"),
    HostileCase("uid-zero-container", _primary({"runAsUser": 0}), "restricted", "runAsUser",
                "spec.containers[primary].securityContext.runAsUser"),
)

"""What the schema cannot tell the probe generator: valid values where the schema lists
them only in prose, cross references inside one pod, and fields that cannot be set
together. Every entry says why it exists; the field list itself always comes from the
schema (see :mod:`podtemplate.conformance.probe`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import count
from typing import Any

__all__ = ["Spot", "FIELD_HINTS", "DEFINITION_HINTS", "APART", "NOT_PROBED",
           "VOLUME", "BLOCK_VOLUME", "CLAIM"]

VOLUME = "probe-volume"  # an emptyDir the probe's containers mount
BLOCK_VOLUME = "probe-block"  # a PVC the probe's containers use as a raw block device
CLAIM = "probe-claim"  # the pod resource claim the probe's containers reference
KEY_PREFIX = "probe.podtemplate.io/"


def _kebab(name: str) -> str:
    out = "".join(f"-{c.lower()}" if c.isupper() else c for c in name)
    return out.strip("-").replace("--", "-")


@dataclass
class Spot:
    """Where a value is generated: the container slot (``""`` for the pod itself) and the
    top-level field. Every generated text names both, so a value found in a rendered pod
    shows which field of which container it came from."""

    scope: str
    top: str
    numbers: Iterator[int] = field(default_factory=lambda: count(11))

    def text(self, *parts: str) -> str:
        words = ["probe", self.scope, _kebab(self.top)]
        words += [_kebab(p) for p in parts if p not in ("name", self.top)]
        return "-".join(w for w in words if w)[:63].rstrip("-")

    def key(self) -> str:
        return KEY_PREFIX + _kebab(self.top)[:63]

    def path(self, *parts: str) -> str:
        return "/probe/" + "/".join(w for w in (self.scope or "pod", _kebab(self.top),
                                                *map(_kebab, parts)) if w)

    def number(self) -> int:
        return next(self.numbers)

    def ip(self) -> str:
        return f"192.0.2.{1 + self.number() % 254}"  # TEST-NET-1, never routed

    def env_name(self) -> str:
        return self.text().upper().replace("-", "_")

    def port_name(self) -> str:
        return ("probe-" + self.scope)[:15]  # an IANA service name: at most 15 characters


Hint = Any | Callable[[Spot], Any]

# Keyed "<Definition>.<property>" (the definition's short name).
FIELD_HINTS: dict[str, Hint] = {
    # Strings whose valid values the schema gives only in prose: a valid value other than
    # the default, needing no companion field.
    "PodSpec.dnsPolicy": "Default",  # ClusterFirst is the default; None needs dnsConfig
    "PodSpec.restartPolicy": "OnFailure",  # Always is the default, Never what task pods use
    "PodSpec.preemptionPolicy": "Never",  # PreemptLowerPriority is the default
    "PodOS.name": "linux",  # windows forbids most of the securityContext fields
    "Container.imagePullPolicy": "IfNotPresent",  # an untagged image defaults to Always
    "Container.terminationMessagePolicy": "FallbackToLogsOnError",  # File is the default
    # An init container with restartPolicy Always is a sidecar, the only kind that may
    # carry probes, lifecycle hooks and resize policies; regular containers take Never.
    "Container.restartPolicy": lambda s: "Always" if s.scope == "init" else "Never",
    "AppArmorProfile.type": "RuntimeDefault",  # Localhost needs localhostProfile
    "SeccompProfile.type": "RuntimeDefault",
    "NodeSelectorRequirement.operator": "Exists",  # In/NotIn/Gt/Lt need values
    "LabelSelectorRequirement.operator": "Exists",
    "TopologySpreadConstraint.whenUnsatisfiable": "ScheduleAnyway",  # not the default
    "PreferredSchedulingTerm.weight": lambda s: 1 + s.number() % 100,  # 1..100
    "PodDNSConfig.nameservers": lambda s: [s.ip()],  # must be IP addresses
    # Pod-level resources take only cpu and memory, at least what the containers request.
    "PodSpec.resources": {"requests": {"cpu": "61", "memory": "253Gi"},
                          "limits": {"cpu": "61", "memory": "253Gi"}},
    # Cross references: the probe's containers mount its volumes and use its claim.
    "PodSpec.volumes": lambda s: [
        {"name": VOLUME, "emptyDir": {"sizeLimit": f"{s.number()}Mi"}},
        {"name": BLOCK_VOLUME, "persistentVolumeClaim": {"claimName": s.text("claim")}},
    ],
    # ephemeral-storage, not cpu/memory: it stays clear of what sample tasks request.
    "Container.resources": lambda s: {
        "requests": {"ephemeral-storage": f"{s.number()}Mi"},
        "limits": {"ephemeral-storage": f"{8000 + s.number()}Mi"},
        "claims": [{"name": CLAIM}],
    },
}

# Keyed by the definition's short name: the whole value of an object of that type.
DEFINITION_HINTS: dict[str, Hint] = {
    # With neither key nor operator a toleration is invalid; a full one is distinctive.
    "Toleration": lambda s: {"key": s.key(), "operator": "Equal", "value": s.text(),
                             "effect": "NoSchedule"},
    "HostAlias": lambda s: {"ip": s.ip(), "hostnames": [s.text()]},
    "EnvVar": lambda s: {"name": s.env_name(), "value": s.text("value")},
    "ContainerPort": lambda s: {"containerPort": 30000 + s.number(), "name": s.port_name()},
    "VolumeMount": lambda s: {"name": VOLUME, "mountPath": s.path()},
    "VolumeDevice": lambda s: {"name": BLOCK_VOLUME, "devicePath": f"/dev/probe-{s.scope}"},
    "PodResourceClaim": lambda s: {"name": CLAIM, "resourceClaimTemplateName": s.text()},
    "ContainerResizePolicy": {"resourceName": "cpu", "restartPolicy": "RestartContainer"},
    "ContainerRestartRule": lambda s: {"action": "Restart",
                                       "exitCodes": {"operator": "In", "values": [s.number()]}},
}

_HOST_NAMESPACES = ("a pod in its own user namespace (hostUsers: false) cannot share the "
                    "host's network, PID or IPC namespace")

# (moved, kept, why): the API server rejects a pod with both fields set, so ``moved`` goes
# into a second probe template that is rendered on its own at every layer.
APART: tuple[tuple[str, str, str], ...] = (
    ("spec.hostUsers", "spec.hostNetwork", _HOST_NAMESPACES),
    ("spec.hostUsers", "spec.hostPID", _HOST_NAMESPACES),
    ("spec.hostUsers", "spec.hostIPC", _HOST_NAMESPACES),
    ("spec.shareProcessNamespace", "spec.hostPID",
     "a pod cannot share one process namespace among its containers and with the host"),
    ("spec.nodeName", "spec.schedulingGates",
     "a pod bound to a node (nodeName) may not carry scheduling gates"),
    ("spec.serviceAccount", "spec.serviceAccountName",
     "serviceAccount is the deprecated alias of serviceAccountName; set together they "
     "must agree, so each is probed alone with its own value"),
    ("spec.hostnameOverride", "spec.setHostnameAsFQDN",
     "hostnameOverride cannot be combined with setHostnameAsFQDN"),
    ("spec.hostnameOverride", "spec.hostNetwork",
     "hostnameOverride cannot be set on a pod in the host network"),
)

# Fields of the schema that no valid pod template can carry.
NOT_PROBED: dict[str, str] = {
    "spec.ephemeralContainers": "the API server rejects ephemeral containers when a pod is "
    "created; they are added to a running pod (kubectl debug), never by a template",
    "spec.workloadRef": "gated by GenericWorkload, alpha and off by default in Kubernetes "
    "1.35: the API server drops it from every pod it creates",
    "spec.initContainers[probe-init].restartPolicyRules": "restart rules need the init "
    "container's restartPolicy Never or OnFailure, and the probe's init container is a "
    "sidecar (restartPolicy Always), which may carry probes and hooks; rules are probed "
    "on the regular containers",
}

"""The facts the Kubernetes API server checks a pod against, written down once.

Each :class:`Rule` states one rule of the API server's pod validation (the functions of
``pkg/apis/core/validation`` and ``apimachinery/pkg/util/validation`` named in brackets, as
documented in the Kubernetes API reference) and how to mend a value that breaks it.
Enumerations, ranges and name syntaxes are compiled here, once, at import.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from typing import NamedTuple, TypeGuard

# the one env var name rule lives in ``model.names``
from ..names import env_name_ok as env_name_ok

INT32_MAX = 2**31 - 1
PORT_MAX = 65535
FILE_MODE_MAX = 0o777
ANNOTATIONS_MAX_BYTES = 256 * 1024
DNS_NAMESERVERS_MAX = 3
DNS_SEARCHES_MAX = 32
DNS_SEARCH_CHARS_MAX = 2048
TOKEN_EXPIRATION_MIN = 600
TOKEN_EXPIRATION_MAX = 2**32
SLEEP_DEFAULT_GRACE = 30  # terminationGracePeriodSeconds when the pod leaves it unset

RESTART_POLICIES = frozenset({"Always", "OnFailure", "Never"})
DNS_POLICIES = frozenset({"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"})
PULL_POLICIES = frozenset({"Always", "Never", "IfNotPresent"})
TERMINATION_MESSAGE_POLICIES = frozenset({"File", "FallbackToLogsOnError"})
PROTOCOLS = frozenset({"TCP", "UDP", "SCTP"})
TOLERATION_OPERATORS = frozenset({"Exists", "Equal"})
TAINT_EFFECTS = frozenset({"NoSchedule", "PreferNoSchedule", "NoExecute"})
SELECTOR_OPERATORS = frozenset({"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"})
LABEL_SELECTOR_OPERATORS = frozenset({"In", "NotIn", "Exists", "DoesNotExist"})
UNSATISFIABLE = frozenset({"DoNotSchedule", "ScheduleAnyway"})
INCLUSION_POLICIES = frozenset({"Honor", "Ignore"})
PREEMPTION_POLICIES = frozenset({"PreemptLowerPriority", "Never"})
OS_NAMES = frozenset({"linux", "windows"})
URI_SCHEMES = frozenset({"HTTP", "HTTPS"})
MOUNT_PROPAGATIONS = frozenset({"None", "HostToContainer", "Bidirectional"})
RECURSIVE_READ_ONLY = frozenset({"Disabled", "IfPossible", "Enabled"})
HOST_PATH_TYPES = frozenset({"", "DirectoryOrCreate", "Directory", "FileOrCreate", "File",
                             "Socket", "CharDevice", "BlockDevice"})
PROFILE_TYPES = frozenset({"RuntimeDefault", "Unconfined", "Localhost"})
PROC_MOUNTS = frozenset({"Default", "Unmasked"})
FS_GROUP_CHANGE_POLICIES = frozenset({"OnRootMismatch", "Always"})
SUPPLEMENTAL_GROUPS_POLICIES = frozenset({"Merge", "Strict"})
SELINUX_CHANGE_POLICIES = frozenset({"MountOption", "Recursive"})
RESIZE_RESOURCES = frozenset({"cpu", "memory"})
RESIZE_RESTART_POLICIES = frozenset({"NotRequired", "RestartContainer"})
STOP_SIGNALS_PREFIX = "SIG"
ENV_FIELD_PATHS = frozenset({"metadata.name", "metadata.namespace", "metadata.uid",
                             "spec.nodeName", "spec.serviceAccountName", "status.hostIP",
                             "status.hostIPs", "status.podIP", "status.podIPs"})
VOLUME_FIELD_PATHS = frozenset({"metadata.name", "metadata.namespace", "metadata.uid",
                                "metadata.labels", "metadata.annotations"})
RESOURCE_FIELD_REFS = frozenset({"limits.cpu", "limits.memory", "limits.ephemeral-storage",
                                 "requests.cpu", "requests.memory",
                                 "requests.ephemeral-storage"})
CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})
POD_RESOURCES = frozenset({"cpu", "memory"})  # pod-level resources (and hugepages-*)
# Every source a volume may name; a volume names exactly one.
VOLUME_SOURCES = frozenset({
    "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret",
    "nfs", "iscsi", "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder",
    "cephfs", "flocker", "downwardAPI", "fc", "azureFile", "configMap", "vsphereVolume",
    "quobyte", "azureDisk", "photonPersistentDisk", "projected", "portworxVolume",
    "scaleIO", "storageos", "csi", "ephemeral", "image",
})
PROJECTIONS = frozenset({"secret", "downwardAPI", "configMap", "serviceAccountToken",
                         "clusterTrustBundle", "podCertificate"})
PROBE_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
LIFECYCLE_HANDLERS = ("exec", "httpGet", "tcpSocket", "sleep")
ENV_SOURCES = ("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef",
               "fileKeyRef")
ENV_FROM_SOURCES = ("configMapRef", "secretRef")

_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?"
_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS_LABEL = re.compile(_LABEL)
DNS_SUBDOMAIN = re.compile(rf"{_LABEL}(\.{_LABEL})*")
QUALIFIED_NAME_PART = re.compile(_NAME)
LABEL_VALUE = re.compile(rf"({_NAME})?")
PORT_NAME = re.compile(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?")
PORT_NAME_LETTER = re.compile(r"[a-z]")
CONFIG_KEY = re.compile(r"[-._a-zA-Z0-9]+")
HTTP_HEADER_NAME = re.compile(r"[-A-Za-z0-9!#$%&'*+.^_`|~]+")
SYSCTL_NAME = re.compile(r"([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?")
CSI_DRIVER = re.compile(r"[a-zA-Z0-9][-a-zA-Z0-9_.]{0,61}[a-zA-Z-0-9]")
HUGEPAGES_PREFIX = "hugepages-"


class Rule(NamedTuple):
    """One API-server rule: ``cite`` states it and names where Kubernetes enforces it."""

    cite: str
    fix: str


def enum_rule(field: str, values: frozenset[str] | tuple[str, ...], where: str) -> Rule:
    ordered = " | ".join(sorted(v for v in values if v) or values)
    return Rule(f"{field} is one of {ordered} (k8s {where})", f"use one of {ordered}")


# The predicates below run for every name of every pod rendered; the same few names recur
# (container, volume, env and label names), so each answer is computed once.
_cached = functools.lru_cache(maxsize=8192)


@_cached
def _dns_label(value: str) -> bool:
    return len(value) <= 63 and DNS_LABEL.fullmatch(value) is not None


@_cached
def _dns_subdomain(value: str) -> bool:
    return len(value) <= 253 and DNS_SUBDOMAIN.fullmatch(value) is not None


@_cached
def qualified_name(value: str) -> bool:
    """``qualified_name_ok`` for a string (cached; raises for what is not a string)."""
    return _qualified_name(value)


def _qualified_name(value: str) -> bool:
    prefix, slash, name = value.rpartition("/")
    if slash and not _dns_subdomain(prefix):
        return False
    return 0 < len(name) <= 63 and QUALIFIED_NAME_PART.fullmatch(name) is not None


@_cached
def label_value(value: str) -> bool:
    """``label_value_ok`` for a string (cached; raises for what is not a string)."""
    return len(value) <= 63 and LABEL_VALUE.fullmatch(value) is not None


@_cached
def _port_name(value: str) -> bool:
    return (len(value) <= 15 and PORT_NAME.fullmatch(value) is not None and "--" not in value
            and PORT_NAME_LETTER.search(value) is not None)


def dns_label_ok(value: object) -> TypeGuard[str]:
    return type(value) is str and _dns_label(value)


def dns_subdomain_ok(value: object) -> TypeGuard[str]:
    return type(value) is str and _dns_subdomain(value)


def qualified_name_ok(value: object) -> TypeGuard[str]:
    """``[prefix/]name``: a DNS subdomain prefix and a name of at most 63 characters."""
    return type(value) is str and qualified_name(value)


def label_value_ok(value: object) -> TypeGuard[str]:
    return type(value) is str and label_value(value)


def port_name_ok(value: object) -> TypeGuard[str]:
    """An IANA service name: at most 15 lowercase letters, digits and '-', with a letter,
    no '--', not starting or ending with '-'."""
    return type(value) is str and _port_name(value)


def ip_ok(value: object) -> TypeGuard[str]:
    return type(value) is str and _ip(value)


@_cached
def _ip(value: str) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True


def descending_path_ok(value: object) -> TypeGuard[str]:
    """A relative path that does not step out of its root with ``..``."""
    return (type(value) is str and not value.startswith("/")
            and ".." not in value.replace("\\", "/").split("/"))


def int_in(value: object, low: int, high: int) -> TypeGuard[int]:
    return type(value) is int and low <= value <= high

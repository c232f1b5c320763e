"""The Kubernetes Pod Security Standards as data (the ``baseline`` and ``restricted``
profiles as published at kubernetes.io/docs/concepts/security/pod-security-standards,
for Kubernetes 1.35, the API version this package ships)."""

from __future__ import annotations

__all__ = [
    "LEVELS",
    "BASELINE_CAPABILITIES",
    "RESTRICTED_CAPABILITIES",
    "SAFE_SYSCTLS",
    "SELINUX_TYPES",
    "PROFILE_TYPES",
    "APPARMOR_ANNOTATION_PREFIX",
    "RESTRICTED_VOLUME_SOURCES",
    "PROBES",
    "LIFECYCLE_HANDLERS",
    "CONTAINER_LISTS",
]

# Cumulative: every control of a level applies to the levels after it.
LEVELS = ("privileged", "baseline", "restricted")

CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")

# Baseline "Capabilities": capabilities.add may only name these (the container runtime's
# default set).
BASELINE_CAPABILITIES = frozenset({
    "AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
    "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT",
})
# Restricted "Capabilities": drop must include ALL, add may only name this one.
RESTRICTED_CAPABILITIES = frozenset({"NET_BIND_SERVICE"})

# Baseline "Sysctls": the safe, namespaced and isolated set (1.27 added
# ip_local_reserved_ports, 1.29 the tcp keepalive and fin timeout ones, 1.32 tcp_rmem
# and tcp_wmem).
SAFE_SYSCTLS = frozenset({
    "kernel.shm_rmid_forced",
    "net.ipv4.ip_local_port_range",
    "net.ipv4.ip_unprivileged_port_start",
    "net.ipv4.tcp_syncookies",
    "net.ipv4.ping_group_range",
    "net.ipv4.ip_local_reserved_ports",
    "net.ipv4.tcp_keepalive_time",
    "net.ipv4.tcp_fin_timeout",
    "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
    "net.ipv4.tcp_rmem",
    "net.ipv4.tcp_wmem",
})

# Baseline "SELinux": seLinuxOptions.type may be unset, "" or one of these; user and
# role must be unset or "".
SELINUX_TYPES = frozenset({"", "container_t", "container_init_t", "container_kvm_t",
                           "container_engine_t"})

# Baseline "AppArmor" and "Seccomp" (and restricted "Seccomp"): the profile types that
# keep confinement. Unconfined is what both forbid.
PROFILE_TYPES = frozenset({"RuntimeDefault", "Localhost"})

# Baseline "AppArmor" for the annotations that predate the field: allowed values are
# runtime/default and localhost/<profile>.
APPARMOR_ANNOTATION_PREFIX = "container.apparmor.security.beta.kubernetes.io/"

# Restricted "Volume Types": every volume must be one of these sources.
RESTRICTED_VOLUME_SOURCES = (
    "configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim",
    "projected", "secret",
)

# Baseline "Host Probes / Lifecycle Hooks" (1.34+): no host in these handlers.
PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
LIFECYCLE_HANDLERS = ("postStart", "preStop")

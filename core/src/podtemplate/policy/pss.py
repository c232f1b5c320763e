"""The Pod Security Standards (``baseline``, ``restricted``) checked on a final pod.

Each control of the published standard is one function below that yields the fields
which break it; every container list (containers, init containers, ephemeral
containers) is visited. A field is named by its path in the PodTemplateSpec, list items
by merge key (``spec.containers[pytorch].securityContext.privileged``), as provenance
names them, so each finding can be traced to the layer that set it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .pss_facts import (
    APPARMOR_ANNOTATION_PREFIX,
    BASELINE_CAPABILITIES,
    CONTAINER_LISTS,
    LEVELS,
    LIFECYCLE_HANDLERS,
    PROBES,
    PROFILE_TYPES,
    RESTRICTED_CAPABILITIES,
    RESTRICTED_VOLUME_SOURCES,
    SAFE_SYSCTLS,
    SELINUX_TYPES,
)
from .violations import NOT_SET, Violation

__all__ = ["pod_security", "CONTROLS"]

# (path, control, value, fix)
Finding = tuple[str, str, Any, str]


class _Pod:
    """Read-only view of a PodTemplateSpec dict, tolerant of missing parts."""

    def __init__(self, pod: Mapping[str, Any]) -> None:
        self.metadata: Mapping[str, Any] = _map(pod.get("metadata"))
        self.spec: Mapping[str, Any] = _map(pod.get("spec"))
        self.security: Mapping[str, Any] = _map(self.spec.get("securityContext"))
        self.windows = _map(self.spec.get("os")).get("name") == "windows"

    def containers(self) -> Iterator[tuple[str, Mapping[str, Any], Mapping[str, Any]]]:
        """``(path, container, its securityContext)`` of every container of every list."""
        for list_name in CONTAINER_LISTS:
            for index, container in enumerate(self.spec.get(list_name) or ()):
                if not isinstance(container, Mapping):
                    continue
                name = container.get("name")
                key = name if isinstance(name, str) and name else index
                yield (f"spec.{list_name}[{key}]", container,
                       _map(container.get("securityContext")))


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _security_contexts(pod: _Pod) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """The pod's securityContext and each container's, with their paths."""
    yield "spec.securityContext", pod.security
    for path, _, security in pod.containers():
        yield f"{path}.securityContext", security


# ------------------------------------------------------------------------ baseline


def host_process(pod: _Pod) -> Iterator[Finding]:
    for path, security in _security_contexts(pod):
        value = _map(security.get("windowsOptions")).get("hostProcess")
        if value not in (None, False):
            yield (f"{path}.windowsOptions.hostProcess", "hostProcess", value,
                   "remove windowsOptions.hostProcess or set it to false")


def host_namespaces(pod: _Pod) -> Iterator[Finding]:
    for field in ("hostNetwork", "hostPID", "hostIPC"):
        value = pod.spec.get(field)
        if value not in (None, False):
            yield (f"spec.{field}", "hostNamespaces", value,
                   f"remove {field} or set it to false")


def privileged(pod: _Pod) -> Iterator[Finding]:
    for path, _, security in pod.containers():
        value = security.get("privileged")
        if value not in (None, False):
            yield (f"{path}.securityContext.privileged", "privileged", value,
                   "remove securityContext.privileged or set it to false")


def capabilities_baseline(pod: _Pod) -> Iterator[Finding]:
    yield from _capabilities_added(pod, BASELINE_CAPABILITIES, "capabilities")


def _capabilities_added(pod: _Pod, allowed: frozenset[str], control: str
                        ) -> Iterator[Finding]:
    for path, _, security in pod.containers():
        added = _map(security.get("capabilities")).get("add")
        if added is None:
            continue
        bad = [c for c in added if c not in allowed] if isinstance(added, list) else added
        if bad:
            yield (f"{path}.securityContext.capabilities.add", control, added,
                   f"add only {', '.join(sorted(allowed))}")


def host_path_volumes(pod: _Pod) -> Iterator[Finding]:
    for path, volume in _volumes(pod):
        if volume.get("hostPath") is not None:
            yield (f"{path}.hostPath", "hostPathVolumes", volume["hostPath"],
                   "use a persistentVolumeClaim, emptyDir, configMap or secret volume")


def _volumes(pod: _Pod) -> Iterator[tuple[str, Mapping[str, Any]]]:
    for index, volume in enumerate(pod.spec.get("volumes") or ()):
        if isinstance(volume, Mapping):
            name = volume.get("name")
            yield f"spec.volumes[{name if isinstance(name, str) and name else index}]", volume


def host_ports(pod: _Pod) -> Iterator[Finding]:
    for path, container, _ in pod.containers():
        for index, port in enumerate(container.get("ports") or ()):
            value = _map(port).get("hostPort")
            if value not in (None, 0):
                key = f"{port.get('containerPort')},{port.get('protocol') or 'TCP'}"
                yield (f"{path}.ports[{key if 'containerPort' in port else index}].hostPort",
                       "hostPorts", value, "remove hostPort (use a Service to expose the port)")


def host_probes(pod: _Pod) -> Iterator[Finding]:
    for path, container, _ in pod.containers():
        handlers = [(p, _map(container.get(p))) for p in PROBES]
        lifecycle = _map(container.get("lifecycle"))
        handlers += [(f"lifecycle.{h}", _map(lifecycle.get(h))) for h in LIFECYCLE_HANDLERS]
        for where, handler in handlers:
            for kind in ("httpGet", "tcpSocket"):
                value = _map(handler.get(kind)).get("host")
                if value not in (None, ""):
                    yield (f"{path}.{where}.{kind}.host", "hostProbes", value,
                           f"remove {kind}.host: probes and hooks must target the pod")


def _unconfined(pod: _Pod, field: str, control: str) -> Iterator[Finding]:
    """Profiles (AppArmor, seccomp) of the pod or a container set to anything but a
    confining type."""
    for path, security in _security_contexts(pod):
        value = _map(security.get(field)).get("type")
        if value is not None and value not in PROFILE_TYPES:
            yield (f"{path}.{field}.type", control, value,
                   f"use {field} type RuntimeDefault or Localhost")


def app_armor(pod: _Pod) -> Iterator[Finding]:
    yield from _unconfined(pod, "appArmorProfile", "appArmor")
    for key, value in _map(pod.metadata.get("annotations")).items():
        if str(key).startswith(APPARMOR_ANNOTATION_PREFIX) and not (
                value == "runtime/default" or str(value).startswith("localhost/")):
            yield (f"metadata.annotations.{key}", "appArmor", value,
                   "use runtime/default or localhost/<profile>")


def se_linux(pod: _Pod) -> Iterator[Finding]:
    for path, security in _security_contexts(pod):
        options = _map(security.get("seLinuxOptions"))
        if options.get("type") not in (None, *SELINUX_TYPES):
            yield (f"{path}.seLinuxOptions.type", "seLinuxOptions", options["type"],
                   f"use one of {', '.join(sorted(t for t in SELINUX_TYPES if t))}")
        for field in ("user", "role"):
            if options.get(field) not in (None, ""):
                yield (f"{path}.seLinuxOptions.{field}", "seLinuxOptions", options[field],
                       f"remove seLinuxOptions.{field}")


def proc_mount(pod: _Pod) -> Iterator[Finding]:
    for path, _, security in pod.containers():
        value = security.get("procMount")
        if value not in (None, "Default"):
            yield (f"{path}.securityContext.procMount", "procMount", value,
                   "remove procMount or set it to Default")


def seccomp_baseline(pod: _Pod) -> Iterator[Finding]:
    yield from _unconfined(pod, "seccompProfile", "seccompProfile")


def sysctls(pod: _Pod) -> Iterator[Finding]:
    for index, sysctl in enumerate(pod.security.get("sysctls") or ()):
        name = _map(sysctl).get("name")
        if name not in SAFE_SYSCTLS:
            yield (f"spec.securityContext.sysctls[{name if name else index}].name", "sysctls",
                   name, "set only the safe sysctls: " + ", ".join(sorted(SAFE_SYSCTLS)))


# ---------------------------------------------------------------------- restricted


def volume_types(pod: _Pod) -> Iterator[Finding]:
    for path, volume in _volumes(pod):
        if volume.get("hostPath") is not None:
            continue  # reported once, by hostPathVolumes
        if not any(volume.get(source) is not None for source in RESTRICTED_VOLUME_SOURCES):
            kinds = [k for k in volume if k != "name"]
            yield (path, "volumeTypes", kinds[0] if len(kinds) == 1 else kinds,
                   "use only " + ", ".join(RESTRICTED_VOLUME_SOURCES) + " volumes")


def allow_privilege_escalation(pod: _Pod) -> Iterator[Finding]:
    if pod.windows:
        return
    for path, _, security in pod.containers():
        value = security.get("allowPrivilegeEscalation", NOT_SET)
        if value is not False:
            yield (f"{path}.securityContext.allowPrivilegeEscalation",
                   "allowPrivilegeEscalation", value,
                   "set securityContext.allowPrivilegeEscalation: false")


def run_as_non_root(pod: _Pod) -> Iterator[Finding]:
    pod_value = pod.security.get("runAsNonRoot")
    if pod_value is not None and pod_value is not True:
        yield ("spec.securityContext.runAsNonRoot", "runAsNonRoot", pod_value,
               "set spec.securityContext.runAsNonRoot: true")
    for path, _, security in pod.containers():
        value = security.get("runAsNonRoot")
        if value is None and pod_value is True:
            continue
        if value is not True:
            yield (f"{path}.securityContext.runAsNonRoot", "runAsNonRoot",
                   NOT_SET if value is None else value,
                   "set runAsNonRoot: true on the pod's or the container's securityContext")


def run_as_user(pod: _Pod) -> Iterator[Finding]:
    for path, security in _security_contexts(pod):
        value = security.get("runAsUser")
        if type(value) is int and value == 0:
            yield (f"{path}.runAsUser", "runAsUser", value,
                   "run as a non-zero user id, or leave runAsUser to the image")


def seccomp_restricted(pod: _Pod) -> Iterator[Finding]:
    pod_type = _map(pod.security.get("seccompProfile")).get("type")
    if pod_type is not None and pod_type not in PROFILE_TYPES:
        yield ("spec.securityContext.seccompProfile.type", "seccompProfile", pod_type,
               "use seccompProfile type RuntimeDefault or Localhost")
    if pod.windows:
        return
    for path, _, security in pod.containers():
        value = _map(security.get("seccompProfile")).get("type")
        if value is None and pod_type in PROFILE_TYPES:
            continue
        if value not in PROFILE_TYPES:
            yield (f"{path}.securityContext.seccompProfile.type", "seccompProfile",
                   NOT_SET if value is None else value,
                   "set seccompProfile type RuntimeDefault (or Localhost) on the pod or "
                   "the container")


def capabilities_restricted(pod: _Pod) -> Iterator[Finding]:
    if pod.windows:
        return
    yield from _capabilities_added(pod, RESTRICTED_CAPABILITIES, "capabilities")
    for path, _, security in pod.containers():
        dropped = _map(security.get("capabilities")).get("drop")
        if not isinstance(dropped, list) or "ALL" not in dropped:
            yield (f"{path}.securityContext.capabilities.drop", "capabilities",
                   NOT_SET if dropped is None else dropped,
                   "drop ALL capabilities: capabilities.drop: [ALL]")


Control = Callable[[_Pod], Iterator[Finding]]

# Per level, the controls that apply. Where restricted tightens a baseline control
# (capabilities, seccomp) both run, the restricted one first: a field both reject is
# reported once, with the restricted fix; Windows pods still get the baseline one.
CONTROLS: dict[str, tuple[Control, ...]] = {
    "privileged": (),
    "baseline": (host_process, host_namespaces, privileged, capabilities_baseline,
                 host_path_volumes, host_ports, host_probes, app_armor, se_linux,
                 proc_mount, seccomp_baseline, sysctls),
    "restricted": (host_process, host_namespaces, privileged, host_path_volumes,
                   host_ports, host_probes, app_armor, se_linux, proc_mount, sysctls,
                   volume_types, allow_privilege_escalation, run_as_non_root, run_as_user,
                   seccomp_restricted, seccomp_baseline, capabilities_restricted,
                   capabilities_baseline),
}


def pod_security(pod: Mapping[str, Any], level: str) -> list[Violation]:
    """Every field of ``pod`` (a PodTemplateSpec dict) that the Pod Security Standard
    ``level`` forbids; rules are named ``<level>: <control>``."""
    if level not in LEVELS:
        raise ValueError(f"unknown Pod Security Standard level {level!r}")
    view = _Pod(pod)
    found: dict[tuple[str, str], Violation] = {}
    for control in CONTROLS[level]:
        for path, name, value, fix in control(view):
            # capabilities.add may break the baseline and the restricted list at once.
            found.setdefault((path, name), Violation(path, f"{level}: {name}", value, fix))
    return list(found.values())

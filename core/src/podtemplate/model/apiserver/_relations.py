"""Rules that relate a pod's fields to one another across containers and the pod: the
operating system's forbidden fields, the pod-level resources against the containers',
host namespaces against sysctls and ``procMount``, env ``fileKeyRef`` against the
volumes, containers' ``restartPolicyRules`` and ``hostnameOverride``.

:func:`needs_relations` says cheaply whether a pod has anything these rules read, so
that the fast path (``_fast``) can leave such a pod to them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from decimal import Decimal
from typing import Any

from ..names import parse_quantity, quantity_ok
from ._facts import HUGEPAGES_PREFIX, Rule, dns_subdomain_ok
from ._report import Problems, item_path

__all__ = ["check_relations", "needs_relations"]

WINDOWS = Rule("a pod with os.name windows sets none of the Linux-only fields: "
               "securityContext runAsUser, runAsGroup, seLinuxOptions, seccompProfile, "
               "appArmorProfile, capabilities, privileged, procMount, fsGroup, sysctls... and "
               "no hostPID, hostIPC, hostUsers, shareProcessNamespace or pod-level resources "
               "(k8s validateWindows, validatePodResources)",
               "remove the field, or set os.name: linux")
LINUX = Rule("a pod with os.name linux sets no windowsOptions (k8s validateLinux)",
             "remove windowsOptions, or set os.name: windows")
HOSTNAME_OVERRIDE = Rule("hostnameOverride is a DNS-1123 subdomain of at most 64 characters, "
                         "without setHostnameAsFQDN or hostNetwork (k8s validatePodHostName)",
                         "give a short DNS name, or drop setHostnameAsFQDN and hostNetwork")
POD_RESOURCES = Rule("pod-level requests are >= the containers' aggregate requests, pod-level "
                     "limits >= each container's limit (and the aggregate hugepages limit), "
                     "and pod-level resources have no claims "
                     "(k8s validatePodResourceConsistency)",
                     "raise the pod-level value or lower the containers'")
HOST_SYSCTL = Rule("a net.* sysctl needs the pod's own network (no hostNetwork) and an IPC "
                   "sysctl (kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*) its own IPC "
                   "(no hostIPC) (k8s ValidateHostSysctl)", "drop the sysctl or the host "
                   "namespace")
PROC_MOUNT = Rule("procMount: Unmasked needs hostUsers: false (k8s ValidateSecurityContext)",
                  "set spec.hostUsers: false, or drop procMount")
FILE_KEY = Rule("an env fileKeyRef names an emptyDir volume of the pod (k8s "
                "validateFileKeyRefVolumes)", "add an emptyDir volume of that name")
RESTART_RULES = Rule("restartPolicyRules need the container's restartPolicy (not Always on an "
                     "init container), at most 20 rules, each with action Restart and "
                     "exitCodes with operator In or NotIn and at most 255 values "
                     "(k8s validateContainerRestartPolicy)",
                     "set restartPolicy and give action: Restart, exitCodes: {operator: In, "
                     "values: [...]}")

_CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")
_POD_LINUX_ONLY = ("appArmorProfile", "seLinuxOptions", "seccompProfile", "fsGroup",
                   "fsGroupChangePolicy", "sysctls", "runAsUser", "runAsGroup",
                   "supplementalGroups", "supplementalGroupsPolicy", "seLinuxChangePolicy")
_CONTAINER_LINUX_ONLY = ("appArmorProfile", "seLinuxOptions", "seccompProfile", "capabilities",
                         "readOnlyRootFilesystem", "privileged", "allowPrivilegeEscalation",
                         "procMount", "runAsUser", "runAsGroup")
_IPC_SYSCTLS = frozenset({"kernel.sem", "kernel.shmall", "kernel.shmmax", "kernel.shmmni",
                          "kernel.shm_rmid_forced", "kernel.shm", "kernel.msgmax",
                          "kernel.msgmnb", "kernel.msgmni", "kernel.msg"})
_POD_LEVEL = ("cpu", "memory")  # and hugepages-*


def needs_relations(spec: Mapping[str, Any]) -> bool:
    """Whether the pod has any field these rules read beyond its defaults."""
    if "os" in spec or "hostnameOverride" in spec or spec.get("resources"):
        return True
    context = spec.get("securityContext")
    if context and context.get("sysctls") and (spec.get("hostNetwork") or spec.get("hostIPC")):
        return True
    for _, _, container in _containers(spec):
        if "restartPolicyRules" in container:
            return True
        security = container.get("securityContext")
        if security and security.get("procMount") is not None:
            return True
        for var in container.get("env") or ():
            source = var.get("valueFrom")
            if source and source.get("fileKeyRef") is not None:
                return True
    return False


def _containers(spec: Mapping[str, Any]) -> Iterator[tuple[str, int, Mapping[str, Any]]]:
    for kind in _CONTAINER_LISTS:
        items = spec.get(kind)
        if isinstance(items, list):
            for index, container in enumerate(items):
                if isinstance(container, dict):
                    yield kind, index, container


def check_relations(problems: Problems, spec: Mapping[str, Any], base: str) -> None:
    os = spec.get("os")
    name = os.get("name") if isinstance(os, dict) else None
    if name == "windows":
        _windows(problems, spec, base)
    elif name == "linux":
        _linux(problems, spec, base)
    _hostname_override(problems, spec, base)
    _host_sysctls(problems, spec, base)
    host_users = spec.get("hostUsers") is not False
    for kind, index, container in _containers(spec):
        path = item_path(f"{base}.{kind}", index, container)
        security = container.get("securityContext")
        if host_users and isinstance(security, dict) and security.get("procMount") == "Unmasked":
            problems.add(f"{path}.securityContext.procMount", PROC_MOUNT,
                         "Unmasked with the host's user namespace")
        if kind != "ephemeralContainers":
            _restart_rules(problems, path, container, kind)
        if problems.final:
            _file_keys(problems, path, container, spec)
    if problems.final and isinstance(spec.get("resources"), dict) and name != "windows":
        _pod_resources(problems, spec, base)


def _windows(problems: Problems, spec: Mapping[str, Any], base: str) -> None:
    context = spec.get("securityContext")
    if isinstance(context, dict):
        for key in _POD_LINUX_ONLY:
            if context.get(key) is not None and (key != "sysctls" or context[key]):
                problems.add(f"{base}.securityContext.{key}", WINDOWS, "set on a windows pod")
    for key in ("hostPID", "hostIPC"):
        if spec.get(key):
            problems.add(f"{base}.{key}", WINDOWS, "set on a windows pod")
    for key in ("hostUsers", "shareProcessNamespace"):
        if spec.get(key) is not None:
            problems.add(f"{base}.{key}", WINDOWS, "set on a windows pod")
    if spec.get("resources") is not None:
        problems.add(f"{base}.resources", WINDOWS, "pod-level resources on a windows pod")
    for kind, index, container in _containers(spec):
        security = container.get("securityContext")
        if not isinstance(security, dict):
            continue
        path = f"{item_path(f'{base}.{kind}', index, container)}.securityContext"
        for key in _CONTAINER_LINUX_ONLY:
            if security.get(key) is not None:
                problems.add(f"{path}.{key}", WINDOWS, "set on a windows pod")


def _linux(problems: Problems, spec: Mapping[str, Any], base: str) -> None:
    context = spec.get("securityContext")
    if isinstance(context, dict) and context.get("windowsOptions") is not None:
        problems.add(f"{base}.securityContext.windowsOptions", LINUX, "set on a linux pod")
    for kind, index, container in _containers(spec):
        security = container.get("securityContext")
        if isinstance(security, dict) and security.get("windowsOptions") is not None:
            problems.add(f"{item_path(f'{base}.{kind}', index, container)}.securityContext."
                         "windowsOptions", LINUX, "set on a linux pod")


def _hostname_override(problems: Problems, spec: Mapping[str, Any], base: str) -> None:
    value = spec.get("hostnameOverride")
    if value is None:
        return
    if spec.get("setHostnameAsFQDN") is True or spec.get("hostNetwork") is True \
            or type(value) is not str or len(value) > 64 or not dns_subdomain_ok(value):
        problems.add(f"{base}.hostnameOverride", HOSTNAME_OVERRIDE, f"{value!r}")


def _sysctl_namespace(name: str) -> str:
    first = min((i for i in (name.find("."), name.find("/")) if i >= 0), default=-1)
    if first >= 0 and name[first] == "/":
        name = name.translate(str.maketrans("./", "/."))
    name = name.split("*", 1)[0]
    if name in _IPC_SYSCTLS or name.startswith("fs.mqueue."):
        return "ipc"
    return "net" if name.startswith("net.") else ""


def _host_sysctls(problems: Problems, spec: Mapping[str, Any], base: str) -> None:
    context = spec.get("securityContext")
    if not isinstance(context, dict) or not context.get("sysctls"):
        return
    hosts = {"net": spec.get("hostNetwork") is True, "ipc": spec.get("hostIPC") is True}
    for index, sysctl in enumerate(context["sysctls"]):
        name = sysctl.get("name") if isinstance(sysctl, dict) else None
        if type(name) is str and hosts.get(_sysctl_namespace(name)):
            problems.add(f"{base}.securityContext.sysctls[{index}].name", HOST_SYSCTL,
                         f"{name!r} with the host's namespace")


def _restart_rules(problems: Problems, path: str, container: Mapping[str, Any],
                   kind: str) -> None:
    rules = container.get("restartPolicyRules")
    if not rules:
        return
    policy = container.get("restartPolicy")
    if policy is None:
        problems.add(f"{path}.restartPolicy", RESTART_RULES, "restartPolicyRules without it")
    elif kind == "initContainers" and policy == "Always":
        problems.add(f"{path}.restartPolicyRules", RESTART_RULES, "on an init container "
                     "with restartPolicy Always")
        return
    if not isinstance(rules, list):
        return
    if len(rules) > 20:
        problems.add(f"{path}.restartPolicyRules", RESTART_RULES, f"{len(rules)} rules")
    for index, rule in enumerate(rules):
        if not isinstance(rule, dict):
            continue
        where = f"{path}.restartPolicyRules[{index}]"
        if rule.get("action") != "Restart":
            problems.add(f"{where}.action", RESTART_RULES, f"{rule.get('action')!r}")
        codes = rule.get("exitCodes")
        if not isinstance(codes, dict):
            problems.add(f"{where}.exitCodes", RESTART_RULES, "no exitCodes")
            continue
        if codes.get("operator") not in ("In", "NotIn"):
            problems.add(f"{where}.exitCodes.operator", RESTART_RULES,
                         f"{codes.get('operator')!r}")
        if len(codes.get("values") or ()) > 255:
            problems.add(f"{where}.exitCodes.values", RESTART_RULES, "more than 255 values")


def _file_keys(problems: Problems, path: str, container: Mapping[str, Any],
               spec: Mapping[str, Any]) -> None:
    env = container.get("env")
    if not isinstance(env, list):
        return
    volumes = {v.get("name"): v for v in spec.get("volumes") or () if isinstance(v, dict)}
    for index, var in enumerate(env):
        source = var.get("valueFrom") if isinstance(var, dict) else None
        ref = source.get("fileKeyRef") if isinstance(source, dict) else None
        if not isinstance(ref, dict):
            continue
        volume = volumes.get(ref.get("volumeName"))
        # a volume without a source is an emptyDir (k8s SetDefaults_Volume)
        if volume is None or any(key != "name" and value is not None and key != "emptyDir"
                                 for key, value in volume.items()):
            problems.add(f"{item_path(f'{path}.env', index, var)}.valueFrom.fileKeyRef."
                         "volumeName", FILE_KEY, f"{ref.get('volumeName')!r} is not an "
                         "emptyDir volume of the pod")


# -- pod-level resources -------------------------------------------------------------------

Amounts = dict[str, Decimal]


def _amounts(value: Any) -> Amounts:
    if not isinstance(value, dict):
        return {}
    found: Amounts = {}
    for name, quantity in value.items():
        text = str(quantity) if isinstance(quantity, (int, float)) \
            and not isinstance(quantity, bool) else quantity
        if type(name) is str and type(text) is str and quantity_ok(text):
            found[name] = parse_quantity(text)
    return found


def _add(total: Amounts, more: Amounts) -> None:
    for name, value in more.items():
        total[name] = total.get(name, Decimal(0)) + value


def _at_least(total: Amounts, other: Amounts) -> None:
    for name, value in other.items():
        if value > total.get(name, Decimal(-1)):
            total[name] = value


def _aggregate(spec: Mapping[str, Any], kind: str, pod: bool) -> Amounts:
    """The containers' effective requests or limits (k8s AggregateContainerRequests):
    the regular containers and the sidecars summed, at least the largest init step."""
    total: Amounts = {}
    for container in spec.get("containers") or ():
        _add(total, _container_amounts(container, kind, pod))
    sidecars: Amounts = {}
    steps: Amounts = {}
    for container in spec.get("initContainers") or ():
        amounts = _container_amounts(container, kind, pod)
        if container.get("restartPolicy") == "Always":
            _add(total, amounts)
            _add(sidecars, amounts)
            _at_least(steps, sidecars)
        else:
            step = dict(amounts)
            _add(step, sidecars)
            _at_least(steps, step)
    _at_least(total, steps)
    return total


def _container_amounts(container: Any, kind: str, pod: bool) -> Amounts:
    resources = container.get("resources") if isinstance(container, dict) else None
    if not isinstance(resources, dict):
        return {}
    amounts = _amounts(resources.get(kind))
    if kind == "requests" and pod:
        # a Pod's container requests default to its limits (k8s SetDefaults_Pod)
        for name, value in _amounts(resources.get("limits")).items():
            amounts.setdefault(name, value)
    return amounts


def _pod_level(name: str) -> bool:
    return name in _POD_LEVEL or name.startswith(HUGEPAGES_PREFIX)


def _pod_resources(problems: Problems, spec: Mapping[str, Any], base: str) -> None:
    resources = spec["resources"]
    path = f"{base}.resources"
    if resources.get("claims"):
        problems.add(f"{path}.claims", POD_RESOURCES, "claims at pod level")
    requests = _amounts(resources.get("requests"))
    limits = _amounts(resources.get("limits"))
    container_requests = _aggregate(spec, "requests", problems.pod)
    container_limits = _aggregate(spec, "limits", problems.pod)
    if problems.pod:
        # a Pod's pod-level hugepages limits and requests default (k8s SetDefaults_Pod)
        if limits or requests:
            for name, value in container_limits.items():
                if name.startswith(HUGEPAGES_PREFIX) and name not in requests:
                    limits.setdefault(name, value)
        if limits:
            given = dict(requests)
            for name, value in container_requests.items():
                if name in _POD_LEVEL and name not in given:
                    requests[name] = value
            for name, value in limits.items():
                if _pod_level(name):
                    requests.setdefault(name, value)
            for name, value in requests.items():
                if name not in given and name in limits and value > limits[name]:
                    problems.add(f"{path}.requests.{name}", POD_RESOURCES,
                                 f"defaulted request above the limit {value}")
    for name, value in container_requests.items():
        if name in requests and value > requests[name]:
            problems.add(f"{path}.requests.{name}", POD_RESOURCES,
                         f"containers request {value}, more than the pod's")
    for name, value in container_limits.items():
        if name.startswith(HUGEPAGES_PREFIX) and name in limits and value > limits[name]:
            problems.add(f"{path}.limits.{name}", POD_RESOURCES,
                         f"containers' hugepages limit {value}, more than the pod's")
    for index, container in enumerate(spec.get("containers") or ()):
        for name, value in _container_amounts(container, "limits", False).items():
            if name in limits and value > limits[name]:
                problems.add(f"{path}.containers[{index}][{name}].limits", POD_RESOURCES,
                             f"limit {value}, more than the pod's")

"""Containers, init containers and ephemeral containers of a pod spec."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from ._facts import (
    CONFIG_KEY,
    ENV_FIELD_PATHS,
    ENV_FROM_SOURCES,
    ENV_SOURCES,
    MOUNT_PROPAGATIONS,
    PORT_MAX,
    PROTOCOLS,
    PULL_POLICIES,
    RECURSIVE_READ_ONLY,
    RESIZE_RESOURCES,
    RESIZE_RESTART_POLICIES,
    RESOURCE_FIELD_REFS,
    RESTART_POLICIES,
    TERMINATION_MESSAGE_POLICIES,
    Rule,
    descending_path_ok,
    dns_label_ok,
    enum_rule,
    env_name_ok,
    int_in,
    port_name_ok,
)
from ._handlers import PORT_NUMBER, check_lifecycle, check_probe
from ._report import Problems, item_path
from ._resources import check_resources
from ._security import check_container_security

__all__ = ["PodFacts", "check_container", "check_containers", "check_container_field",
           "check_env", "CONTAINER_FIELD_CHECKS", "INIT_HOOK_FIELDS", "MOUNT_DETAILS"]

CONTAINER_NAME = Rule("a container name is a DNS-1123 label, unique across containers, "
                      "initContainers and ephemeralContainers (k8s validateContainers)",
                      "use at most 63 lowercase letters, digits and '-', once per pod")
IMAGE = Rule("a container has an image, without leading or trailing spaces "
             "(k8s validateContainers)", "set the container's image")
PULL_POLICY = enum_rule("imagePullPolicy", PULL_POLICIES, "validatePullPolicy")
MESSAGE_POLICY = enum_rule("terminationMessagePolicy", TERMINATION_MESSAGE_POLICIES,
                           "validateContainers")
HOST_PORT = Rule(f"a hostPort is 0 (none) or between 1 and {PORT_MAX} "
                 "(k8s validateContainerPorts)", f"use a port from 1 to {PORT_MAX}, or none")
PROTOCOL = enum_rule("port protocol", PROTOCOLS, "validateContainerPorts")
PORT_NAME = Rule("a port name is an IANA service name (at most 15 lowercase letters, digits "
                 "and '-', with a letter), unique in its container (k8s validateContainerPorts)",
                 "use a short lowercase name such as http or metrics, once per container")
HOST_NETWORK_PORT = Rule("with hostNetwork, a hostPort equals its containerPort "
                         "(k8s validateHostNetwork)", "make hostPort equal containerPort")
HOST_PORT_UNIQUE = Rule("a hostPort/protocol/hostIP is used once per pod "
                        "(k8s AccumulateUniqueHostPorts)", "give each container its own hostPort")
ENV_NAME = Rule("an env var name is printable ASCII without '=' (k8s validateEnvVarName)",
                "rename the variable without '=' and control characters")
ENV_SOURCE = Rule("an env var has a value or exactly one valueFrom source "
                  "(fieldRef, resourceFieldRef, configMapKeyRef, secretKeyRef) "
                  "(k8s validateEnvVarValueFrom)", "keep one source and no value")
FIELD_PATH = Rule("an env fieldRef names a supported field (metadata.name, "
                  "metadata.namespace, metadata.uid, metadata.labels['k'], "
                  "metadata.annotations['k'], spec.nodeName, spec.serviceAccountName, "
                  "status.hostIP(s), status.podIP(s)) (k8s validateObjectFieldSelector)",
                  "use one of the supported field paths")
RESOURCE_FIELD = Rule("an env resourceFieldRef names limits/requests of cpu, memory or "
                      "ephemeral-storage (or hugepages-*) "
                      "(k8s validateContainerResourceFieldSelector)",
                      "use e.g. limits.memory")
KEY_REF = Rule("a configMapKeyRef/secretKeyRef key is letters, digits, '-', '_' and '.' "
               "(k8s validateConfigMapKeySelector, validateSecretKeySelector)",
               "name an existing key")
FILE_KEY_REF = Rule("an env fileKeyRef has a key (an env var name), a volumeName (a DNS-1123 "
                   "label) and a path without '..' (k8s validateFileKeySelector)",
                   "give key, volumeName and a relative path")
ENV_FROM = Rule("an envFrom item has exactly one of configMapRef and secretRef, and a "
                "prefix that is a valid env var name start (k8s validateEnvFrom)",
                "split it into one item per source")
MOUNT_VOLUME = Rule("a volumeMount names a volume of the pod (k8s ValidateVolumeMounts)",
                    "add the volume to spec.volumes or correct the mount's name")
MOUNT_PATH = Rule("a mountPath is given and unique in its container (k8s ValidateVolumeMounts)",
                  "give each mount its own mountPath")
SUB_PATH = Rule("subPath is a relative path without '..' and excludes subPathExpr "
                "(k8s ValidateVolumeMounts)", "use a relative path, or only one of the two")
PROPAGATION = Rule("mountPropagation is None, HostToContainer or Bidirectional, and "
                   "Bidirectional needs a privileged container (k8s validateMountPropagation)",
                   "use HostToContainer, or make the container privileged")
RECURSIVE_RO = Rule("recursiveReadOnly is Disabled, IfPossible or Enabled; other than "
                    "Disabled it needs readOnly: true and mountPropagation None "
                    "(k8s validateMountRecursiveReadOnly)", "set readOnly: true or Disabled")
DEVICE = Rule("a volumeDevice names a persistentVolumeClaim or ephemeral volume, with a "
              "devicePath unique and not also a mountPath (k8s ValidateVolumeDevices)",
              "use a PVC volume and a path of its own")
RESIZE = Rule("resizePolicy names cpu or memory once each, with restartPolicy NotRequired "
              "or RestartContainer (k8s validateResizePolicy)", "use those values, once each")
RESTART_POLICY = enum_rule("container restartPolicy", RESTART_POLICIES,
                           "validateContainerRestartPolicy")
INIT_HOOKS = Rule("an init container without restartPolicy: Always has no lifecycle or "
                  "probes (k8s validateInitContainers)",
                  "remove them, or make it a sidecar with restartPolicy: Always")
CLAIM = Rule("a container's resources.claims name a pod resourceClaim, once each "
             "(k8s validateResourceClaimNames)", "add it to spec.resourceClaims")


class PodFacts(NamedTuple):
    """What the container checks need to know of the pod around them."""

    volumes: dict[str, Mapping[str, Any]]
    claims: frozenset[str]
    host_network: bool
    grace: int
    names: set[str]
    host_ports: set[tuple[Any, ...]]


def check_containers(problems: Problems, spec: Mapping[str, Any], base: str,
                     facts: PodFacts) -> None:
    # in the server's order: a name repeated across lists is reported on the init or
    # ephemeral container
    for list_name in ("containers", "initContainers", "ephemeralContainers"):
        items = spec.get(list_name)
        if not isinstance(items, list):
            continue
        for index, container in enumerate(items):
            if isinstance(container, dict):
                path = item_path(f"{base}.{list_name}", index, container)
                check_container(problems, path, container, list_name, facts)


def check_container(problems: Problems, path: str, container: Mapping[str, Any], kind: str,
                    facts: PodFacts, *, env: bool = True) -> None:
    """One container; ``env=False`` leaves its env to the caller."""
    name = container.get("name")
    if not dns_label_ok(name) or name in facts.names:
        problems.add(f"{path}.name", CONTAINER_NAME,
                     f"{name!r} is {'repeated' if name in facts.names else 'not valid'}")
    else:
        facts.names.add(name)
    image = container.get("image")
    if problems.final and (type(image) is not str or not image or image != image.strip()):
        problems.add(f"{path}.image", IMAGE, f"image {image!r}")
    # Only the fields the container has are visited: most containers set a handful.
    fields = (_FIELDS if env else _BUT_ENV) if problems.local else _RELATING
    for key, value in container.items():
        check = fields.get(key)
        if check is not None and value is not None:
            check(problems, path, value, container, facts, kind)
    if kind == "initContainers" and container.get("restartPolicy") != "Always":
        for hook in INIT_HOOK_FIELDS:
            if container.get(hook) is not None:
                problems.add(f"{path}.{hook}", INIT_HOOKS, f"{hook} on an init container")


def check_container_field(problems: Problems, path: str, key: str, value: Any,
                          container: Mapping[str, Any], facts: PodFacts, kind: str) -> None:
    """One field of a container (not None), as :func:`check_container` checks it (its
    name, its image and the init containers' hooks aside)."""
    check = _FIELDS.get(key)
    if check is not None:
        check(problems, path, value, container, facts, kind)


Check = Callable[[Problems, str, Any, Mapping[str, Any], PodFacts, str], None]
INIT_HOOK_FIELDS = ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe")


def _enum_check(key: str, values: frozenset[str], rule: Rule, *, empty: bool = True) -> Check:
    """``empty``: "" is defaulted (k8s SetDefaults_Container), so it passes."""
    def check(problems: Problems, path: str, value: Any, *_: Any) -> None:
        if value not in values and not (empty and value == ""):
            problems.add(f"{path}.{key}", rule, f"{value!r} is not supported")
    return check


def _probe_check(key: str) -> Check:
    def check(problems: Problems, path: str, value: Any, _: Any, facts: PodFacts,
              *__: Any) -> None:
        check_probe(problems, f"{path}.{key}", value, key[:-5], facts.grace)
    return check


def _resources(problems: Problems, path: str, value: Any, _: Any, facts: PodFacts,
               *__: Any) -> None:
    check_resources(problems, f"{path}.resources", value)
    if isinstance(value, dict) and value.get("claims"):
        _claims(problems, path, value["claims"], facts)


def _security(problems: Problems, path: str, value: Any, *_: Any) -> None:
    check_container_security(problems, f"{path}.securityContext", value)


def _lifecycle(problems: Problems, path: str, value: Any, _: Any, facts: PodFacts,
               *__: Any) -> None:
    check_lifecycle(problems, f"{path}.lifecycle", value, facts.grace)


def _ports(problems: Problems, path: str, ports: Any, _: Any, facts: PodFacts,
           kind: str) -> None:
    regular = kind == "containers"
    ports_at = f"{path}.ports"
    names: set[str] = set()
    for index, port in enumerate(ports):
        if not isinstance(port, dict):
            continue
        number = port.get("containerPort")
        if not int_in(number, 1, PORT_MAX):
            problems.add(f"{item_path(ports_at, index, port)}.containerPort",
                         PORT_NUMBER, f"{number!r} is out of range")
        host = port.get("hostPort")
        if host is not None and host != 0:
            if not int_in(host, 1, PORT_MAX):
                problems.add(f"{item_path(ports_at, index, port)}.hostPort",
                             HOST_PORT, f"{host!r} is out of range")
            elif facts.host_network and regular and host != number:
                problems.add(f"{item_path(ports_at, index, port)}.hostPort", HOST_NETWORK_PORT,
                             f"hostPort {host} with containerPort {number!r}")
            elif regular:
                key = (host, port.get("protocol") or "TCP", port.get("hostIP") or "")
                if key in facts.host_ports:
                    problems.add(f"{item_path(ports_at, index, port)}.hostPort",
                                 HOST_PORT_UNIQUE, f"{host} is repeated")
                facts.host_ports.add(key)
        protocol = port.get("protocol")
        if protocol not in (None, "") and protocol not in PROTOCOLS:  # "" is TCP
            problems.add(f"{item_path(ports_at, index, port)}.protocol",
                         PROTOCOL, f"{protocol!r} is not supported")
        name = port.get("name")
        if name is not None:
            if not port_name_ok(name) or name in names:
                problems.add(f"{item_path(ports_at, index, port)}.name",
                             PORT_NAME, f"{name!r} is not valid or repeated")
            names.add(name)


def check_env(problems: Problems, path: str, env: Any) -> None:
    """A container's env list (its rules read nothing else)."""
    _env(problems, path, env)


def _env(problems: Problems, path: str, env: Any, *_: Any) -> None:
    local = problems.local
    for index, var in enumerate(env):
        if not local and "valueFrom" not in var:
            continue  # a name alone was checked with its layer
        if not isinstance(var, dict):
            continue
        name = var.get("name")
        if not env_name_ok(name):
            problems.add(f"{item_path(f'{path}.env', index, var)}.name", ENV_NAME,
                         f"{name!r} is not a valid name")
        source = var.get("valueFrom")
        if source is None:
            continue
        where = item_path(f"{path}.env", index, var)
        present = [kind for kind in ENV_SOURCES if source.get(kind) is not None]
        if len(present) != 1 or var.get("value"):
            problems.add(f"{where}.valueFrom", ENV_SOURCE,
                         f"{len(present)} sources{' and a value' if var.get('value') else ''}")
            continue
        _env_source(problems, f"{where}.valueFrom.{present[0]}", present[0],
                    source[present[0]])


def _env_source(problems: Problems, where: str, kind: str, ref: Any) -> None:
    if not isinstance(ref, dict):
        return
    if kind == "fieldRef":
        field = ref.get("fieldPath")
        if not _field_path_ok(field):
            problems.add(f"{where}.fieldPath", FIELD_PATH, f"{field!r} is not supported")
    elif kind == "resourceFieldRef":
        resource = ref.get("resource")
        if resource not in RESOURCE_FIELD_REFS and not (
                type(resource) is str and resource.startswith(("limits.hugepages-",
                                                              "requests.hugepages-"))):
            problems.add(f"{where}.resource", RESOURCE_FIELD, f"{resource!r} is not supported")
    elif kind == "fileKeyRef":
        key, volume, file = ref.get("key"), ref.get("volumeName"), ref.get("path")
        if not env_name_ok(key) or not dns_label_ok(volume) or type(file) is not str \
                or not file or ".." in file.split("/"):
            problems.add(where, FILE_KEY_REF, f"key {key!r}, volumeName {volume!r}, "
                         f"path {file!r}")
    elif kind in ("configMapKeyRef", "secretKeyRef"):
        key = ref.get("key")
        if type(key) is not str or len(key) > 253 or CONFIG_KEY.fullmatch(key) is None:
            problems.add(f"{where}.key", KEY_REF, f"{key!r} is not a valid key")


def _field_path_ok(field: Any) -> bool:
    if field in ENV_FIELD_PATHS:
        return True
    for prefix in ("metadata.labels['", "metadata.annotations['"):
        if type(field) is str and field.startswith(prefix) and field.endswith("']"):
            return len(field) > len(prefix) + 2
    return False


def _env_from(problems: Problems, path: str, env_from: Any, *_: Any) -> None:
    for index, item in enumerate(env_from):
        if not isinstance(item, dict):
            continue
        present = [kind for kind in ENV_FROM_SOURCES if item.get(kind) is not None]
        prefix = item.get("prefix")
        if len(present) != 1 or (prefix and not env_name_ok(prefix)):
            problems.add(f"{path}.envFrom[{index}]", ENV_FROM,
                         f"{len(present)} sources, prefix {prefix!r}")


def _claims(problems: Problems, path: str, claims: Any, facts: PodFacts) -> None:
    seen: set[str] = set()
    for index, claim in enumerate(claims or ()):
        name = claim.get("name") if isinstance(claim, dict) else None
        if name in seen or (problems.final and name not in facts.claims):
            problems.add(f"{path}.resources.claims[{index}].name", CLAIM,
                         f"{name!r} is repeated or not a pod resourceClaim")
        seen.add(name)  # type: ignore[arg-type]


MOUNT_DETAILS = frozenset({"subPath", "mountPropagation", "recursiveReadOnly"})


def _mounts(problems: Problems, path: str, mounts: Any, container: Mapping[str, Any],
            facts: PodFacts, *_: Any) -> None:
    paths: set[Any] = set()
    mounts_at = f"{path}.volumeMounts"
    volumes = facts.volumes if problems.final else None
    for index, mount in enumerate(mounts):
        if not isinstance(mount, dict):
            continue
        name = mount.get("name")
        if volumes is not None and name not in volumes:
            problems.add(f"{item_path(mounts_at, index, mount)}.name",
                         MOUNT_VOLUME, f"no volume is named {name!r}")
        if problems.local:  # the merge keys mounts by mountPath: one each
            mount_path = mount.get("mountPath")
            if not mount_path or mount_path in paths:
                problems.add(f"{item_path(mounts_at, index, mount)}.mountPath",
                             MOUNT_PATH, f"{mount_path!r} is empty or repeated")
            paths.add(mount_path)
        if MOUNT_DETAILS.isdisjoint(mount):
            continue  # name, mountPath and readOnly at most: nothing more to check
        privileged = bool((container.get("securityContext") or {}).get("privileged"))
        sub_path = mount.get("subPath")
        if sub_path and (not descending_path_ok(sub_path) or mount.get("subPathExpr")):
            problems.add(f"{item_path(mounts_at, index, mount)}.subPath", SUB_PATH, f"{sub_path!r}")
        propagation = mount.get("mountPropagation")
        if propagation is not None and (propagation not in MOUNT_PROPAGATIONS or (
                propagation == "Bidirectional" and not privileged)):
            problems.add(f"{item_path(mounts_at, index, mount)}.mountPropagation",
                         PROPAGATION, f"{propagation!r}")
        recursive = mount.get("recursiveReadOnly")
        if recursive is not None and (recursive not in RECURSIVE_READ_ONLY or (
                recursive != "Disabled" and (not mount.get("readOnly") or propagation
                                             not in (None, "None")))):
            problems.add(f"{item_path(mounts_at, index, mount)}.recursiveReadOnly",
                         RECURSIVE_RO, f"{recursive!r}")


def _devices(problems: Problems, path: str, devices: Any, container: Mapping[str, Any],
             facts: PodFacts, *_: Any) -> None:
    mounts = container.get("volumeMounts") or ()
    mount_paths = {m.get("mountPath") for m in mounts if isinstance(m, dict)}
    seen: set[str] = set()
    for index, device in enumerate(devices):
        if not isinstance(device, dict):
            continue
        volume = facts.volumes.get(device.get("name"))  # type: ignore[arg-type]
        device_path = device.get("devicePath")
        block = volume is not None and (volume.get("persistentVolumeClaim") is not None
                                        or volume.get("ephemeral") is not None)
        if (problems.final and not block) or not device_path or device_path in seen \
                or device_path in mount_paths:
            problems.add(item_path(f"{path}.volumeDevices", index, device), DEVICE,
                         f"device {device.get('name')!r} at {device_path!r}")
        seen.add(device_path)  # type: ignore[arg-type]


def _resize(problems: Problems, path: str, resize: Any, *_: Any) -> None:
    seen: set[str] = set()
    for index, policy in enumerate(resize):
        if not isinstance(policy, dict):
            continue
        name = policy.get("resourceName")
        if name not in RESIZE_RESOURCES or name in seen \
                or policy.get("restartPolicy") not in RESIZE_RESTART_POLICIES:
            problems.add(f"{path}.resizePolicy[{index}]", RESIZE,
                         f"{name!r} with {policy.get('restartPolicy')!r}")
        seen.add(name)  # type: ignore[arg-type]


_FIELDS: dict[str, Check] = {
    "imagePullPolicy": _enum_check("imagePullPolicy", PULL_POLICIES, PULL_POLICY),
    "terminationMessagePolicy": _enum_check("terminationMessagePolicy",
                                            TERMINATION_MESSAGE_POLICIES, MESSAGE_POLICY),
    "restartPolicy": _enum_check("restartPolicy", RESTART_POLICIES, RESTART_POLICY,
                                 empty=False),
    "ports": _ports,
    "env": _env,
    "envFrom": _env_from,
    "resources": _resources,
    "securityContext": _security,
    "volumeMounts": _mounts,
    "volumeDevices": _devices,
    "livenessProbe": _probe_check("livenessProbe"),
    "readinessProbe": _probe_check("readinessProbe"),
    "startupProbe": _probe_check("startupProbe"),
    "lifecycle": _lifecycle,
    "resizePolicy": _resize,
}
CONTAINER_FIELD_CHECKS = frozenset(_FIELDS)
_BUT_ENV = {key: check for key, check in _FIELDS.items() if key != "env"}
# The container fields whose rules relate values that different layers may give.
_RELATING = {key: _FIELDS[key] for key in (
    "ports", "env", "resources", "securityContext", "volumeMounts", "volumeDevices",
    "livenessProbe", "readinessProbe", "startupProbe", "lifecycle")}

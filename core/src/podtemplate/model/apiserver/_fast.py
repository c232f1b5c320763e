"""The fast path of the API rules at render: the speed work of this subpackage, fenced here.

Render checks every role's final pod once: :func:`surely_valid`, and the plain
:func:`podtemplate.model.apiserver.check_rules` only when it cannot vouch for the pod
(which then names every problem). It asks the same rules as the plain path a yes/no
question, field by field, from a table of judges compiled at import:

- A judge answers "no problem" or "not sure"; it builds no field path and no problem. The
  fields a pod usually sets have judges of their own: container names and images, env
  lists, volume mounts, ports, enumerations, names, volumes of one plain source;
  resources and each toleration by the rules' own cached verdict, then kept for the
  render as the tuple of their items (compared as the rules' own caches compare them).
  Every other field is judged by its plain rule, with the pod's facts as the plain path
  makes them (made once a judge needs them).
- The verdict on a field that is costly to walk, whose rules read nothing else and whose
  content recurs from pod to pod (affinity, the pod's and the containers'
  securityContext, topologySpreadConstraints, dnsConfig, hostAliases; a volume of
  another source) is remembered by its exact content, identified by its ``marshal``
  image (version 2, which writes no back-references, so that equal content gives equal
  bytes whoever holds it; it tells ``1`` from ``True`` and ``"1"``). Only "valid" is
  remembered, in a table of the render (``RenderContext.memo``, bounded), so a render
  knows only what it checked itself.
- Labels and annotations (which hold the task's name, so they are new on every task) go
  through the rules' own cached predicates mapped in C, their keys (the same few on
  every pod) kept as the tuple of them, the annotations' size counted in characters (at
  most 4 bytes each; a pod near the limit goes the plain way).
- An env list of name/value pairs (also new on every task) is judged at once: its names,
  joined by '=' (which no name may hold), are printable ASCII, none empty. Any valueFrom
  sends the list through the plain env rules.

A judge reads a field the way the plain rule does and no more, and says "not sure" for
anything it does not know (a host port, a mount with a subPath or a propagation, a
resource claim: their plain rules then judge the field). Odd data (not a dict where one
is expected, a name that is not a string, a missing name) makes it raise, and the whole
pod goes the plain way. ``core/tests/test_apiserver.py`` and
``core/tests/test_apiserver_fast.py`` compare the two paths on the invalid corpus, cold
and warm, on changes to remembered parts and on generated pods.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Hashable, Mapping
from itertools import repeat
from operator import itemgetter
from typing import Any

from ..names import quantity_ok
from ._containers import (
    CONTAINER_FIELD_CHECKS,
    INIT_HOOK_FIELDS,
    MOUNT_DETAILS,
    PodFacts,
    check_container_field,
    check_env,
)
from ._facts import (
    ANNOTATIONS_MAX_BYTES,
    PORT_MAX,
    PROTOCOLS,
    PULL_POLICIES,
    RESTART_POLICIES,
    TERMINATION_MESSAGE_POLICIES,
    dns_label_ok,
    dns_subdomain_ok,
    label_value,
    port_name_ok,
    qualified_name,
)
from ._meta import special_annotation
from ._pod import POD_FIELD_CHECKS, SUBDOMAIN_FIELDS, check_pod_field, pod_facts
from ._relations import needs_relations
from ._report import Problems
from ._resources import resources_known_good
from ._scheduling import toleration_good
from ._volumes import NAMED_FIELDS, check_volumes, plain_source_ok

__all__ = ["surely_valid", "Known"]

Known = dict[Hashable, bool]  # a render's table of the parts found valid (see the top)


def surely_valid(template: Mapping[str, Any], known: Known) -> bool:
    """True only when :func:`check_rules` would find nothing in ``template`` (a final
    PodTemplateSpec); False when it may find something: then run it. ``known`` holds
    the parts this render found valid (marshal images, tagged tuples of items)."""
    spec = template.get("spec")
    if type(spec) is not dict or not spec.get("containers") or spec.get(
            "ephemeralContainers"):
        return False
    try:
        if needs_relations(spec):  # rules across fields that no judge below reads
            return False
        if not _metadata_valid(template.get("metadata"), known):
            return False
        pod = _Pod(spec, known)
        for key, value in spec.items():
            if value is not None:
                judge = _POD_JUDGES.get(key)
                if judge is not None and not judge(value, pod):
                    return False
        return True
    except (ValueError, TypeError, AttributeError, KeyError):  # odd data: the plain path
        return False


class _Pod:
    """What the judges of one pod share: its spec, the render's table, the names of its
    volumes and of the containers judged so far, and the plain path's facts."""

    __slots__ = ("_facts", "known", "names", "spec", "volumes")

    def __init__(self, spec: dict[str, Any], known: Known) -> None:
        self.spec = spec
        self.known = known
        self.volumes = set(map(_NAME, spec.get("volumes") or ()))
        self.names: set[str] = set()
        self._facts: PodFacts | None = None

    def facts(self) -> PodFacts:
        """The facts the plain container rules read, as the plain path makes them (one
        object per pod: the host ports of its containers accumulate in it)."""
        if self._facts is None:
            self._facts = pod_facts(self.spec, {volume["name"]: volume
                                                for volume in self.spec.get("volumes") or ()})
        return self._facts

    def plain_field(self, key: str, value: Any) -> bool:
        problems = Problems(final=True)
        check_pod_field(problems, "spec", key, value, self.spec)
        return not problems


_NAME = itemgetter("name")


_QUALIFIED = "qualified names"  # the tags of the tuples kept in the table
_TOLERATION = "toleration"
_RESOURCES = "resources"


def _keys_valid(mapping: dict[Any, Any], known: Known) -> bool:
    """The keys of labels, annotations or a node selector are qualified names: the same
    few keys on every pod, remembered as the tuple of them."""
    key = (_QUALIFIED, *mapping)
    if key in known:
        return True
    if not all(map(qualified_name, mapping)) or any(map(special_annotation, mapping)):
        return False  # (an annotation the API server reads is checked the plain way)
    known[key] = True
    return True


def _labels_valid(labels: Any, known: Known) -> bool:
    return type(labels) is dict and _keys_valid(labels, known) and all(
        map(label_value, labels.values()))


def _metadata_valid(metadata: Any, known: Known) -> bool:
    # The cached predicates themselves, mapped in C; a key or value that is not a string
    # makes them raise (TypeError, AttributeError): the plain path then.
    if metadata is None:
        return True
    if type(metadata) is not dict:
        return False
    labels = metadata.get("labels")
    if labels is not None and not _labels_valid(labels, known):
        return False
    annotations = metadata.get("annotations")
    if annotations is None:
        return True
    # the size counted in characters, a character being at most 4 bytes (else: plain)
    # (str.__len__ raises for what is not a string, whose size the plain path counts)
    return type(annotations) is dict and _keys_valid(annotations, known) and 4 * (
        sum(map(str.__len__, annotations)) + sum(map(str.__len__, annotations.values()))
    ) <= ANNOTATIONS_MAX_BYTES


# -- the pod's own fields ------------------------------------------------------------------

PodJudge = Callable[[Any, _Pod], bool]


def _plain_pod_field(key: str) -> PodJudge:
    def judge(value: Any, pod: _Pod) -> bool:
        return pod.plain_field(key, value)
    return judge


def _remembered(key: str) -> PodJudge:
    """The plain rule's verdict on a field that reads nothing else, by its content."""
    def judge(value: Any, pod: _Pod) -> bool:
        image = marshal.dumps((key, value), 2)
        if image in pod.known:
            return True
        if not pod.plain_field(key, value):
            return False
        pod.known[image] = True
        return True
    return judge


def _subdomain(value: Any, _: _Pod) -> bool:
    return not value or dns_subdomain_ok(value)


def _label(value: Any, _: _Pod) -> bool:
    return not value or dns_label_ok(value)


def _node_selector(value: Any, pod: _Pod) -> bool:
    return not value or _labels_valid(value, pod.known)


def _restart_policy(value: Any, _: _Pod) -> bool:
    return value in RESTART_POLICIES


def _volumes(volumes: Any, pod: _Pod) -> bool:
    # Each volume's rules read that volume alone, but that its name is not repeated.
    if len(pod.volumes) != len(volumes) or not all(map(dns_label_ok, pod.volumes)):
        return False
    for volume in volumes:
        if len(volume) == 2:  # its name and one source, the usual case
            first, second = volume.items()
            kind, source = second if first[0] == "name" else first
            required = _NAMING.get(kind)
            if required is not None and type(source) is dict and (
                    (len(source) == 1 and source.get(required))
                    or plain_source_ok(source, required, True)):
                continue  # a secret, configMap or claim that names its object
            if kind == "emptyDir" and _empty_dir_valid(source):
                continue
        if not _volume_valid(volume, pod.known):
            return False
    return True


# The plain sources that name their object, and the field that names it.
_NAMING = {kind: NAMED_FIELDS[kind] for kind in ("secret", "configMap", "persistentVolumeClaim")}


def _empty_dir_valid(source: Any) -> bool:
    # What the plain rules read of an emptyDir: its sizeLimit.
    if type(source) is not dict:
        return False
    size = source.get("sizeLimit")
    return size is None or (type(size) is str and quantity_ok(size))


def _volume_valid(volume: dict[str, Any], known: Known) -> bool:
    image = marshal.dumps(("volume", volume), 2)
    if image in known:
        return True
    problems = Problems(final=True)
    check_volumes(problems, {"volumes": [volume]}, "spec")
    if problems:
        return False
    known[image] = True
    return True


def _tolerations(tolerations: Any, pod: _Pod) -> bool:
    # The rules' own verdict on each toleration (flat: scalar values only), kept by its
    # items (compared as the rules' own cache compares them).
    known = pod.known
    for toleration in tolerations:
        if type(toleration) is not dict:
            return False
        key = (_TOLERATION, *toleration.items())
        if key not in known:
            if not toleration_good(toleration, True):
                return False
            known[key] = True
    return True


def _container_list(kind: str) -> PodJudge:
    def judge(containers: Any, pod: _Pod) -> bool:
        return all(map(_container_valid, containers, repeat(pod), repeat(kind)))
    return judge


# -- containers ----------------------------------------------------------------------------

ContainerJudge = Callable[[Any, Mapping[str, Any], _Pod, str], bool]


def _container_valid(container: Mapping[str, Any], pod: _Pod, kind: str) -> bool:
    name = container["name"]
    if name in pod.names or not dns_label_ok(name):
        return False
    pod.names.add(name)
    image = container["image"]
    if type(image) is not str or not image or image != image.strip():
        return False
    for key, value in container.items():
        if value is not None:
            judge = _CONTAINER_JUDGES.get(key)
            if judge is not None and not judge(value, container, pod, kind):
                return False
    return kind != "initContainers" or container.get("restartPolicy") == "Always" or all(
        container.get(hook) is None for hook in INIT_HOOK_FIELDS)


def _remembered_container_field(key: str) -> ContainerJudge:
    """The plain rule's verdict on a container field that reads nothing else, by its
    content."""
    plain = _plain_container_field(key)

    def judge(value: Any, container: Mapping[str, Any], pod: _Pod, kind: str) -> bool:
        image = marshal.dumps(("container", key, value), 2)
        if image in pod.known:
            return True
        if not plain(value, container, pod, kind):
            return False
        pod.known[image] = True
        return True
    return judge


def _plain_container_field(key: str) -> ContainerJudge:
    def judge(value: Any, container: Mapping[str, Any], pod: _Pod, kind: str) -> bool:
        problems = Problems(final=True)
        check_container_field(problems, "spec", key, value, container, pod.facts(), kind)
        return not problems
    return judge


def _enum(values: frozenset[str]) -> ContainerJudge:
    def judge(value: Any, *_: Any) -> bool:
        return value in values
    return judge


def _env(env: Any, *_: Any) -> bool:
    """The plain rules on a list of name/value pairs, in C: the names, joined by the one
    character no name may hold, are printable ASCII with no empty name. A list with a
    valueFrom (or anything odd) goes through the plain env rules."""
    if type(env) is list:
        try:
            names = [var["name"] for var in env if "valueFrom" not in var]
            joined = "=".join(names)
        except (TypeError, KeyError):
            names = []
        if len(names) == len(env):
            return not names or (all(names) and joined.isascii() and joined.isprintable()
                                 and joined.count("=") == len(names) - 1)
    problems = Problems(final=True)
    check_env(problems, "spec", env)
    return not problems


def _mounts(mounts: Any, container: Mapping[str, Any], pod: _Pod, kind: str) -> bool:
    # Each names a volume of the pod and has a mountPath of its own; one with a subPath,
    # a propagation or a recursive read-only mode goes to the plain rules.
    volumes = pod.volumes
    paths = set()
    for mount in mounts:
        path = mount["mountPath"]
        if mount["name"] not in volumes or not path or path in paths:
            return False
        paths.add(path)
        if not MOUNT_DETAILS.isdisjoint(mount):
            return _PLAIN_MOUNTS(mounts, container, pod, kind)
    return True


def _ports(ports: Any, container: Mapping[str, Any], pod: _Pod, kind: str) -> bool:
    # Numbers in range, protocols known, names valid and unique in the container; a host
    # port or IP (which relate the pod's containers) goes to the plain rules.
    names: set[Any] = set()
    for port in ports:
        number = port["containerPort"]
        host = port.get("hostPort")
        if (host is not None and host != 0) or port.get("hostIP"):
            return _PLAIN_PORTS(ports, container, pod, kind)
        if type(number) is not int or not 1 <= number <= PORT_MAX:
            return False
        protocol = port.get("protocol")
        if protocol is not None and protocol not in PROTOCOLS:
            return False
        name = port.get("name")
        if name is not None:
            if not port_name_ok(name) or name in names:
                return False
            names.add(name)
    return True


def _resources(resources: Any, container: Mapping[str, Any], pod: _Pod, kind: str) -> bool:
    # The rules' own verdict on requests and limits, kept by their items (compared as
    # the rules' own cache compares them); resource claims (which read the pod's) go to
    # the plain rules.
    if type(resources) is not dict or resources.get("claims"):
        return _PLAIN_RESOURCES(resources, container, pod, kind)
    requests = resources.get("requests")
    limits = resources.get("limits")
    key = (_RESOURCES, tuple(requests.items()) if requests else (),
           tuple(limits.items()) if limits else ())
    if key in pod.known:
        return True
    if not resources_known_good(resources, False, True):
        return False
    pod.known[key] = True
    return True


_PLAIN_MOUNTS = _plain_container_field("volumeMounts")
_PLAIN_PORTS = _plain_container_field("ports")
_PLAIN_RESOURCES = _plain_container_field("resources")
_CONTAINER_JUDGES: dict[str, ContainerJudge] = {
    **{key: _plain_container_field(key) for key in CONTAINER_FIELD_CHECKS},
    "env": _env,
    "volumeMounts": _mounts,
    "ports": _ports,
    "resources": _resources,
    "securityContext": _remembered_container_field("securityContext"),
    "imagePullPolicy": _enum(PULL_POLICIES),
    "terminationMessagePolicy": _enum(TERMINATION_MESSAGE_POLICIES),
    "restartPolicy": _enum(RESTART_POLICIES),
}
_POD_JUDGES: dict[str, PodJudge] = {
    **{key: _plain_pod_field(key) for key in POD_FIELD_CHECKS},
    **{key: _remembered(key) for key in ("affinity", "securityContext",
                                         "topologySpreadConstraints", "dnsConfig",
                                         "hostAliases")},
    "initContainers": _container_list("initContainers"),
    "containers": _container_list("containers"),
    "volumes": _volumes,
    "tolerations": _tolerations,
    **{key: _subdomain for key in SUBDOMAIN_FIELDS},
    "hostname": _label,
    "subdomain": _label,
    "nodeSelector": _node_selector,
    "restartPolicy": _restart_policy,
}

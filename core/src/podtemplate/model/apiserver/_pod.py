"""The pod spec's own fields and the pod's metadata; containers and volumes elsewhere."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ._containers import PodFacts, check_containers
from ._facts import (
    ANNOTATIONS_MAX_BYTES,
    DNS_NAMESERVERS_MAX,
    DNS_POLICIES,
    DNS_SEARCH_CHARS_MAX,
    DNS_SEARCHES_MAX,
    INT32_MAX,
    OS_NAMES,
    PREEMPTION_POLICIES,
    RESTART_POLICIES,
    SLEEP_DEFAULT_GRACE,
    Rule,
    dns_label_ok,
    dns_subdomain_ok,
    enum_rule,
    int_in,
    ip_ok,
    qualified_name_ok,
)
from ._meta import check_object_fields, check_pod_annotations
from ._relations import check_relations, needs_relations
from ._report import Problems, item_path
from ._resources import check_quantity_map, check_resources
from ._scheduling import (
    check_affinity,
    check_labels,
    check_tolerations,
    check_topology_spread,
)
from ._security import check_pod_security
from ._volumes import check_volumes

__all__ = ["check_spec", "check_metadata", "check_pod_fields", "check_pod_field", "pod_facts",
           "POD_FIELD_CHECKS", "POD_FIELDS_RELATING", "SUBDOMAIN_FIELDS"]

RESTART = enum_rule("restartPolicy", RESTART_POLICIES, "validateRestartPolicy")
DNS_POLICY = enum_rule("dnsPolicy", DNS_POLICIES, "validateDNSPolicy")
DNS_NONE = Rule("dnsPolicy None needs a dnsConfig with at least one nameserver "
                "(k8s validatePodDNSConfig)", "add dnsConfig.nameservers, or use ClusterFirst")
DNS_CONFIG = Rule(f"dnsConfig has at most {DNS_NAMESERVERS_MAX} nameservers (IP addresses) "
                  f"and {DNS_SEARCHES_MAX} searches (DNS names, {DNS_SEARCH_CHARS_MAX} "
                  "characters in all), options with names (k8s validatePodDNSConfig)",
                  "trim the lists and fix the entries")
CONTAINERS = Rule("a pod has at least one container (k8s validateContainers)", "add a container")
EPHEMERAL = Rule("ephemeral containers are added to running pods, never in a pod template "
                 "or a new pod (k8s ValidatePodTemplateSpec, ValidatePodCreate)",
                 "remove ephemeralContainers")
SUBDOMAIN = Rule("this field is a DNS-1123 subdomain (k8s ValidatePodSpec)",
                 "use lowercase letters, digits, '-' and '.', at most 253 characters")
LABEL = Rule("hostname and subdomain are DNS-1123 labels (k8s ValidatePodSpec)",
             "use at most 63 lowercase letters, digits and '-'")
DEADLINE = Rule(f"activeDeadlineSeconds is between 1 and {INT32_MAX} (k8s ValidatePodSpec)",
                "give a positive number of seconds")
PRIORITY = Rule(f"priority is an int32 (at most {INT32_MAX} in size) (k8s ValidatePodSpec)",
                "use a smaller number, or a priorityClassName")
PREEMPTION = enum_rule("preemptionPolicy", PREEMPTION_POLICIES, "validatePreemptionPolicy")
OS = enum_rule("os.name", OS_NAMES, "validateOS")
HOST_ALIAS = Rule("a hostAlias has an IP address and DNS-1123 hostnames "
                  "(k8s ValidateHostAliases)", "fix the ip or the hostnames")
HOST_NAMESPACES = Rule("hostUsers: false excludes hostNetwork, hostPID and hostIPC, and "
                       "shareProcessNamespace excludes hostPID [validateHostUsers, "
                       "validateShareProcessNamespace]", "drop one of the two")
READINESS_GATE = Rule("a readiness gate's conditionType is a qualified name "
                      "(k8s validateReadinessGates)", "use a name such as example.com/ready")
SCHEDULING_GATE = Rule("a scheduling gate's name is a qualified name, unique "
                       "(k8s validateSchedulingGates)", "use a name such as example.com/gate, once")
RESOURCE_CLAIM = Rule("a pod resourceClaim has a DNS-1123 label name, unique, and exactly one "
                      "of resourceClaimName and resourceClaimTemplateName "
                      "(k8s validatePodResourceClaim)", "name it and give one source")
ANNOTATIONS_SIZE = Rule(f"annotations total at most {ANNOTATIONS_MAX_BYTES} bytes (256 KiB), "
                        "keys and values together (k8s ValidateAnnotationsSize)",
                        "move large data to a ConfigMap")
GATED_NODE = Rule("a new Pod is not bound to a node (nodeName) while it has scheduling gates "
                  "(k8s ValidatePodCreate)", "drop nodeName or the scheduling gates")
OBJECT_NAME = Rule("an object's name is a DNS-1123 subdomain, its namespace a DNS-1123 label "
                   "(k8s ValidateObjectMeta)", "use lowercase letters, digits and '-'")
# schedulerName is free-form: the API server does not check it.
SUBDOMAIN_FIELDS = ("serviceAccountName", "serviceAccount", "nodeName", "priorityClassName",
                    "runtimeClassName")


def check_metadata(problems: Problems, path: str, metadata: Any, *, named: bool,
                   spec: Mapping[str, Any] | None = None) -> None:
    """Labels and annotations; the annotations the API server reads of a pod (with its
    ``spec``); and for a stored object (``named``) its name and what goes with it."""
    if not isinstance(metadata, dict):
        metadata = {}
    check_labels(problems, f"{path}.labels", metadata.get("labels"))
    annotations = metadata.get("annotations")
    if isinstance(annotations, dict):
        check_labels(problems, f"{path}.annotations", annotations, values=False)
        size = _annotations_size(annotations)
        if size > ANNOTATIONS_MAX_BYTES:
            problems.add(f"{path}.annotations", ANNOTATIONS_SIZE, f"{size} bytes")
        if spec is not None:
            check_pod_annotations(problems, f"{path}.annotations", annotations, spec)
    if named:
        name = metadata.get("name")
        if not dns_subdomain_ok(name) and not metadata.get("generateName"):
            problems.add(f"{path}.name", OBJECT_NAME, f"{name!r} is not a valid name"
                         if name is not None else "no name and no generateName")
        namespace = metadata.get("namespace")
        if namespace is not None and not dns_label_ok(namespace):
            problems.add(f"{path}.namespace", OBJECT_NAME, f"{namespace!r} is not valid")
        check_object_fields(problems, path, metadata)


def _annotations_size(annotations: dict[Any, Any]) -> int:
    """The UTF-8 bytes of keys and values - or their characters, when those show the
    bytes are within the limit (a character is at most 4 bytes; annotations are usually
    far below the limit, and counting characters makes no copies)."""
    chars = 0
    for key, value in annotations.items():
        chars += len(str(key)) + len(str(value))
    if chars * 4 <= ANNOTATIONS_MAX_BYTES:
        return chars
    return sum(len(str(k).encode()) + len(str(v).encode()) for k, v in annotations.items())


def check_spec(problems: Problems, spec: Mapping[str, Any], base: str) -> None:
    volumes = check_volumes(problems, spec, base) if spec.get("volumes") else {}
    if problems.final and not spec.get("containers"):
        problems.add(f"{base}.containers", CONTAINERS, "no containers")
    check_containers(problems, spec, base, pod_facts(spec, volumes))
    check_pod_fields(problems, spec, base)
    if needs_relations(spec):
        check_relations(problems, spec, base)
    if problems.pod and spec.get("nodeName") and spec.get("schedulingGates"):
        problems.add(f"{base}.nodeName", GATED_NODE, "with scheduling gates")


def pod_facts(spec: Mapping[str, Any], volumes: dict[str, Mapping[str, Any]]) -> PodFacts:
    """What the container checks need of the pod: all of it from the pod's own fields
    (none from its containers)."""
    grace = spec.get("terminationGracePeriodSeconds")
    claims = frozenset(c["name"] for c in spec["resourceClaims"]
                       if isinstance(c, dict) and type(c.get("name")) is str) \
        if spec.get("resourceClaims") else _NO_CLAIMS
    return PodFacts(volumes, claims, bool(spec.get("hostNetwork")),
                    grace if type(grace) is int else SLEEP_DEFAULT_GRACE, set(), set())


def check_pod_fields(problems: Problems, spec: Mapping[str, Any], base: str) -> None:
    """The pod's own fields but its volumes and containers: none of their rules reads a
    container."""
    # Only the fields the pod sets are visited (a pod sets a few of the ~40).
    fields = _FIELDS if problems.local else _RELATING
    for key, value in spec.items():
        check = fields.get(key)
        if check is not None and value is not None:
            check(problems, base, value, spec)


def check_pod_field(problems: Problems, base: str, key: str, value: Any,
                    spec: Mapping[str, Any]) -> None:
    """One of the pod's own fields (not None), as :func:`check_pod_fields` checks it."""
    check = _FIELDS.get(key)
    if check is not None:
        check(problems, base, value, spec)


_NO_CLAIMS: frozenset[str] = frozenset()
SpecCheck = Callable[[Problems, str, Any, Mapping[str, Any]], None]


def _enum(key: str, values: frozenset[str], rule: Rule) -> SpecCheck:
    def check(problems: Problems, base: str, value: Any, _: Any) -> None:
        if value not in values and value != "":  # "" is defaulted (k8s SetDefaults_PodSpec)
            problems.add(f"{base}.{key}", rule, f"{value!r} is not supported")
    return check


def _name(key: str, valid: Callable[[object], bool], rule: Rule, what: str) -> SpecCheck:
    def check(problems: Problems, base: str, value: Any, _: Any) -> None:
        if value and not valid(value):
            problems.add(f"{base}.{key}", rule, f"{value!r} is not a {what}")
    return check


def _range(key: str, low: int, high: int, rule: Rule) -> SpecCheck:
    def check(problems: Problems, base: str, value: Any, _: Any) -> None:
        if not int_in(value, low, high):
            problems.add(f"{base}.{key}", rule, f"{value!r} is out of range")
    return check


def _nested(key: str, check_at: Callable[[Problems, str, Any], None]) -> SpecCheck:
    def check(problems: Problems, base: str, value: Any, _: Any) -> None:
        if value:
            check_at(problems, f"{base}.{key}", value)
    return check


def _os(problems: Problems, base: str, value: Any, _: Any) -> None:
    if isinstance(value, dict) and value.get("name") not in OS_NAMES:
        problems.add(f"{base}.os.name", OS, f"{value.get('name')!r} is not supported")


def _host_users(problems: Problems, base: str, value: Any, spec: Mapping[str, Any]) -> None:
    if value is False:
        for key in ("hostNetwork", "hostPID", "hostIPC"):
            if spec.get(key):  # reported where the server reports it: the host field
                problems.add(f"{base}.{key}", HOST_NAMESPACES, "with hostUsers: false")


def _share_process(problems: Problems, base: str, value: Any,
                   spec: Mapping[str, Any]) -> None:
    if value and spec.get("hostPID"):
        problems.add(f"{base}.shareProcessNamespace", HOST_NAMESPACES, "with hostPID")


def _ephemeral(problems: Problems, base: str, value: Any, _: Any) -> None:
    if value and problems.final:
        problems.add(f"{base}.ephemeralContainers", EPHEMERAL, "set")


def _overhead(problems: Problems, base: str, value: Any, _: Any) -> None:
    check_quantity_map(problems, f"{base}.overhead", value, names=False)


def _pod_resources(problems: Problems, base: str, value: Any, _: Any) -> None:
    check_resources(problems, f"{base}.resources", value, pod_level=True)


def _dns_policy(problems: Problems, base: str, value: Any, spec: Mapping[str, Any]) -> None:
    if value not in DNS_POLICIES and value != "":  # "" is defaulted to ClusterFirst
        problems.add(f"{base}.dnsPolicy", DNS_POLICY, f"{value!r} is not supported")
    config = spec.get("dnsConfig")
    if value == "None" and problems.final and not (
            isinstance(config, dict) and config.get("nameservers")):
        problems.add(f"{base}.dnsConfig", DNS_NONE, "dnsPolicy None without nameservers")


def _dns_config(problems: Problems, base: str, config: Any, _: Any) -> None:
    if not isinstance(config, dict):
        return
    servers = config.get("nameservers") or []
    searches = config.get("searches") or []
    bad = (len(servers) > DNS_NAMESERVERS_MAX or len(searches) > DNS_SEARCHES_MAX
           or not all(ip_ok(s) for s in servers)
           or not all(type(s) is str and _search_ok(s) for s in searches)
           or sum(len(s) for s in searches if type(s) is str) + len(searches) - 1
           > DNS_SEARCH_CHARS_MAX
           or not all(isinstance(o, dict) and o.get("name") for o in
                      config.get("options") or ()))
    if bad:
        problems.add(f"{base}.dnsConfig", DNS_CONFIG, "nameservers, searches or options")


def _search_ok(search: str) -> bool:
    """A DNS search name: ``.``, or a DNS-1123 subdomain that may hold ``_`` and end with
    a dot (k8s validatePodDNSConfig, relaxed search validation, on by default since 1.33)."""
    return search == "." or dns_subdomain_ok(search.removesuffix(".").replace("_", "a"))


def _host_aliases(problems: Problems, base: str, value: Any, _: Any) -> None:
    for index, alias in enumerate(value):
        if isinstance(alias, dict) and (not ip_ok(alias.get("ip")) or not all(
                dns_subdomain_ok(h) for h in alias.get("hostnames") or ())):
            problems.add(f"{base}.hostAliases[{index}]", HOST_ALIAS, f"{alias.get('ip')!r}")


def _readiness_gates(problems: Problems, base: str, value: Any, _: Any) -> None:
    for index, gate in enumerate(value):
        if isinstance(gate, dict) and not qualified_name_ok(gate.get("conditionType")):
            problems.add(f"{base}.readinessGates[{index}].conditionType", READINESS_GATE,
                         f"{gate.get('conditionType')!r}")


def _scheduling_gates(problems: Problems, base: str, value: Any, _: Any) -> None:
    seen: set[Any] = set()
    for index, gate in enumerate(value):
        name = gate.get("name") if isinstance(gate, dict) else None
        if not qualified_name_ok(name) or name in seen:
            problems.add(f"{base}.schedulingGates[{index}].name", SCHEDULING_GATE, f"{name!r}")
        seen.add(name)


def _resource_claims(problems: Problems, base: str, value: Any, _: Any) -> None:
    seen: set[Any] = set()
    for index, claim in enumerate(value):
        if not isinstance(claim, dict):
            continue
        name = claim.get("name")
        sources = [k for k in ("resourceClaimName", "resourceClaimTemplateName") if claim.get(k)]
        if not dns_label_ok(name) or name in seen or len(sources) != 1:
            problems.add(item_path(f"{base}.resourceClaims", index, claim), RESOURCE_CLAIM,
                         f"{name!r} with {len(sources)} sources")
        seen.add(name)


_FIELDS: dict[str, SpecCheck] = {
    "restartPolicy": _enum("restartPolicy", RESTART_POLICIES, RESTART),
    "preemptionPolicy": _enum("preemptionPolicy", PREEMPTION_POLICIES, PREEMPTION),
    "dnsPolicy": _dns_policy,
    "dnsConfig": _dns_config,
    **{key: _name(key, dns_subdomain_ok, SUBDOMAIN, "DNS-1123 subdomain")
       for key in SUBDOMAIN_FIELDS},
    "hostname": _name("hostname", dns_label_ok, LABEL, "DNS-1123 label"),
    "subdomain": _name("subdomain", dns_label_ok, LABEL, "DNS-1123 label"),
    "activeDeadlineSeconds": _range("activeDeadlineSeconds", 1, INT32_MAX, DEADLINE),
    "priority": _range("priority", -INT32_MAX - 1, INT32_MAX, PRIORITY),
    "os": _os,
    "hostUsers": _host_users,
    "shareProcessNamespace": _share_process,
    "ephemeralContainers": _ephemeral,
    "overhead": _overhead,
    "resources": _pod_resources,
    "nodeSelector": _nested("nodeSelector", check_labels),
    "tolerations": _nested("tolerations", check_tolerations),
    "affinity": _nested("affinity", check_affinity),
    "topologySpreadConstraints": _nested("topologySpreadConstraints", check_topology_spread),
    "securityContext": _nested("securityContext", check_pod_security),
    "hostAliases": _host_aliases,
    "readinessGates": _readiness_gates,
    "schedulingGates": _scheduling_gates,
    "resourceClaims": _resource_claims,
}
# The pod fields whose rules relate values that different layers may give.
_RELATING = {key: _FIELDS[key] for key in (
    "dnsPolicy", "hostUsers", "shareProcessNamespace", "ephemeralContainers", "resources",
    "securityContext", "topologySpreadConstraints", "resourceClaims")}
POD_FIELD_CHECKS = frozenset(_FIELDS)
# The pod fields whose check reads another field of the pod.
POD_FIELDS_RELATING = frozenset(("hostUsers", "shareProcessNamespace", "dnsPolicy"))

"""A corpus of pods the Kubernetes API server refuses: one rule broken in each.

``INVALID`` holds ``(id, change, path, rule word)``: ``change`` breaks one rule of a valid
pod (:func:`base`, a PodTemplateSpec dict), ``path`` is the field path the problem is
reported at and ``rule word`` a word of the rule as :class:`podtemplate.ApiProblem`
cites it. ``podtemplate.check_pod_template`` finds each; render refuses each. A task type
or a tool that checks pods can run its own checks over it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["IMAGE", "INVALID", "Pod", "base", "invalid_pod", "set_spec"]

Pod = dict[str, Any]
IMAGE = "python:3.11"


def base() -> Pod:
    return {"metadata": {"labels": {"team": "ml"}},
            "spec": {"containers": [{"name": "primary", "image": IMAGE}]}}


def primary(pod: Pod) -> dict[str, Any]:
    container: dict[str, Any] = pod["spec"]["containers"][0]
    return container


def set_spec(**fields: Any) -> Callable[[Pod], None]:
    return lambda pod: pod["spec"].update(fields)


def set_primary(**fields: Any) -> Callable[[Pod], None]:
    return lambda pod: primary(pod).update(fields)


def add_volume(volume: dict[str, Any], mount: dict[str, Any] | None = None
               ) -> Callable[[Pod], None]:
    def change(pod: Pod) -> None:
        pod["spec"].setdefault("volumes", []).append(volume)
        if mount is not None:
            primary(pod).setdefault("volumeMounts", []).append(mount)
    return change


def add_init(**fields: Any) -> Callable[[Pod], None]:
    return lambda pod: pod["spec"].setdefault("initContainers", []).append(
        {"name": "warmup", "image": "busybox:1", **fields})


def resources(**kinds: dict[str, str]) -> Callable[[Pod], None]:
    return set_primary(resources=kinds)


def probe(kind: str = "livenessProbe", **fields: Any) -> Callable[[Pod], None]:
    return set_primary(**{kind: {"exec": {"command": ["true"]}, **fields}})


def secure(**fields: Any) -> Callable[[Pod], None]:
    return set_primary(securityContext=fields)


def env(*items: dict[str, Any]) -> Callable[[Pod], None]:
    return set_primary(env=list(items))


def big_annotations(pod: Pod) -> None:
    pod["metadata"]["annotations"] = {f"example.com/blob-{i}": "x" * 70_000 for i in range(4)}


P = "spec.containers[primary]"
REF = {"configMapKeyRef": {"name": "cm", "key": "k"}, "secretKeyRef": {"name": "s", "key": "k"}}
PREFERRED = "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution"
REQUIRED = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"

# (id, change to a valid pod, the field path refused, a word of the rule it breaks)
INVALID: list[tuple[str, Callable[[Pod], object], str, str]] = [
    ("request-above-limit", resources(requests={"memory": "2Gi"}, limits={"memory": "1Gi"}),
     f"{P}.resources.requests.memory", "request is <= its limit"),
    ("unqualified-extended-resource", resources(limits={"gpu": "1"}),
     f"{P}.resources.limits.gpu", "validateContainerResourceName"),
    ("restart-policy", set_spec(restartPolicy="Sometimes"), "spec.restartPolicy",
     "validateRestartPolicy"),
    ("toleration-operator", set_spec(tolerations=[{"key": "a", "operator": "Exist"}]),
     "spec.tolerations[0].operator", "validateTolerations"),
    ("toleration-effect", set_spec(tolerations=[{"key": "a", "operator": "Exists",
                                                 "effect": "NoSchedul"}]),
     "spec.tolerations[0].effect", "toleration effect is one of"),
    ("toleration-exists-with-value", set_spec(tolerations=[{"key": "a", "operator": "Exists",
                                                            "value": "b"}]),
     "spec.tolerations[0].value", "operator Exists has no value"),
    ("toleration-seconds-without-noexecute",
     set_spec(tolerations=[{"key": "a", "operator": "Exists", "effect": "NoSchedule",
                            "tolerationSeconds": 5}]),
     "spec.tolerations[0].tolerationSeconds", "only for effect NoExecute"),
    ("container-port", set_primary(ports=[{"containerPort": 99999}]),
     f"{P}.ports[0].containerPort", "ValidatePortNum"),
    ("host-port", set_primary(ports=[{"containerPort": 80, "hostPort": 70000}]),
     f"{P}.ports[0].hostPort", "hostPort is 0 (none) or between 1 and 65535"),
    ("port-protocol", set_primary(ports=[{"containerPort": 80, "protocol": "HTTP"}]),
     f"{P}.ports[0].protocol", "port protocol is one of SCTP | TCP | UDP"),
    ("port-name", set_primary(ports=[{"containerPort": 80, "name": "a-very-long-port-name"}]),
     f"{P}.ports[a-very-long-port-name].name", "IANA service name"),
    ("host-network-port", lambda pod: (set_spec(hostNetwork=True)(pod), set_primary(
        ports=[{"containerPort": 80, "hostPort": 8080}])(pod)),
     f"{P}.ports[0].hostPort", "validateHostNetwork"),
    ("init-and-container-same-name", lambda pod: (add_init()(pod), pod["spec"][
        "containers"].append({"name": "warmup", "image": "busybox:1"})),
     "spec.containers[warmup].name", "unique across containers, initContainers"),
    ("container-name", lambda pod: pod["spec"]["containers"].append(
        {"name": "Side_Car", "image": "envoy:1"}),
     "spec.containers[Side_Car].name", "validateContainers"),
    ("env-name", env({"name": "A=B", "value": "1"}), f"{P}.env[A=B].name",
     "validateEnvVarName"),
    ("env-two-sources", env({"name": "X", "valueFrom": REF}), f"{P}.env[X].valueFrom",
     "validateEnvVarValueFrom"),
    ("env-value-and-source", env({"name": "X", "value": "1", "valueFrom": {
        "secretKeyRef": {"name": "s", "key": "k"}}}), f"{P}.env[X].valueFrom",
     "validateEnvVarValueFrom"),
    ("env-field-path", env({"name": "X", "valueFrom": {"fieldRef": {
        "fieldPath": "spec.containers"}}}), f"{P}.env[X].valueFrom.fieldRef.fieldPath",
     "validateObjectFieldSelector"),
    ("env-from-two-sources", set_primary(envFrom=[{"configMapRef": {"name": "a"},
                                                   "secretRef": {"name": "b"}}]),
     f"{P}.envFrom[0]", "validateEnvFrom"),
    ("mount-without-volume", set_primary(volumeMounts=[{"name": "ghost", "mountPath": "/g"}]),
     f"{P}.volumeMounts[ghost].name", "ValidateVolumeMounts"),
    ("mount-sub-path", add_volume({"name": "data", "emptyDir": {}},
                                  {"name": "data", "mountPath": "/d", "subPath": "../etc"}),
     f"{P}.volumeMounts[data].subPath", "subPath is a relative path"),
    ("mount-propagation", add_volume({"name": "data", "emptyDir": {}},
                                     {"name": "data", "mountPath": "/d",
                                      "mountPropagation": "Bidirectional"}),
     f"{P}.volumeMounts[data].mountPropagation", "validateMountPropagation"),
    ("volume-two-sources", add_volume({"name": "data", "emptyDir": {},
                                       "configMap": {"name": "cm"}}),
     "spec.volumes[data]", "validateVolumeSource"),
    ("volume-no-source", add_volume({"name": "data"}), "spec.volumes[data]",
     "exactly one source"),
    ("volume-name", add_volume({"name": "Data_1", "emptyDir": {}}), "spec.volumes[Data_1].name",
     "ValidateVolumes"),
    ("volume-claim-name", add_volume({"name": "data", "persistentVolumeClaim": {
        "claimName": ""}}), "spec.volumes[data].persistentVolumeClaim.claimName",
     "names what it mounts"),
    ("empty-dir-medium", add_volume({"name": "data", "emptyDir": {"medium": "Disk"}}),
     "spec.volumes[data].emptyDir.medium", "validateEmptyDirVolumeSource"),
    ("empty-dir-size", add_volume({"name": "data", "emptyDir": {"sizeLimit": "-1Gi"}}),
     "spec.volumes[data].emptyDir.sizeLimit", ">= 0"),
    ("secret-mode", add_volume({"name": "data", "secret": {"secretName": "s",
                                                          "defaultMode": 0o1000}}),
     "spec.volumes[data].secret.defaultMode", "0777"),
    ("host-path-type", add_volume({"name": "data", "hostPath": {"path": "/x", "type": "Dir"}}),
     "spec.volumes[data].hostPath.type", "validateHostPathType"),
    ("token-expiration", add_volume({"name": "tok", "projected": {"sources": [
        {"serviceAccountToken": {"path": "t", "expirationSeconds": 60}}]}}),
     "spec.volumes[tok].projected.sources[0].serviceAccountToken", "expirationSeconds"),
    ("probe-two-handlers", probe(httpGet={"port": 80}), f"{P}.livenessProbe",
     "validateHandler"),
    ("probe-no-handler", set_primary(readinessProbe={"periodSeconds": 5}),
     f"{P}.readinessProbe", "exactly one handler"),
    ("liveness-success-threshold", probe(successThreshold=2),
     f"{P}.livenessProbe.successThreshold", "validateLivenessProbe"),
    ("probe-negative-period", probe("readinessProbe", periodSeconds=-1),
     f"{P}.readinessProbe.periodSeconds", "validateProbe"),
    ("http-port", set_primary(livenessProbe={"httpGet": {"port": 0}}),
     f"{P}.livenessProbe.httpGet.port", "ValidatePortNumOrName"),
    ("http-scheme", set_primary(livenessProbe={"httpGet": {"port": 80, "scheme": "FTP"}}),
     f"{P}.livenessProbe.httpGet.scheme", "validateHTTPGetAction"),
    ("grpc-port", set_primary(startupProbe={"grpc": {"port": 70000}}),
     f"{P}.startupProbe.grpc.port", "ValidatePortNum"),
    ("sleep-beyond-grace", set_primary(lifecycle={"preStop": {"sleep": {"seconds": 60}}}),
     f"{P}.lifecycle.preStop.sleep.seconds", "validateSleepAction"),
    ("init-container-probe", add_init(livenessProbe={"exec": {"command": ["true"]}}),
     "spec.initContainers[warmup].livenessProbe", "validateInitContainers"),
    ("dns-none-without-config", set_spec(dnsPolicy="None"), "spec.dnsConfig",
     "validatePodDNSConfig"),
    ("dns-policy", set_spec(dnsPolicy="Cluster"), "spec.dnsPolicy", "validateDNSPolicy"),
    ("dns-nameservers", set_spec(dnsConfig={"nameservers": ["1.1.1.1", "1.0.0.1", "8.8.8.8",
                                                            "8.8.4.4"]}),
     "spec.dnsConfig", "at most 3 nameservers"),
    ("pull-policy", set_primary(imagePullPolicy="Sometimes"), f"{P}.imagePullPolicy",
     "validatePullPolicy"),
    ("negative-memory", resources(requests={"memory": "-1"}), f"{P}.resources.requests.memory",
     "ValidateResourceQuantityValue"),
    ("fractional-extended", resources(limits={"nvidia.com/gpu": "0.5"}),
     f"{P}.resources.limits.nvidia.com/gpu", "whole number"),
    ("extended-request-not-limit", resources(requests={"example.com/fpga": "1"},
                                             limits={"example.com/fpga": "2"}),
     f"{P}.resources.requests.example.com/fpga", "equals its limit"),
    ("extended-request-without-limit", resources(requests={"example.com/fpga": "1"}),
     f"{P}.resources.requests.example.com/fpga", "has a limit"),
    ("node-selector-value", set_spec(nodeSelector={"pool": "gpu nodes!"}),
     "spec.nodeSelector.pool", "IsValidLabelValue"),
    ("annotations-size", big_annotations, "metadata.annotations", "ValidateAnnotationsSize"),
    ("run-as-user", secure(runAsUser=-1), f"{P}.securityContext.runAsUser", "IsValidUserID"),
    ("privilege-escalation", secure(privileged=True, allowPrivilegeEscalation=False),
     f"{P}.securityContext.allowPrivilegeEscalation", "ValidateSecurityContext"),
    ("seccomp-localhost", set_spec(securityContext={"seccompProfile": {"type": "Localhost"}}),
     "spec.securityContext.seccompProfile.localhostProfile", "validateSeccompProfileField"),
    ("fs-group-change", set_spec(securityContext={"fsGroupChangePolicy": "Sometimes"}),
     "spec.securityContext.fsGroupChangePolicy", "validateFSGroupChangePolicy"),
    ("sysctl-name", set_spec(securityContext={"sysctls": [{"name": "Net.Core", "value": "1"}]}),
     "spec.securityContext.sysctls[0].name", "validateSysctls"),
    ("active-deadline", set_spec(activeDeadlineSeconds=0), "spec.activeDeadlineSeconds",
     "activeDeadlineSeconds is between 1"),
    ("priority-int32", set_spec(priority=2**31), "spec.priority", "int32"),
    ("preemption-policy", set_spec(preemptionPolicy="Sometimes"), "spec.preemptionPolicy",
     "validatePreemptionPolicy"),
    ("os-name", set_spec(os={"name": "macos"}), "spec.os.name", "validateOS"),
    ("service-account-name", set_spec(serviceAccountName="Bad_Name"),
     "spec.serviceAccountName", "DNS-1123 subdomain"),
    ("affinity-weight", set_spec(affinity={"nodeAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 0, "preference": {
            "matchExpressions": [{"key": "a", "operator": "Exists"}]}}]}}),
     f"{PREFERRED}[0].weight", "weight is between 1 and 100"),
    ("node-selector-terms", set_spec(affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}}),
     f"{REQUIRED}.nodeSelectorTerms", "ValidateNodeSelector"),
    ("selector-in-without-values", set_spec(affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "a", "operator": "In"}]}]}}}),
     f"{REQUIRED}.nodeSelectorTerms[0].matchExpressions[0].values",
     "validateNodeSelectorRequirement"),
    ("spread-max-skew", set_spec(topologySpreadConstraints=[{
        "maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]),
     "spec.topologySpreadConstraints[0].maxSkew", "maxSkew is > 0"),
    ("spread-unsatisfiable", set_spec(topologySpreadConstraints=[{
        "maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "Maybe"}]),
     "spec.topologySpreadConstraints[0].whenUnsatisfiable", "whenUnsatisfiable is one of"),
    ("host-alias-ip", set_spec(hostAliases=[{"ip": "300.1.1.1", "hostnames": ["a"]}]),
     "spec.hostAliases[0]", "ValidateHostAliases"),
    ("scheduling-gate", set_spec(schedulingGates=[{"name": "-gate"}]),
     "spec.schedulingGates[0].name", "validateSchedulingGates"),
    ("resource-claim-sources", set_spec(resourceClaims=[{
        "name": "gpu", "resourceClaimName": "a", "resourceClaimTemplateName": "b"}]),
     "spec.resourceClaims[gpu]", "validatePodResourceClaim"),
    ("ephemeral-containers", set_spec(ephemeralContainers=[{"name": "debug",
                                                             "image": "busybox:1"}]),
     "spec.ephemeralContainers", "never in a pod template"),
    ("host-users-with-host-network", set_spec(hostUsers=False, hostNetwork=True),
     "spec.hostUsers", "validateHostUsers"),
]


def invalid_pod(case: str) -> Pod:
    """The pod of one case of :data:`INVALID`, by its id."""
    for name, change, _, _ in INVALID:
        if name == case:
            pod = base()
            change(pod)
            return pod
    raise KeyError(case)

"""A corpus of pods the Kubernetes API server refuses: one rule broken in each.

``INVALID`` holds ``(id, change, path, rule word)``: ``change`` breaks one rule of a valid
pod (:func:`base`, a PodTemplateSpec dict), ``path`` is the field path the problem is
reported at and ``rule word`` a word of the rule as :class:`podtemplate.ApiProblem`
cites it. ``podtemplate.check_pod_template`` finds each; render refuses each. ``POD_ONLY``
holds cases of the same shape that only a ``kind: Pod`` breaks (its stored metadata), and
``VALID`` holds ``(id, change)``: tricky pods the API server accepts, often only once it has
defaulted a field. A task type or a tool that checks pods can run its own checks over it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["IMAGE", "INVALID", "POD_ONLY", "VALID", "Pod", "base", "invalid_pod", "set_spec"]

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
     "spec.tolerations[0].operator", "operator Exists has no value"),
    ("toleration-seconds-without-noexecute",
     set_spec(tolerations=[{"key": "a", "operator": "Exists", "effect": "NoSchedule",
                            "tolerationSeconds": 5}]),
     "spec.tolerations[0].effect", "only for effect NoExecute"),
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
     "spec.initContainers[warmup].name", "unique across containers, initContainers"),
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
    ("volume-name", add_volume({"name": "Data_1", "emptyDir": {}}), "spec.volumes[Data_1].name",
     "ValidateVolumes"),
    ("volume-claim-name", add_volume({"name": "data", "persistentVolumeClaim": {
        "claimName": ""}}), "spec.volumes[data].persistentVolumeClaim.claimName",
     "names what it mounts"),
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
     f"{P}.resources.limits", "has a limit"),
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
     "spec.hostNetwork", "validateHostUsers"),
    # Linux-only fields on a windows pod, windows options on a linux pod
    *[(f"windows-{key}", lambda pod, key=key, value=value: set_spec(
        os={"name": "windows"}, securityContext={key: value})(pod),
       f"spec.securityContext.{key}", "validateWindows") for key, value in (
        ("runAsUser", 1000), ("fsGroup", 2000), ("seccompProfile", {"type": "RuntimeDefault"}),
        ("sysctls", [{"name": "net.core.somaxconn", "value": "1"}]),
        ("seLinuxOptions", {"level": "s0"}), ("supplementalGroups", [1]))],
    *[(f"windows-container-{key}", lambda pod, key=key, value=value: (
        set_spec(os={"name": "windows"})(pod), secure(**{key: value})(pod)),
       f"{P}.securityContext.{key}", "validateWindows") for key, value in (
        ("privileged", False), ("capabilities", {"drop": ["ALL"]}), ("runAsGroup", 1),
        ("readOnlyRootFilesystem", True), ("allowPrivilegeEscalation", False))],
    ("windows-host-pid", set_spec(os={"name": "windows"}, hostPID=True), "spec.hostPID",
     "validateWindows"),
    ("windows-host-users", set_spec(os={"name": "windows"}, hostUsers=True), "spec.hostUsers",
     "validateWindows"),
    ("windows-share-process", set_spec(os={"name": "windows"}, shareProcessNamespace=False),
     "spec.shareProcessNamespace", "validateWindows"),
    ("windows-pod-resources", set_spec(os={"name": "windows"}, resources={
        "limits": {"cpu": "1"}}), "spec.resources", "validateWindows"),
    ("linux-windows-options", lambda pod: (set_spec(os={"name": "linux"})(pod), secure(
        windowsOptions={"runAsUserName": "ContainerUser"})(pod)),
     f"{P}.securityContext.windowsOptions", "validateLinux"),
    # container restart rules
    ("restart-rules-without-policy", set_primary(restartPolicyRules=[
        {"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}]),
     f"{P}.restartPolicy", "validateContainerRestartPolicy"),
    ("restart-rules-action", set_primary(restartPolicy="Never", restartPolicyRules=[
        {"action": "Reboot", "exitCodes": {"operator": "In", "values": [42]}}]),
     f"{P}.restartPolicyRules[0].action", "validateContainerRestartPolicy"),
    ("restart-rules-operator", set_primary(restartPolicy="Never", restartPolicyRules=[
        {"action": "Restart", "exitCodes": {"operator": "Equals", "values": [42]}}]),
     f"{P}.restartPolicyRules[0].exitCodes.operator", "validateContainerRestartPolicy"),
    ("restart-rules-no-exit-codes", set_primary(restartPolicy="Never", restartPolicyRules=[
        {"action": "Restart"}]),
     f"{P}.restartPolicyRules[0].exitCodes", "validateContainerRestartPolicy"),
    ("restart-rules-on-sidecar", add_init(restartPolicy="Always", restartPolicyRules=[
        {"action": "Restart", "exitCodes": {"operator": "In", "values": [1]}}]),
     "spec.initContainers[warmup].restartPolicyRules", "validateContainerRestartPolicy"),
    # ephemeral volume claim templates
    ("ephemeral-without-template", add_volume({"name": "data", "ephemeral": {}}),
     "spec.volumes[data].ephemeral.volumeClaimTemplate", "validateEphemeralVolumeSource"),
    ("ephemeral-no-access-modes", add_volume({"name": "data", "ephemeral": {
        "volumeClaimTemplate": {"spec": {"resources": {"requests": {"storage": "1Gi"}}}}}}),
     "spec.volumes[data].ephemeral.volumeClaimTemplate.spec.accessModes",
     "validateEphemeralVolumeSource"),
    ("ephemeral-no-storage", add_volume({"name": "data", "ephemeral": {
        "volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"]}}}}),
     "spec.volumes[data].ephemeral.volumeClaimTemplate.spec.resources[storage]",
     "validateEphemeralVolumeSource"),
    ("ephemeral-template-name", add_volume({"name": "data", "ephemeral": {
        "volumeClaimTemplate": {"metadata": {"name": "claim"}, "spec": {
            "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}}}),
     "spec.volumes[data].ephemeral.volumeClaimTemplate.metadata.name",
     "validateEphemeralVolumeSource"),
    ("ephemeral-access-mode", add_volume({"name": "data", "ephemeral": {
        "volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteSometimes"],
                                         "resources": {"requests": {"storage": "1Gi"}}}}}}),
     "spec.volumes[data].ephemeral.volumeClaimTemplate.spec.accessModes",
     "validateEphemeralVolumeSource"),
    # hostnameOverride
    ("hostname-override-syntax", set_spec(hostnameOverride="Not_A_Name"),
     "spec.hostnameOverride", "validatePodHostName"),
    ("hostname-override-fqdn", set_spec(hostnameOverride="node-a", setHostnameAsFQDN=True),
     "spec.hostnameOverride", "validatePodHostName"),
    ("hostname-override-host-network", set_spec(hostnameOverride="node-a", hostNetwork=True),
     "spec.hostnameOverride", "validatePodHostName"),
    ("hostname-override-long", set_spec(hostnameOverride="a" * 65),
     "spec.hostnameOverride", "validatePodHostName"),
    # pod-level resources against the containers'
    ("pod-requests-below-containers", lambda pod: (
        set_spec(resources={"requests": {"cpu": "1"}})(pod),
        resources(requests={"cpu": "2"})(pod)),
     "spec.resources.requests.cpu", "validatePodResourceConsistency"),
    ("pod-limit-below-container", lambda pod: (
        set_spec(resources={"limits": {"memory": "1Gi"}})(pod),
        resources(limits={"memory": "2Gi"})(pod)),
     "spec.resources.containers[0][memory].limits", "validatePodResourceConsistency"),
    ("pod-requests-below-sidecar", lambda pod: (
        set_spec(resources={"requests": {"cpu": "1"}})(pod),
        resources(requests={"cpu": "600m"})(pod),
        add_init(restartPolicy="Always", resources={"requests": {"cpu": "600m"}})(pod)),
     "spec.resources.requests.cpu", "validatePodResourceConsistency"),
    # env fileKeyRef
    ("file-key-ref-no-volume", env({"name": "X", "valueFrom": {"fileKeyRef": {
        "volumeName": "ghost", "path": "env", "key": "X"}}}),
     f"{P}.env[X].valueFrom.fileKeyRef.volumeName", "validateFileKeyRefVolumes"),
    ("file-key-ref-not-empty-dir", lambda pod: (
        add_volume({"name": "cfg", "configMap": {"name": "c"}})(pod),
        env({"name": "X", "valueFrom": {"fileKeyRef": {
            "volumeName": "cfg", "path": "env", "key": "X"}}})(pod)),
     f"{P}.env[X].valueFrom.fileKeyRef.volumeName", "validateFileKeyRefVolumes"),
    ("file-key-ref-backstep", lambda pod: (
        add_volume({"name": "vars", "emptyDir": {}})(pod),
        env({"name": "X", "valueFrom": {"fileKeyRef": {
            "volumeName": "vars", "path": "../env", "key": "X"}}})(pod)),
     f"{P}.env[X].valueFrom.fileKeyRef", "validateFileKeySelector"),
    # sysctls with host namespaces, procMount with host users
    ("net-sysctl-host-network", set_spec(hostNetwork=True, securityContext={
        "sysctls": [{"name": "net.core.somaxconn", "value": "1024"}]}),
     "spec.securityContext.sysctls[0].name", "ValidateHostSysctl"),
    ("ipc-sysctl-host-ipc", set_spec(hostIPC=True, securityContext={
        "sysctls": [{"name": "kernel/shm_rmid_forced", "value": "1"}]}),
     "spec.securityContext.sysctls[0].name", "ValidateHostSysctl"),
    ("proc-mount-unmasked", secure(procMount="Unmasked"), f"{P}.securityContext.procMount",
     "hostUsers: false"),
    # annotations the API server reads
    ("mirror-annotation", lambda pod: pod["metadata"].update(
        annotations={"kubernetes.io/config.mirror": "x"}),
     "metadata.annotations.kubernetes.io/config.mirror", "ValidatePodSpecificAnnotations"),
    ("deletion-cost", lambda pod: pod["metadata"].update(
        annotations={"controller.kubernetes.io/pod-deletion-cost": "+10"}),
     "metadata.annotations.controller.kubernetes.io/pod-deletion-cost",
     "ValidatePodSpecificAnnotations"),
    ("seccomp-annotation", lambda pod: pod["metadata"].update(
        annotations={"seccomp.security.alpha.kubernetes.io/pod": "strict"}),
     "metadata.annotations.seccomp.security.alpha.kubernetes.io/pod",
     "ValidateSeccompPodAnnotations"),
    ("apparmor-annotation-container", lambda pod: pod["metadata"].update(
        annotations={"container.apparmor.security.beta.kubernetes.io/ghost": "unconfined"}),
     "metadata.annotations.container.apparmor.security.beta.kubernetes.io/ghost",
     "ValidateAppArmorPodAnnotations"),
    ("tolerations-annotation", lambda pod: pod["metadata"].update(
        annotations={"scheduler.alpha.kubernetes.io/tolerations": "not json"}),
     "metadata.annotations.scheduler.alpha.kubernetes.io/tolerations",
     "ValidateTolerationsInPodAnnotations"),
]

# Metadata the API server checks of a stored object: a Pod's, not a PodTemplate's pod
# (whose metadata it reads for labels and annotations only). Each pod is named.
POD_ONLY: list[tuple[str, Callable[[Pod], object], str, str]] = [
    ("generate-name", lambda pod: pod["metadata"].update(generateName="Train_"),
     "metadata.generateName", "generateName"),
    ("finalizer-unqualified", lambda pod: pod["metadata"].update(finalizers=["cleanup"]),
     "metadata.finalizers[0]", "ValidateFinalizers"),
    ("finalizer-both", lambda pod: pod["metadata"].update(
        finalizers=["orphan", "foregroundDeletion"]),
     "metadata.finalizers", "ValidateFinalizers"),
    ("owner-without-uid", lambda pod: pod["metadata"].update(ownerReferences=[
        {"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": ""}]),
     "metadata.ownerReferences", "ValidateOwnerReferences"),
    ("node-name-with-gates", set_spec(nodeName="node-a", schedulingGates=[
        {"name": "example.com/quota"}]), "spec.nodeName", "ValidatePodCreate"),
    ("owner-two-controllers", lambda pod: pod["metadata"].update(ownerReferences=[
        {"apiVersion": "batch/v1", "kind": "Job", "name": n, "uid": n, "controller": True}
        for n in ("a", "b")]),
     "metadata.ownerReferences", "ValidateOwnerReferences"),
]

# Tricky pods the API server accepts: each (id, change) makes a valid pod of :func:`base`.
VALID: list[tuple[str, Callable[[Pod], object]]] = [
    ("volume-name-only", add_volume({"name": "data"}, {"name": "data", "mountPath": "/d"})),
    ("liveness-success-threshold-zero", probe(successThreshold=0)),
    ("startup-success-threshold-zero", probe("startupProbe", successThreshold=0)),
    ("free-form-scheduler-name", set_spec(schedulerName="My Scheduler_v2")),
    ("spread-topology-key-free-form", set_spec(topologySpreadConstraints=[{
        "maxSkew": 1, "topologyKey": "Zone Name!", "whenUnsatisfiable": "ScheduleAnyway"}])),
    ("port-host-ip-not-ip", set_primary(ports=[{"containerPort": 80, "hostPort": 8080,
                                                "hostIP": "my-host"}])),
    ("dns-search-underscore", set_spec(dnsConfig={"searches": ["_tcp.example.com"]})),
    ("dns-search-trailing-dot", set_spec(dnsConfig={"searches": ["example.com.", "."]})),
    ("annotation-uppercase-prefix", lambda pod: pod["metadata"].update(
        annotations={"Example.COM/Owner": "ml"})),
    ("file-key-ref-default-empty-dir", lambda pod: (
        add_volume({"name": "vars"})(pod),
        env({"name": "X", "valueFrom": {"fileKeyRef": {
            "volumeName": "vars", "path": "env", "key": "X"}}})(pod))),
    ("restart-rules", set_primary(restartPolicy="Never", restartPolicyRules=[
        {"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}])),
    ("proc-mount-unmasked-user-namespace", lambda pod: (
        set_spec(hostUsers=False)(pod), secure(procMount="Unmasked")(pod))),
    ("windows-pod", lambda pod: (set_spec(os={"name": "windows"})(pod), secure(
        windowsOptions={"runAsUserName": "ContainerUser"})(pod))),
    ("hostname-override", set_spec(hostnameOverride="node-a.example")),
    ("pod-level-resources", lambda pod: (
        set_spec(resources={"requests": {"cpu": "2"}, "limits": {"memory": "4Gi"}})(pod),
        resources(requests={"cpu": "1"}, limits={"memory": "2Gi"})(pod))),
    ("ephemeral-volume", add_volume({"name": "data", "ephemeral": {"volumeClaimTemplate": {
        "metadata": {"labels": {"a": "b"}}, "spec": {
            "accessModes": ["ReadWriteOncePod"], "volumeMode": "Filesystem",
            "resources": {"requests": {"storage": "1Gi"}}}}}},
        {"name": "data", "mountPath": "/d"})),
    ("uts-sysctl-host-network", set_spec(hostNetwork=True, securityContext={
        "sysctls": [{"name": "kernel.domainname", "value": "x"}]})),
    ("deletion-cost", lambda pod: pod["metadata"].update(
        annotations={"controller.kubernetes.io/pod-deletion-cost": "-5"})),
    ("empty-dir-medium-free-form", add_volume({"name": "data", "emptyDir": {"medium": "Disk"}})),
    ("defaulted-empty-policies", lambda pod: (set_spec(restartPolicy="", dnsPolicy="")(pod),
                                              set_primary(imagePullPolicy="")(pod))),
    ("limits-only", resources(limits={"cpu": "1", "example.com/fpga": "1"})),
]


def invalid_pod(case: str) -> Pod:
    """The pod of one case of :data:`INVALID` or :data:`POD_ONLY`, by its id."""
    for name, change, _, _ in INVALID + POD_ONLY:
        if name == case:
            pod = base()
            change(pod)
            return pod
    raise KeyError(case)

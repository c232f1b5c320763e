"""Rich, valid pod templates render on every installed task type without a false alarm
from the API-server rules, and every role pod they produce passes those rules."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from podtemplate import (
    ApiRuleError,
    Platform,
    PodTemplate,
    check_pod,
    check_pod_template,
    render,
    task,
)
from podtemplate.dispatch import build_plugin_manager, define_roles, task_types
from podtemplate.manifest import get_path
from podtemplate.render import make_context

PROBE = {"initialDelaySeconds": 5, "periodSeconds": 10, "timeoutSeconds": 2,
         "failureThreshold": 3}
CONTAINER_SECURITY = {
    "runAsUser": 1000, "runAsGroup": 1000, "runAsNonRoot": True,
    "allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
    "capabilities": {"drop": ["ALL"], "add": ["NET_BIND_SERVICE"]},
    "seccompProfile": {"type": "Localhost", "localhostProfile": "profiles/train.json"},
    "appArmorProfile": {"type": "RuntimeDefault"}, "procMount": "Default",
}


def _primary(modern: bool) -> dict[str, Any]:
    return {
        "name": "primary", "imagePullPolicy": "IfNotPresent",
        "terminationMessagePolicy": "FallbackToLogsOnError",
        "ports": [{"containerPort": 8080, "name": "http"},
                  {"containerPort": 9090, "name": "metrics", "protocol": "TCP"},
                  {"containerPort": 5353, "protocol": "UDP", "hostPort": 5353,
                   "hostIP": "10.0.0.1"}],
        "env": [
            {"name": "PLAIN", "value": "1"},
            {"name": "my.dotted-Name", "value": "relaxed env names are printable ASCII"},
            {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
            {"name": "ZONE", "valueFrom": {"fieldRef": {
                "fieldPath": "metadata.labels['topology.kubernetes.io/zone']"}}},
            {"name": "MEM", "valueFrom": {"resourceFieldRef": {"resource": "limits.memory",
                                                               "divisor": "1Mi"}}},
            {"name": "CM", "valueFrom": {"configMapKeyRef": {"name": "cfg", "key": "a.b"}}},
            {"name": "SECRET", "valueFrom": {"secretKeyRef": {"name": "s", "key": "token"}}},
        ],
        "envFrom": [{"configMapRef": {"name": "cfg"}, "prefix": "CFG_"},
                    {"secretRef": {"name": "s", "optional": True}}],
        "resources": {"requests": {"cpu": "500m", "memory": "1Gi", "example.com/fpga": "1",
                                   "ephemeral-storage": "1Gi", "hugepages-2Mi": "64Mi"},
                      "limits": {"cpu": "2", "memory": "8Gi", "example.com/fpga": "1",
                                 "hugepages-2Mi": "64Mi"},
                      "claims": [{"name": "gpu"}]},
        "volumeMounts": [
            {"name": "scratch", "mountPath": "/scratch"},
            {"name": "config", "mountPath": "/etc/app", "readOnly": True,
             "recursiveReadOnly": "IfPossible"},
            {"name": "secret", "mountPath": "/var/secret", "subPath": "tls"},
            {"name": "projected", "mountPath": "/var/run/projected"},
            {"name": "downward", "mountPath": "/etc/podinfo"},
            {"name": "host", "mountPath": "/host/logs", "mountPropagation": "HostToContainer"},
            {"name": "csi", "mountPath": "/mnt/csi"},
            {"name": "nfs", "mountPath": "/mnt/nfs", "subPathExpr": "$(POD)"},
            *([{"name": "model", "mountPath": "/models"}] if modern else []),
            {"name": "scratch-claim", "mountPath": "/claim"},
        ],
        "volumeDevices": [{"name": "block", "devicePath": "/dev/xvda"}],
        "livenessProbe": {"httpGet": {"path": "/healthz", "port": "http", "scheme": "HTTPS",
                                      "httpHeaders": [{"name": "X-Probe", "value": "1"}]},
                          **PROBE, "terminationGracePeriodSeconds": 10},
        "readinessProbe": {"tcpSocket": {"port": 8080}, **PROBE, "successThreshold": 2},
        "startupProbe": {"grpc": {"port": 9090, "service": "health"}, **PROBE} if modern
        else {"exec": {"command": ["true"]}},
        "lifecycle": {"postStart": {"exec": {"command": ["/bin/warm"]}},
                      "preStop": {"sleep": {"seconds": 5}} if modern
                      else {"httpGet": {"port": 8080, "path": "/drain"}}},
        "securityContext": CONTAINER_SECURITY,
        "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"},
                         {"resourceName": "memory", "restartPolicy": "RestartContainer"}],
    }


def _volumes(modern: bool = True) -> list[dict[str, Any]]:
    volumes = [
        {"name": "scratch", "emptyDir": {"medium": "Memory", "sizeLimit": "1Gi"}},
        {"name": "config", "configMap": {"name": "cfg", "defaultMode": 0o644,
                                         "items": [{"key": "app.yaml", "path": "app.yaml",
                                                    "mode": 0o400}]}},
        {"name": "secret", "secret": {"secretName": "tls", "defaultMode": 0o400}},
        {"name": "projected", "projected": {"defaultMode": 0o440, "sources": [
            {"serviceAccountToken": {"path": "token", "audience": "vault",
                                     "expirationSeconds": 3600}},
            {"configMap": {"name": "cfg", "items": [{"key": "a", "path": "cfg/a"}]}},
            {"downwardAPI": {"items": [{"path": "labels", "fieldRef": {
                "fieldPath": "metadata.labels"}}]}}]}},
        {"name": "downward", "downwardAPI": {"items": [
            {"path": "name", "fieldRef": {"fieldPath": "metadata.name"}},
            {"path": "cpu", "resourceFieldRef": {"containerName": "primary",
                                                 "resource": "limits.cpu"}}]}},
        {"name": "host", "hostPath": {"path": "/var/log", "type": "Directory"}},
        {"name": "csi", "csi": {"driver": "secrets-store.csi.k8s.io", "readOnly": True}},
        {"name": "nfs", "nfs": {"server": "nfs.example.com", "path": "/exports/data"}},
        {"name": "scratch-claim", "ephemeral": {"volumeClaimTemplate": {"spec": {
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "10Gi"}}}}}},
        {"name": "block", "persistentVolumeClaim": {"claimName": "raw-disk"}},
    ]
    if modern:
        volumes.append({"name": "model", "image": {
            "reference": "registry.example.com/models/llama:1", "pullPolicy": "IfNotPresent"}})
    return volumes


def rich_spec(modern: bool = True) -> dict[str, Any]:
    """``modern=False`` leaves out what Kubernetes 1.21 did not have (image volumes, gRPC
    probes, sleep hooks): the DaskJob CRD's pod schema is that old and prunes them."""
    return {
        "containers": [
            _primary(modern),
            {"name": "proxy", "image": "envoyproxy/envoy:v1.30",
             "ports": [{"containerPort": 15001, "name": "envoy"}],
             "readinessProbe": {"httpGet": {"port": 15021, "path": "/ready"}},
             "securityContext": {"runAsUser": 1337}},
        ],
        "initContainers": [
            {"name": "fetch", "image": "busybox:1.36", "command": ["sh", "-c", "true"],
             "volumeMounts": [{"name": "scratch", "mountPath": "/scratch"}]},
            {"name": "log-shipper", "image": "fluent/fluent-bit:3", "restartPolicy": "Always",
             "startupProbe": {"exec": {"command": ["true"]}},
             "livenessProbe": {"tcpSocket": {"port": 2020}},
             "lifecycle": {"preStop": {"exec": {"command": ["sleep", "1"]}}}},
        ],
        "volumes": _volumes(modern),
        "nodeSelector": {"node.kubernetes.io/instance-type": "p4d.24xlarge", "pool": ""},
        "tolerations": [
            {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
            {"key": "spot", "operator": "Equal", "value": "true", "effect": "NoExecute",
             "tolerationSeconds": 300},
            {"operator": "Exists"},
        ],
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                    {"matchExpressions": [
                        {"key": "topology.kubernetes.io/zone", "operator": "In",
                         "values": ["us-east-1a", "us-east-1b"]},
                        {"key": "gpu-count", "operator": "Gt", "values": ["3"]}],
                     "matchFields": [{"key": "metadata.name", "operator": "NotIn",
                                      "values": ["bad-node"]}]}]},
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 100, "preference": {"matchExpressions": [
                        {"key": "pool", "operator": "DoesNotExist"}]}}]},
            "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 50, "podAffinityTerm": {
                    "topologyKey": "kubernetes.io/hostname",
                    "labelSelector": {"matchLabels": {"team": "ml"}}}}]},
        },
        "topologySpreadConstraints": [
            {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
             "whenUnsatisfiable": "DoNotSchedule", "minDomains": 2,
             "nodeAffinityPolicy": "Honor", "nodeTaintsPolicy": "Ignore",
             "labelSelector": {"matchExpressions": [{"key": "team", "operator": "In",
                                                     "values": ["ml"]}]}}],
        "securityContext": {"runAsUser": 1000, "fsGroup": 2000, "supplementalGroups": [3000],
                            "fsGroupChangePolicy": "OnRootMismatch",
                            "seccompProfile": {"type": "RuntimeDefault"},
                            "sysctls": [{"name": "net.core.somaxconn", "value": "1024"},
                                        {"name": "kernel/shm_rmid_forced", "value": "1"}]},
        "dnsPolicy": "None",
        "dnsConfig": {"nameservers": ["10.96.0.10", "fd00::10"],
                      "searches": ["svc.cluster.local", "example.com."],
                      "options": [{"name": "ndots", "value": "2"}]},
        "hostAliases": [{"ip": "10.1.2.3", "hostnames": ["registry.local", "mirror"]}],
        "serviceAccountName": "trainer",
        "priorityClassName": "high-priority",
        "runtimeClassName": "nvidia",
        "schedulerName": "default-scheduler",
        "preemptionPolicy": "PreemptLowerPriority",
        "activeDeadlineSeconds": 86400,
        "terminationGracePeriodSeconds": 60,
        "os": {"name": "linux"},
        "readinessGates": [{"conditionType": "example.com/ready"}],
        "schedulingGates": [{"name": "example.com/quota"}],
        "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "a100"}],
        "imagePullSecrets": [{"name": "registry"}],
        "hostname": "trainer-0",
        "subdomain": "trainers",
    }


RICH = {"labels": {"team": "ml", "example.com/cost-center": "r-and-d"},
        "annotations": {"example.com/notes": "a free text annotation: anything goes"}}


def rich_template(modern: bool = True) -> PodTemplate:
    return PodTemplate(rich_spec(modern), labels=RICH["labels"],
                       annotations=RICH["annotations"])


def test_the_rich_template_is_valid_on_its_own() -> None:
    pod = {"metadata": RICH, "spec": copy.deepcopy(rich_spec())}
    pod["spec"]["containers"][0]["image"] = "python:3.11"
    assert check_pod_template(pod) == []


def test_rich_python_pod_renders_and_passes() -> None:
    @task(name="train", image="python:3.11", pod_template=rich_template())
    def train() -> None: ...

    (pod,) = render(train, platform=Platform(), plugin_manager=build_plugin_manager())
    assert check_pod(pod) == []
    assert pod["spec"]["volumes"] == _volumes()  # nothing was dropped to pass


TYPES = sorted(task_types(build_plugin_manager()))


@pytest.mark.parametrize("task_type", TYPES)
def test_rich_template_renders_on_every_role_of_every_task_type(task_type: str) -> None:
    manager = build_plugin_manager()
    sample = manager.hook.podtemplate_make_sample_task(
        task_type=task_type, pod_template=rich_template(modern=task_type != "dask"),
        pod_template_name=None, role_templates={})
    assert sample is not None
    manifests = render(sample, platform=Platform(defaultImage="python:3.11"),
                       plugin_manager=manager)
    roles = define_roles(sample, make_context(plugin_manager=manager))
    checked = 0
    for role in roles:
        for manifest in manifests:
            pod = get_path(manifest, role.template_path)
            if isinstance(pod, dict) and isinstance(pod.get("spec"), dict):
                problems = check_pod(pod) if pod.get("kind") == "Pod" else check_pod_template(
                    {"metadata": pod.get("metadata", {}), "spec": pod["spec"]})
                assert problems == [], (role.name, problems)
                checked += 1
    assert checked >= len(roles)


@pytest.mark.parametrize("task_type", TYPES)
def test_an_invalid_pod_is_refused_on_every_task_type(task_type: str) -> None:
    manager = build_plugin_manager()
    bad = PodTemplate({"containers": [{"name": "primary", "volumeMounts": [
        {"name": "ghost", "mountPath": "/ghost"}]}]})
    sample = manager.hook.podtemplate_make_sample_task(
        task_type=task_type, pod_template=bad, pod_template_name=None, role_templates={})
    with pytest.raises(ApiRuleError) as caught:
        render(sample, platform=Platform(defaultImage="python:3.11"), plugin_manager=manager)
    error = caught.value
    assert error.task == sample.name and error.role is not None
    assert error.field is not None and error.field.startswith("spec.containers[")
    assert error.field.endswith("].volumeMounts[ghost].name")
    assert "a volumeMount names a volume of the pod" in error.message

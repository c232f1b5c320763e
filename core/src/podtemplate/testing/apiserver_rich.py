"""A rich, valid pod: nearly every field of a Kubernetes 1.35 pod, each with a value the
API server accepts (:func:`rich_spec`, :data:`RICH`). Task types and checks run it to
show they raise no false alarm and drop nothing."""

from __future__ import annotations

from typing import Any

__all__ = ["RICH", "rich_spec", "rich_volumes"]

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


def rich_volumes(modern: bool = True) -> list[dict[str, Any]]:
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
        "volumes": rich_volumes(modern),
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



"""List merge rules of a PodTemplateSpec, generated from the Kubernetes OpenAPI schema.

GENERATED FILE - DO NOT EDIT. Regenerate with:
    python scripts/gen_list_rules.py core/src/podtemplate/schemas/kubernetes/pod.json

Keys are field paths relative to a PodTemplateSpec: '[]' marks a list item, '{}' a
map value. ``strategy`` is how podtemplate merges the list: 'map' (items merged by
``keys``; ``key_defaults`` fill optional key fields), 'set' (union of plain values) or
'atomic' (the higher layer replaces the list). The remaining entries are the schema's
own x-kubernetes-* list extensions, verbatim; an absent entry means not declared.
"""

# ruff: noqa: E501

from typing import Any

GENERATED_BY = "scripts/gen_list_rules.py"
ROOT = "io.k8s.api.core.v1.PodTemplateSpec"
KUBERNETES_VERSION = "1.35"
SOURCE = "core/src/podtemplate/schemas/kubernetes/pod.json"
SOURCE_SHA256 = "45461d7d710e52a28d31b47dc438ff1e3c12983051ae8e96ee22984747121ea4"

LIST_RULES: dict[str, dict[str, Any]] = {
    "metadata.finalizers[]": {
        "strategy": "set",
        "patch_strategy": "merge",
        "list_type": "set",
    },
    "metadata.managedFields[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "metadata.ownerReferences[]": {
        "strategy": "map",
        "keys": ("uid",),
        "patch_strategy": "merge",
        "patch_merge_key": "uid",
        "list_type": "map",
        "list_map_keys": ("uid",),
    },
    "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[].preference.matchExpressions[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[].preference.matchExpressions[].values[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[].preference.matchFields[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[].preference.matchFields[].values[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[].matchExpressions[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[].matchExpressions[].values[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[].matchFields[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[].matchFields[].values[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[].podAffinityTerm.labelSelector.matchExpressions[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[].podAffinityTerm.labelSelector.matchExpressions[].values[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[].podAffinityTerm.matchLabelKeys[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[].podAffinityTerm.mismatchLabelKeys[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[].podAffinityTerm.namespaceSelector.matchExpressions[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[].podAffinityTerm.namespaceSelector.matchExpressions[].values[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[].podAffinityTerm.namespaces[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[].labelSelector.matchExpressions[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[].labelSelector.matchExpressions[].values[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[].matchLabelKeys[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[].mismatchLabelKeys[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[].namespaceSelector.matchExpressions[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[].namespaceSelector.matchExpressions[].values[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[].namespaces[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[].podAffinityTerm.labelSelector.matchExpressions[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[].podAffinityTerm.labelSelector.matchExpressions[].values[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[].podAffinityTerm.matchLabelKeys[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[].podAffinityTerm.mismatchLabelKeys[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[].podAffinityTerm.namespaceSelector.matchExpressions[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[].podAffinityTerm.namespaceSelector.matchExpressions[].values[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[].podAffinityTerm.namespaces[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[].labelSelector.matchExpressions[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[].labelSelector.matchExpressions[].values[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[].matchLabelKeys[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[].mismatchLabelKeys[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[].namespaceSelector.matchExpressions[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[].namespaceSelector.matchExpressions[].values[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[].namespaces[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.containers[]": {
        "strategy": "map",
        "keys": ("name",),
        "patch_strategy": "merge",
        "patch_merge_key": "name",
        "list_type": "map",
        "list_map_keys": ("name",),
    },
    "spec.containers[].args[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.containers[].command[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.containers[].envFrom[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.containers[].env[]": {
        "strategy": "map",
        "keys": ("name",),
        "patch_strategy": "merge",
        "patch_merge_key": "name",
        "list_type": "map",
        "list_map_keys": ("name",),
    },
    "spec.containers[].lifecycle.postStart.exec.command[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.containers[].lifecycle.postStart.httpGet.httpHeaders[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.containers[].lifecycle.preStop.exec.command[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.containers[].lifecycle.preStop.httpGet.httpHeaders[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.containers[].livenessProbe.exec.command[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.containers[].livenessProbe.httpGet.httpHeaders[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.containers[].ports[]": {
        "strategy": "map",
        "keys": ("containerPort", "protocol"),
        "key_defaults": {"protocol": "TCP"},
        "patch_strategy": "merge",
        "patch_merge_key": "containerPort",
        "list_type": "map",
        "list_map_keys": ("containerPort", "protocol"),
    },
    "spec.containers[].readinessProbe.exec.command[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.containers[].readinessProbe.httpGet.httpHeaders[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.containers[].resizePolicy[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.containers[].resources.claims[]": {
        "strategy": "map",
        "keys": ("name",),
        "list_type": "map",
        "list_map_keys": ("name",),
    },
    "spec.containers[].restartPolicyRules[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.containers[].restartPolicyRules[].exitCodes.values[]": {
        "strategy": "set",
        "list_type": "set",
    },
    "spec.containers[].securityContext.capabilities.add[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.containers[].securityContext.capabilities.drop[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.containers[].startupProbe.exec.command[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.containers[].startupProbe.httpGet.httpHeaders[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.containers[].volumeDevices[]": {
        "strategy": "map",
        "keys": ("devicePath",),
        "patch_strategy": "merge",
        "patch_merge_key": "devicePath",
        "list_type": "map",
        "list_map_keys": ("devicePath",),
    },
    "spec.containers[].volumeMounts[]": {
        "strategy": "map",
        "keys": ("mountPath",),
        "patch_strategy": "merge",
        "patch_merge_key": "mountPath",
        "list_type": "map",
        "list_map_keys": ("mountPath",),
    },
    "spec.dnsConfig.nameservers[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.dnsConfig.options[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.dnsConfig.searches[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.ephemeralContainers[]": {
        "strategy": "map",
        "keys": ("name",),
        "patch_strategy": "merge",
        "patch_merge_key": "name",
        "list_type": "map",
        "list_map_keys": ("name",),
    },
    "spec.ephemeralContainers[].args[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.ephemeralContainers[].command[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.ephemeralContainers[].envFrom[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.ephemeralContainers[].env[]": {
        "strategy": "map",
        "keys": ("name",),
        "patch_strategy": "merge",
        "patch_merge_key": "name",
        "list_type": "map",
        "list_map_keys": ("name",),
    },
    "spec.ephemeralContainers[].lifecycle.postStart.exec.command[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.ephemeralContainers[].lifecycle.postStart.httpGet.httpHeaders[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.ephemeralContainers[].lifecycle.preStop.exec.command[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.ephemeralContainers[].lifecycle.preStop.httpGet.httpHeaders[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.ephemeralContainers[].livenessProbe.exec.command[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.ephemeralContainers[].livenessProbe.httpGet.httpHeaders[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.ephemeralContainers[].ports[]": {
        "strategy": "map",
        "keys": ("containerPort", "protocol"),
        "key_defaults": {"protocol": "TCP"},
        "patch_strategy": "merge",
        "patch_merge_key": "containerPort",
        "list_type": "map",
        "list_map_keys": ("containerPort", "protocol"),
    },
    "spec.ephemeralContainers[].readinessProbe.exec.command[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.ephemeralContainers[].readinessProbe.httpGet.httpHeaders[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.ephemeralContainers[].resizePolicy[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.ephemeralContainers[].resources.claims[]": {
        "strategy": "map",
        "keys": ("name",),
        "list_type": "map",
        "list_map_keys": ("name",),
    },
    "spec.ephemeralContainers[].restartPolicyRules[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.ephemeralContainers[].restartPolicyRules[].exitCodes.values[]": {
        "strategy": "set",
        "list_type": "set",
    },
    "spec.ephemeralContainers[].securityContext.capabilities.add[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.ephemeralContainers[].securityContext.capabilities.drop[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.ephemeralContainers[].startupProbe.exec.command[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.ephemeralContainers[].startupProbe.httpGet.httpHeaders[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.ephemeralContainers[].volumeDevices[]": {
        "strategy": "map",
        "keys": ("devicePath",),
        "patch_strategy": "merge",
        "patch_merge_key": "devicePath",
        "list_type": "map",
        "list_map_keys": ("devicePath",),
    },
    "spec.ephemeralContainers[].volumeMounts[]": {
        "strategy": "map",
        "keys": ("mountPath",),
        "patch_strategy": "merge",
        "patch_merge_key": "mountPath",
        "list_type": "map",
        "list_map_keys": ("mountPath",),
    },
    "spec.hostAliases[]": {
        "strategy": "map",
        "keys": ("ip",),
        "patch_strategy": "merge",
        "patch_merge_key": "ip",
        "list_type": "map",
        "list_map_keys": ("ip",),
    },
    "spec.hostAliases[].hostnames[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.imagePullSecrets[]": {
        "strategy": "map",
        "keys": ("name",),
        "key_defaults": {"name": ""},
        "patch_strategy": "merge",
        "patch_merge_key": "name",
        "list_type": "map",
        "list_map_keys": ("name",),
    },
    "spec.initContainers[]": {
        "strategy": "map",
        "keys": ("name",),
        "patch_strategy": "merge",
        "patch_merge_key": "name",
        "list_type": "map",
        "list_map_keys": ("name",),
    },
    "spec.initContainers[].args[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.initContainers[].command[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.initContainers[].envFrom[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.initContainers[].env[]": {
        "strategy": "map",
        "keys": ("name",),
        "patch_strategy": "merge",
        "patch_merge_key": "name",
        "list_type": "map",
        "list_map_keys": ("name",),
    },
    "spec.initContainers[].lifecycle.postStart.exec.command[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.initContainers[].lifecycle.postStart.httpGet.httpHeaders[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.initContainers[].lifecycle.preStop.exec.command[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.initContainers[].lifecycle.preStop.httpGet.httpHeaders[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.initContainers[].livenessProbe.exec.command[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.initContainers[].livenessProbe.httpGet.httpHeaders[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.initContainers[].ports[]": {
        "strategy": "map",
        "keys": ("containerPort", "protocol"),
        "key_defaults": {"protocol": "TCP"},
        "patch_strategy": "merge",
        "patch_merge_key": "containerPort",
        "list_type": "map",
        "list_map_keys": ("containerPort", "protocol"),
    },
    "spec.initContainers[].readinessProbe.exec.command[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.initContainers[].readinessProbe.httpGet.httpHeaders[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.initContainers[].resizePolicy[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.initContainers[].resources.claims[]": {
        "strategy": "map",
        "keys": ("name",),
        "list_type": "map",
        "list_map_keys": ("name",),
    },
    "spec.initContainers[].restartPolicyRules[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.initContainers[].restartPolicyRules[].exitCodes.values[]": {
        "strategy": "set",
        "list_type": "set",
    },
    "spec.initContainers[].securityContext.capabilities.add[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.initContainers[].securityContext.capabilities.drop[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.initContainers[].startupProbe.exec.command[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.initContainers[].startupProbe.httpGet.httpHeaders[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.initContainers[].volumeDevices[]": {
        "strategy": "map",
        "keys": ("devicePath",),
        "patch_strategy": "merge",
        "patch_merge_key": "devicePath",
        "list_type": "map",
        "list_map_keys": ("devicePath",),
    },
    "spec.initContainers[].volumeMounts[]": {
        "strategy": "map",
        "keys": ("mountPath",),
        "patch_strategy": "merge",
        "patch_merge_key": "mountPath",
        "list_type": "map",
        "list_map_keys": ("mountPath",),
    },
    "spec.readinessGates[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.resourceClaims[]": {
        "strategy": "map",
        "keys": ("name",),
        "patch_strategy": "merge,retainKeys",
        "patch_merge_key": "name",
        "list_type": "map",
        "list_map_keys": ("name",),
    },
    "spec.resources.claims[]": {
        "strategy": "map",
        "keys": ("name",),
        "list_type": "map",
        "list_map_keys": ("name",),
    },
    "spec.schedulingGates[]": {
        "strategy": "map",
        "keys": ("name",),
        "patch_strategy": "merge",
        "patch_merge_key": "name",
        "list_type": "map",
        "list_map_keys": ("name",),
    },
    "spec.securityContext.supplementalGroups[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.securityContext.sysctls[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.tolerations[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.topologySpreadConstraints[]": {
        "strategy": "map",
        "keys": ("topologyKey", "whenUnsatisfiable"),
        "patch_strategy": "merge",
        "patch_merge_key": "topologyKey",
        "list_type": "map",
        "list_map_keys": ("topologyKey", "whenUnsatisfiable"),
    },
    "spec.topologySpreadConstraints[].labelSelector.matchExpressions[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.topologySpreadConstraints[].labelSelector.matchExpressions[].values[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.topologySpreadConstraints[].matchLabelKeys[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.volumes[]": {
        "strategy": "map",
        "keys": ("name",),
        "patch_strategy": "merge,retainKeys",
        "patch_merge_key": "name",
        "list_type": "map",
        "list_map_keys": ("name",),
    },
    "spec.volumes[].cephfs.monitors[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.volumes[].configMap.items[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.volumes[].downwardAPI.items[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.volumes[].ephemeral.volumeClaimTemplate.metadata.finalizers[]": {
        "strategy": "set",
        "patch_strategy": "merge",
        "list_type": "set",
    },
    "spec.volumes[].ephemeral.volumeClaimTemplate.metadata.managedFields[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.volumes[].ephemeral.volumeClaimTemplate.metadata.ownerReferences[]": {
        "strategy": "map",
        "keys": ("uid",),
        "patch_strategy": "merge",
        "patch_merge_key": "uid",
        "list_type": "map",
        "list_map_keys": ("uid",),
    },
    "spec.volumes[].ephemeral.volumeClaimTemplate.spec.accessModes[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.volumes[].ephemeral.volumeClaimTemplate.spec.selector.matchExpressions[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.volumes[].ephemeral.volumeClaimTemplate.spec.selector.matchExpressions[].values[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.volumes[].fc.targetWWNs[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.volumes[].fc.wwids[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.volumes[].iscsi.portals[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.volumes[].projected.sources[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.volumes[].projected.sources[].clusterTrustBundle.labelSelector.matchExpressions[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.volumes[].projected.sources[].clusterTrustBundle.labelSelector.matchExpressions[].values[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.volumes[].projected.sources[].configMap.items[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.volumes[].projected.sources[].downwardAPI.items[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.volumes[].projected.sources[].secret.items[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.volumes[].rbd.monitors[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
    "spec.volumes[].secret.items[]": {
        "strategy": "atomic",
        "list_type": "atomic",
    },
}

"""The benchmark workload: a platform, its template folder and N generated tasks.

Everything is derived from one seed, so two runs with the same seed render the same
manifests. The shape follows what a platform team runs: a cluster default template,
a few named templates, inline templates with a sidecar, three volumes, ten env vars,
tolerations and affinity, and role templates on the distributed task types.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from podtemplate import PodTemplate, Resources, Task

__all__ = [
    "INLINE_TEMPLATE_POOL",
    "REALISTIC_TYPES",
    "NAMED_TEMPLATES",
    "Workload",
    "inline_template",
    "role_template",
    "task_settings",
    "write_platform",
]

NAMED_TEMPLATES = ("gpu-a100", "highmem", "spot", "secure")
# Distinct inline templates per workload: teams share a handful of templates between
# many tasks, which is also what makes per-template caching matter.
INLINE_TEMPLATE_POOL = 16
# The realistic mix: every task its own template, over the task types users run most.
REALISTIC_TYPES = ("python", "container", "pytorch", "dask", "spark", "ray")
ZONES = ("eu-west-1a", "eu-west-1b", "eu-west-1c")
TEAMS = ("search", "ads", "vision", "speech", "ranking", "forecast")
IMAGES = tuple(f"ghcr.io/acme/{name}:{tag}" for name in ("train", "etl", "serve", "eval")
               for tag in ("1.4.2", "2.0.0"))


def _pod_template_manifest(name: str, spec: dict[str, Any], *, namespace: str | None = None,
                           labels: dict[str, str] | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if namespace:
        metadata["namespace"] = namespace
    template: dict[str, Any] = {"spec": spec}
    if labels:
        template["metadata"] = {"labels": labels}
    return {"apiVersion": "v1", "kind": "PodTemplate", "metadata": metadata,
            "template": template}


def _cluster_templates() -> list[dict[str, Any]]:
    """The cluster default template and the named templates an admin keeps."""
    default = _pod_template_manifest("default", {
        "serviceAccountName": "ml-runner",
        "priorityClassName": "batch-default",
        "securityContext": {"runAsNonRoot": True, "fsGroup": 1000},
        "tolerations": [{"key": "platform.acme.io/batch", "operator": "Exists",
                         "effect": "NoSchedule"}],
        "containers": [{"name": "primary",
                        "env": [{"name": "PLATFORM", "value": "acme"}],
                        "securityContext": {"allowPrivilegeEscalation": False}}],
    }, labels={"platform.acme.io/managed": "true"})
    gpu = _pod_template_manifest("gpu-a100", {
        "priorityClassName": "gpu-high",
        "nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists",
                         "effect": "NoSchedule"}],
        "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}}],
        "containers": [{"name": "primary",
                        "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}]}],
    })
    highmem = _pod_template_manifest("highmem", {
        "nodeSelector": {"node-pool": "highmem"},
        "containers": [{"name": "default",
                        "env": [{"name": "MALLOC_ARENA_MAX", "value": "2"}]}],
    })
    spot = _pod_template_manifest("spot", {
        "tolerations": [{"key": "spot", "operator": "Exists", "effect": "NoSchedule"}],
        "affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 50, "preference": {"matchExpressions": [
                {"key": "node-pool", "operator": "In", "values": ["spot"]}]}}]}},
    }, namespace="ml-team")
    secure = _pod_template_manifest("secure", {
        "automountServiceAccountToken": False,
        "containers": [{"name": "primary", "securityContext": {
            "readOnlyRootFilesystem": True, "capabilities": {"drop": ["ALL"]}}}],
    })
    return [default, gpu, highmem, spot, secure]


def write_platform(folder: Path) -> Path:
    """Write platform.yaml and its template folder under ``folder``; returns the
    platform.yaml path."""
    templates = folder / "templates"
    templates.mkdir(parents=True, exist_ok=True)
    for manifest in _cluster_templates():
        path = templates / f"{manifest['metadata']['name']}.yaml"
        path.write_text(yaml.safe_dump(manifest, sort_keys=False), encoding="utf-8")
    platform = {
        "namespace": "ml-team",
        "templates": "./templates",
        "fallbackNamespace": "platform",
        "defaultTemplate": "default",
        "gpuResourceName": "nvidia.com/gpu",
        "defaultImage": "ghcr.io/acme/python:3.11",
        "defaultResources": {"requests": {"cpu": "500m", "memory": "1Gi"},
                             "limits": {"memory": "64Gi"}},
        "interruptible": {
            "tolerations": [{"key": "spot", "operator": "Exists", "effect": "NoSchedule"}],
            "nodeSelector": {"node-pool": "spot"},
        },
    }
    path = folder / "platform.yaml"
    path.write_text(yaml.safe_dump(platform, sort_keys=False), encoding="utf-8")
    return path


def inline_template(rng: random.Random, index: int) -> PodTemplate:
    """An inline task template: a sidecar, three volumes, tolerations and affinity."""
    team = rng.choice(TEAMS)
    zone = rng.choice(ZONES)
    mounts = [{"name": "data", "mountPath": "/data"},
              {"name": "config", "mountPath": "/etc/app", "readOnly": True},
              {"name": "creds", "mountPath": "/var/run/creds", "readOnly": True}]
    spec = {
        "volumes": [
            {"name": "data", "emptyDir": {"sizeLimit": f"{rng.randint(1, 64)}Gi"}},
            {"name": "config", "configMap": {"name": f"{team}-config-{index}"}},
            {"name": "creds", "secret": {"secretName": f"{team}-creds"}},
        ],
        "containers": [
            {"name": "primary", "volumeMounts": mounts,
             "env": [{"name": "TEAM", "value": team}]},
            {"name": "log-shipper", "image": "fluent/fluent-bit:3.0",
             "resources": {"requests": {"cpu": "50m", "memory": "64Mi"},
                           "limits": {"memory": "128Mi"}},
             "volumeMounts": [{"name": "data", "mountPath": "/data", "readOnly": True}]},
        ],
        "tolerations": [
            {"key": f"team.acme.io/{team}", "operator": "Equal", "value": "true",
             "effect": "NoSchedule"},
            {"key": "node.kubernetes.io/not-ready", "operator": "Exists",
             "effect": "NoExecute", "tolerationSeconds": rng.choice((60, 300))},
        ],
        "affinity": {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [
                    {"key": "topology.kubernetes.io/zone", "operator": "In",
                     "values": [zone]}]}]}},
            "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 100, "podAffinityTerm": {
                    "topologyKey": "kubernetes.io/hostname",
                    "labelSelector": {"matchLabels": {"team": team}}}}]},
        },
    }
    return PodTemplate(pod_spec=spec, labels={"team": team},
                       annotations={"acme.io/owner": f"{team}@acme.io"})


def full_role_template(rng: random.Random, role: str, index: int) -> PodTemplate:
    """A role's own full template, as rich as a task's (the realistic mix gives one to
    every Spark and Ray role): the task template's shape plus the role's env var."""
    template = inline_template(rng, index)
    spec = dict(template.pod_spec)
    primary, *rest = spec["containers"]
    spec["containers"] = [{**primary, "env": [*primary["env"], {"name": "ROLE",
                                                                 "value": role}]}, *rest]
    return PodTemplate(pod_spec=spec, labels={**template.labels, "acme.io/role": role},
                       annotations=template.annotations)


def role_template(rng: random.Random, role: str) -> PodTemplate:
    """A role's own template (layer 5): placement and a role-specific env var."""
    pool = rng.choice(("a100", "h100", "cpu-large"))
    return PodTemplate(pod_spec={
        "nodeSelector": {"node-pool": pool},
        "tolerations": [{"key": f"pool.acme.io/{pool}", "operator": "Exists",
                         "effect": "NoSchedule"}],
        "containers": [{"name": "primary", "env": [{"name": "ROLE", "value": role}]}],
    }, labels={"acme.io/role": role})


@dataclass(frozen=True)
class TaskSettings:
    """The task-level choices every builder applies, drawn from the seeded stream."""

    name: str
    image: str
    env: dict[str, str]
    requests: Resources
    limits: Resources
    pod_template: PodTemplate | None
    pod_template_name: str | None
    interruptible: bool
    extra: dict[str, Any] = field(default_factory=dict)

    def task_kwargs(self) -> dict[str, Any]:
        return {"image": self.image, "env": self.env, "requests": self.requests,
                "limits": self.limits, "pod_template": self.pod_template,
                "pod_template_name": self.pod_template_name,
                "interruptible": self.interruptible}


def task_settings(rng: random.Random, name: str, pool: list[PodTemplate], *,
                  own: PodTemplate | None = None) -> TaskSettings:
    """Image, ten env vars, resources and template choices of one task; ``own`` is the
    task's own template (the realistic mix), else one is drawn from ``pool``."""
    env = {f"VAR_{j}": f"{rng.randint(0, 10**6)}" for j in range(9)}
    env["RUN_ID"] = name
    cpu = rng.choice(("1", "2", "4", "500m"))
    memory = rng.choice(("2Gi", "4Gi", "8Gi"))
    named = rng.random()
    return TaskSettings(
        name=name,
        image=rng.choice(IMAGES),
        env=env,
        requests=Resources(cpu=cpu, memory=memory),
        limits=Resources(memory=memory),
        pod_template=own or (rng.choice(pool) if rng.random() < 0.75 else None),
        pod_template_name=rng.choice(NAMED_TEMPLATES) if named < 0.4 else None,
        interruptible=rng.random() < 0.2,
    )


@dataclass
class Workload:
    """N tasks over the given task types, generated from ``seed``."""

    tasks: list[Task]
    by_type: dict[str, int]


def template_pool(seed: int) -> list[PodTemplate]:
    rng = random.Random(f"{seed}:pool")
    return [inline_template(rng, index) for index in range(INLINE_TEMPLATE_POOL)]

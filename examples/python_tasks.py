"""Python function tasks: each renders to one v1 Pod.

Render them all:  podtemplate render examples --platform examples/platform.yaml
"""

from podtemplate import PodTemplate, Resources, task

# An inline template with a sidecar, an init container and a shared volume.
with_sidecar_template = PodTemplate(
    pod_spec={
        "volumes": [{"name": "shared", "emptyDir": {}}],
        "initContainers": [
            {"name": "fetch", "image": "busybox:1.36",
             "command": ["sh", "-c", "echo ready > /shared/ready"],
             "volumeMounts": [{"name": "shared", "mountPath": "/shared"}]},
        ],
        "containers": [
            {"name": "primary", "volumeMounts": [{"name": "shared", "mountPath": "/shared"}]},
            {"name": "log-shipper", "image": "fluent/fluent-bit:3.0",
             "volumeMounts": [{"name": "shared", "mountPath": "/shared", "readOnly": True}]},
        ],
    },
    labels={"app.kubernetes.io/part-of": "examples"},
)


@task(requests=Resources(cpu="1", memory="2Gi"), env={"GREETING": "hello"})
def hello(name: str = "world") -> str:
    """The simplest task: the cluster default template plus the task's settings."""
    return f"hello {name}"


@task(pod_template_name="highmem", limits=Resources(memory="64Gi"))
def aggregate(days: int = 7) -> int:
    """Uses a named template kept by the platform team."""
    return days * 24


@task(pod_template=with_sidecar_template, image="ghcr.io/acme/etl:2")
def etl(table: str = "events") -> str:
    """Carries an inline template with a sidecar, an init container and a volume."""
    return table


@task(pod_template_name="a100", requests=Resources(cpu="8", memory="32Gi", gpu=1),
      image="ghcr.io/acme/train:1")
def finetune(epochs: int = 1) -> int:
    """A GPU task on the a100 template: gpu=1 becomes nvidia.com/gpu, limit = request."""
    return epochs


@task(interruptible=True, requests=Resources(cpu="2"))
def backfill(start: str = "2026-01-01") -> str:
    """Interruptible: the platform's spot toleration and node selector are added."""
    return start

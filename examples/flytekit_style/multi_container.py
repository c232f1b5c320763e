"""flytesnacks "pod" example (multiple containers), ported: the task template's primary
container limits less than the task requests; as on Flyte the limit ends up at the request
(with a warning naming both layers)."""

from podtemplate import PodTemplate, Resources, task

IMAGE = "ghcr.io/flyteorg/flytecookbook:k8s_pod-latest"

_SHARED = "/data/shared"

multi_container_template = PodTemplate(
    primary_container_name="primary",
    pod_spec={
        "containers": [
            {"name": "primary",
             "resources": {"requests": {"cpu": 1, "memory": "100Mi"},
                           "limits": {"cpu": 1, "memory": "100Mi"}},
             "volumeMounts": [{"name": "shared-data", "mountPath": _SHARED}]},
            {"name": "secondary", "image": "alpine",
             "command": ["/bin/sh", "-c", f"echo hi pod world > {_SHARED}/message.txt"],
             "volumeMounts": [{"name": "shared-data", "mountPath": _SHARED}]},
        ],
        "volumes": [{"name": "shared-data", "emptyDir": {}}],
    },
)


@task(image=IMAGE, pod_template=multi_container_template,
      requests=Resources(cpu=2, mem="200Mi"))
def multiple_containers_pod_task() -> str:
    with open(f"{_SHARED}/message.txt") as shared:
        return shared.read()

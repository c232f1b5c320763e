"""flytekitplugins-pod's Pod task (flytesnacks "pod" example), ported by changing the
imports only: task_config=Pod(...) is the task's pod template."""

from kubernetes.client import (
    V1Container,
    V1EmptyDirVolumeSource,
    V1PodSpec,
    V1Volume,
    V1VolumeMount,
)
from podtemplate import Pod, task

_SHARED = "shared-data"


@task(
    task_config=Pod(
        pod_spec=V1PodSpec(
            containers=[
                V1Container(name="primary",
                            volume_mounts=[V1VolumeMount(name=_SHARED, mount_path="/data")]),
                V1Container(name="secondary", image="alpine",
                            command=["/bin/sh", "-c", "echo hi > /data/message.txt"],
                            volume_mounts=[V1VolumeMount(name=_SHARED, mount_path="/data")]),
            ],
            volumes=[V1Volume(name=_SHARED, empty_dir=V1EmptyDirVolumeSource(medium="Memory"))],
        ),
        primary_container_name="primary",
        labels={"team": "ml"},
    ),
    container_image="python:3.11-slim",
)
def multiple_containers_pod_task() -> str:
    return "done"

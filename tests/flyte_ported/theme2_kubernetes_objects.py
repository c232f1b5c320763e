"""Theme 2: Kubernetes objects built with the client flytekit used (numbers where the API
takes a quantity or text)."""

from kubernetes.client import V1Container, V1PodSpec, V1ResourceRequirements, V1Toleration
from podtemplate import PodTemplate, task

GPU_NODES = V1PodSpec(
    containers=[V1Container(name="primary",
                            resources=V1ResourceRequirements(limits={"cpu": 2, "memory": "4Gi"}))],
    tolerations=[V1Toleration(key="num-gpus", operator="Equal", value=1, effect="NoSchedule")])


@task(container_image="python:3.11", pod_template=PodTemplate(pod_spec=GPU_NODES))
def on_gpu_nodes() -> None: ...

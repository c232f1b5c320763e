"""Theme 5: Flyte's behaviours - accelerator, elastic PyTorch, restart policies, overrides,
float inputs and image placeholders."""

from podtemplate import PodTemplate, Resources, task
from podtemplate_container import ContainerTask
from podtemplate_dask import Dask
from podtemplate_pytorch import Elastic, PyTorch


@task(container_image="python:3.11", requests=Resources(gpu=1), accelerator="nvidia-tesla-a100")
def on_a100() -> None: ...


@task(container_image="python:3.11", task_config=Elastic(nnodes=1, nproc_per_node=2))
def one_node() -> None: ...


@task(container_image="python:3.11",
      task_config=Elastic(nnodes="2:3", rdzv_configs={"timeout": 1200}))
def many_nodes() -> None: ...


@task(container_image="python:3.11", task_config=PyTorch())
def replicas() -> None: ...


@task(container_image="python:3.11", task_config=Dask())
def runner() -> None: ...


@task(container_image="python:3.11", pod_template=PodTemplate({"nodeSelector": {"pool": "cpu"}}))
def placed() -> None: ...


moved = placed.with_overrides(name="moved", pod_template=PodTemplate({"hostIPC": True}))

ellipse = ContainerTask(name="ellipse", image="busybox:1.36", inputs={"a": float},
                        command=["echo", "{{.inputs.a}}"])


@task(container_image="{{.image.trainer.fqn}}:{{.image.trainer.version}}")
def placeholder() -> None: ...

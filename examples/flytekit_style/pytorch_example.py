"""flytesnacks "kfpytorch" examples, ported: a PyTorchJob with two workers, and flytekit's
elastic spelling ``task_config=Elastic(nnodes=2, nproc_per_node=2)``. Every replica gets
a memory-backed /dev/shm, as flytekit gives it."""

from podtemplate import Resources, Role, task
from podtemplate_pytorch import Elastic, PyTorch

IMAGE = "ghcr.io/flyteorg/flytecookbook:kfpytorch-latest"


@task(task_config=PyTorch(worker=Role(replicas=2)), container_image=IMAGE,
      requests=Resources(cpu="2", mem="16Gi", gpu=1), accelerator="nvidia-tesla-t4")
def mnist_pytorch_job(epochs: int = 1) -> float:
    return float(epochs)


@task(task_config=Elastic(nnodes=2, nproc_per_node=2), container_image=IMAGE,
      requests=Resources(cpu="2", mem="8Gi"))
def train_elastic(epochs: int = 1) -> float:
    return float(epochs)

"""flytesnacks' kfpytorch example, ported by changing the imports only: Worker, Master,
RestartPolicy, CleanPodPolicy and the older PyTorch(num_workers=)."""

from podtemplate import Resources, task
from podtemplate_pytorch import (
    CleanPodPolicy,
    Master,
    PyTorch,
    RestartPolicy,
    RunPolicy,
    Worker,
)

IMAGE = "ghcr.io/acme/mnist:1"


@task(
    task_config=PyTorch(
        worker=Worker(replicas=2, restart_policy=RestartPolicy.NEVER),
        master=Master(restart_policy=RestartPolicy.NEVER),
        run_policy=RunPolicy(clean_pod_policy=CleanPodPolicy.ALL, backoff_limit=2),
    ),
    requests=Resources(cpu="1", mem="2Gi"),
    container_image=IMAGE,
)
def mnist_pytorch_job(epochs: int = 1) -> float:
    return float(epochs)


@task(task_config=PyTorch(num_workers=3, increase_shared_mem=False), container_image=IMAGE)
def legacy_num_workers() -> None: ...

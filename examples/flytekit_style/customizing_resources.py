"""flytesnacks "customizing task resources", ported: flytekit's Resources spellings
(``mem``, numbers), a GPU with an accelerator, shared memory, ``container_image=``."""

from podtemplate import Resources, task

IMAGE = "ghcr.io/flyteorg/flytecookbook:core-latest"


@task(container_image=IMAGE, requests=Resources(cpu="1", mem="100Mi"),
      limits=Resources(cpu="2", mem="150Mi"))
def count_unique_numbers(x: list[int]) -> int:
    return len(set(x))


@task(container_image=IMAGE, requests=Resources(cpu=1, mem="1Gi", ephemeral_storage="5Gi"),
      environment={"OMP_NUM_THREADS": 1})
def square(n: int) -> int:
    return n * n


# Flyte's accelerator selection: the node label comes from platform.yaml
# (acceleratorLabel) and gives the pod a nodeSelector, a required node affinity and the
# toleration <label>=nvidia-tesla-a100:NoSchedule; the GPU toleration comes from its
# resourceTolerations.
@task(image=IMAGE, requests=Resources(gpu=1, mem="16Gi"), accelerator="nvidia-tesla-a100",
      shared_memory="4Gi")
def gpu_available() -> bool:
    import torch

    return bool(torch.cuda.is_available())


@task(name="Calc.Area", image=IMAGE, shared_memory=True)
def area(radius: float) -> float:
    return 3.14159 * radius * radius


# A module-level override of a task is a task of its own.
big_square = square.with_overrides(name="square_big", requests=Resources(cpu=4, mem="8Gi"))

"""flytesnacks "dask" plugin example, ported: flytekit's Scheduler/WorkerGroup spellings;
interruptible=True puts the workers on spot nodes, not the scheduler or the job runner
(as on Flyte)."""

from podtemplate import Resources, task
from podtemplate_dask import Dask, Scheduler, WorkerGroup


@task(
    task_config=Dask(
        scheduler=Scheduler(limits=Resources(cpu="1", mem="2Gi")),
        workers=WorkerGroup(number_of_workers=10, limits=Resources(cpu="4", mem="10Gi")),
    ),
    limits=Resources(cpu="1", mem="2Gi"),
    container_image="ghcr.io/flyteorg/flytekit:py3.11-dask",
    interruptible=True,
)
def hello_dask(size: int = 1000) -> float:
    import dask.array as da

    return float(da.random.random(size).mean().compute())

"""Dask tasks: each renders to one dask-kubernetes ``kubernetes.dask.org/v1 DaskJob`` whose
job runner, scheduler and worker pods all get the cluster template, the task's settings
and then their own role's.

Render them:  podtemplate render examples/dask_tasks.py --platform examples/platform.yaml
"""

from podtemplate import PodTemplate, Resources, Role, task
from podtemplate_dask import Dask

IMAGE = "ghcr.io/acme/dask:2024.12.1"  # dask, distributed and podtemplate installed


@task(
    image=IMAGE,
    requests=Resources(cpu="1", memory="2Gi"),
    task_config=Dask(
        # The scheduler holds the whole task graph: losing it loses the job, so it stays
        # on on-demand nodes even though the workers are spot.
        scheduler=Role(interruptible=False, requests=Resources(cpu="1", memory="4Gi"),
                       limits=Resources(memory="4Gi")),
        # Workers are cheap to lose: spot nodes (the platform's interruptible fragment),
        # the team's dask-worker template, and --nthreads/--memory-limit from the limits.
        workers=Role(replicas=8, interruptible=True, pod_template_name="dask-worker",
                     requests=Resources(cpu="4", memory="16Gi"),
                     limits=Resources(cpu="4", memory="16Gi")),
        # A hung job must not keep the cluster: when the runner pod fails (here, after
        # two hours) the operator deletes the cluster. (idle_timeout is refused: the
        # operator ignores a DaskJob's idleTimeout.)
        job_runner=Role(pod_template=PodTemplate({"activeDeadlineSeconds": 7200})),
    ),
)
def daily_feature_stats(table: str = "events", day: str = "2026-01-01") -> int:
    """Runs in the job runner; ``Client()`` finds the scheduler through
    DASK_SCHEDULER_ADDRESS, which the operator sets."""
    import dask.dataframe as dd
    from dask.distributed import Client

    with Client():
        frame = dd.read_parquet(f"s3://acme-lake/{table}/day={day}/")
        return int(frame.shape[0].compute())


@task(
    image=IMAGE,
    pod_template_name="highmem",
    pod_template=PodTemplate({"serviceAccountName": "dask-runner"}),
    task_config=Dask(
        job_runner=Role(requests=Resources(cpu="500m", memory="1Gi")),
        workers=Role(replicas=2, pod_template=PodTemplate({
            "containers": [{"name": "primary", "env": [{"name": "MALLOC_TRIM_THRESHOLD_",
                                                        "value": "65536"}]}]})),
    ),
)
def dedupe(table: str = "events") -> str:
    """On the platform's highmem template; workers trim freed memory eagerly."""
    from dask.distributed import Client

    with Client() as client:
        return str(client.dashboard_link)

"""flytesnacks "ray" example, ported: flytekit's RayJobConfig, HeadNodeConfig and
WorkerNodeConfig(group_name="test_group"), with the autoscaler and a runtime env."""

from podtemplate import Resources, task
from podtemplate_ray import AutoscalerOptions, HeadNodeConfig, RayJobConfig, WorkerNodeConfig

ray_config = RayJobConfig(
    head_node_config=HeadNodeConfig(ray_start_params={"log-color": "True"}),
    worker_node_config=[WorkerNodeConfig(group_name="test_group", replicas=1,
                                         min_replicas=0, max_replicas=4)],
    runtime_env={"pip": ["numpy", "pandas"]},
    enable_autoscaling=True,
    autoscaler_options=AutoscalerOptions(idle_timeout_seconds=60,
                                         upscaling_mode="Conservative"),
    shutdown_after_job_finishes=True,
    ttl_seconds_after_finished=3600,
)


@task(task_config=ray_config, requests=Resources(mem="2Gi", cpu="2"),
      container_image="ghcr.io/flyteorg/flytekit:py3.11-ray")
def ray_task(n: int = 5) -> list[int]:
    import ray

    @ray.remote
    def f(x: int) -> int:
        return x * x

    return ray.get([f.remote(i) for i in range(n)])

"""Ray tasks: each renders to one ray.io/v1 RayJob (KubeRay), the function being the job's
entrypoint on a Ray cluster of a head and worker groups.

Render:  podtemplate render examples/ray_tasks.py --platform examples/platform.yaml
"""

from podtemplate import PodTemplate, Resources, Role, task
from podtemplate_ray import Head, Ray, WorkerGroup

# Only the GPU group lands on GPU nodes: the selector and toleration sit in its role
# template, not in the task's.
gpu_nodes = PodTemplate(pod_spec={
    "nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"},
    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
})

# The submitter only runs `ray job submit`: no task resources, no GPU. It keeps the
# cluster template and the task's scheduling fields, plus its own annotation.
submitter = Role(
    pod_template=PodTemplate(annotations={"sidecar.istio.io/inject": "false"}),
    requests=Resources(cpu="200m", memory="512Mi"),
)


@task(
    image="ghcr.io/acme/ray:2.41.0-py311",
    pod_template_name="ray-cluster",
    requests=Resources(cpu="4", memory="16Gi"),
    task_config=Ray(
        head=Head(ray_start_params={"num-cpus": 0}),  # keep work off the head
        worker_groups=[
            WorkerGroup(name="cpu", replicas=2, min_replicas=1, max_replicas=8),
            WorkerGroup(name="gpu", replicas=1, max_replicas=4, pod_template=gpu_nodes,
                        requests=Resources(cpu="8", memory="64Gi", gpu=1)),
        ],
        submitter=submitter,
        runtime_env={"env_vars": {"TOKENIZERS_PARALLELISM": "false"}},
        enable_autoscaling=True,
        ttl_seconds_after_finished=600,
    ),
)
def ray_train(shards: int = 8) -> float:
    """Spreads work over the Ray cluster; runs on the head as the RayJob's driver."""
    import ray  # in the task image; rendering does not need it

    @ray.remote
    def square(value: int) -> int:
        return value * value

    ray.init()
    return float(sum(ray.get([square.remote(i) for i in range(shards)])))

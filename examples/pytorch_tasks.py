"""Distributed PyTorch tasks: each renders to one kubeflow.org/v1 PyTorchJob.

Render them:  podtemplate render examples/pytorch_tasks.py --platform examples/platform.yaml

``train_vit`` for Kubeflow Trainer v2 instead (a TrainingRuntime and a TrainJob):
    podtemplate render examples/pytorch_tasks.py:train_vit \
        --platform examples/platform-trainer.yaml

The functions import torch when they run, in their pods; rendering needs no torch.
"""

from podtemplate import PodTemplate, Resources, Role, task
from podtemplate_pytorch import Elastic, PyTorch, RunPolicy

# The master coordinates and logs; it runs on ordinary CPU nodes.
master = Role(requests=Resources(cpu="2", memory="8Gi"))

# Workers use the platform's named A100 template, one GPU each, plus a role template of
# their own: a sidecar that uploads checkpoints as the training writes them.
worker = Role(
    replicas=4,
    pod_template_name="pytorch-a100-worker",
    pod_template=PodTemplate({
        "volumes": [{"name": "checkpoints", "emptyDir": {}}],
        "containers": [
            {"name": "primary",
             "volumeMounts": [{"name": "checkpoints", "mountPath": "/checkpoints"}]},
            {"name": "uploader", "image": "ghcr.io/acme/ckpt-uploader:2",
             "args": ["--watch", "/checkpoints", "--to", "s3://acme-checkpoints"],
             "volumeMounts": [{"name": "checkpoints", "mountPath": "/checkpoints",
                               "readOnly": True}]},
        ],
    }),
    requests=Resources(cpu="8", memory="64Gi", gpu=1),
    env={"NCCL_DEBUG": "INFO"},
)


@task(
    image="ghcr.io/acme/train:1",
    env={"DATASET": "s3://acme-datasets/imagenet"},
    task_config=PyTorch(
        master=master,
        worker=worker,
        run_policy=RunPolicy(clean_pod_policy="Running", backoff_limit=3,
                             ttl_seconds_after_finished=86400),
        shm_size="16Gi",
    ),
)
def train_resnet(epochs: int = 10, lr: float = 0.1) -> None:
    """Data-parallel training: the master (rank 0) and 4 GPU workers."""
    import torch.distributed as dist

    dist.init_process_group("nccl" if dist.is_nccl_available() else "gloo")
    print(f"rank {dist.get_rank()} of {dist.get_world_size()}: {epochs} epochs, lr {lr}")
    dist.destroy_process_group()


# One task, two operators: the platform decides. With examples/platform.yaml it is a
# PyTorchJob (a master and 4 workers); with examples/platform-trainer.yaml
# (taskTypes.pytorch.operator: trainer) a Trainer v2 TrainJob of 5 identical nodes and the
# TrainingRuntime that holds their pod, resolved from the same templates. Same code.
@task(
    image="ghcr.io/acme/train:1",
    env={"DATASET": "s3://acme-datasets/imagenet"},
    task_config=PyTorch(
        worker=worker,
        run_policy=RunPolicy(backoff_limit=3, ttl_seconds_after_finished=86400),
        shm_size="16Gi",
    ),
)
def train_vit(epochs: int = 10) -> None:
    """Data-parallel training on 5 GPU nodes, under either operator."""
    import torch.distributed as dist

    dist.init_process_group("nccl" if dist.is_nccl_available() else "gloo")
    print(f"rank {dist.get_rank()} of {dist.get_world_size()}: {epochs} epochs")
    dist.destroy_process_group()


@task(
    image="ghcr.io/acme/train:1",
    interruptible=True,
    task_config=PyTorch(
        worker=Role(pod_template_name="t4", requests=Resources(cpu="4", memory="16Gi", gpu=1)),
        elastic=Elastic(min_replicas=2, max_replicas=6, nproc_per_node=1, max_restarts=3),
        run_policy=RunPolicy(active_deadline_seconds=7200),
    ),
)
def finetune_elastic(steps: int = 1000) -> None:
    """Elastic fine-tuning on spot T4 nodes: 2 to 6 workers started by torchrun."""
    import torch.distributed as dist

    dist.init_process_group("gloo")
    print(f"rank {dist.get_rank()} of {dist.get_world_size()}: {steps} steps")
    dist.destroy_process_group()

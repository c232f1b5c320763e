"""The Kubeflow Trainer v2 target (``taskTypes.pytorch.operator: trainer``): one
``TrainingRuntime`` holding the task's fully resolved ``node`` pod, and the ``TrainJob``
that runs it.

A TrainJob's own fields override only part of a pod (image, command, env, resources);
everything else comes from the runtime it names. So the plugin renders a runtime of the
task's own, namespaced and named after it, whose ``node`` job carries the pod resolved
through every layer: every template field reaches the pods.

Facts from Kubeflow Trainer v2.3.0 (``pkg/``) and JobSet v0.12.0, each cited where used.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from podtemplate import (
    DefinitionError,
    FieldDecl,
    RenderContext,
    Role,
    RoleSpec,
    Task,
    object_metadata,
    object_name,
)
from podtemplate.plugin import config_of

from .build import check_shm_volume
from .config import PyTorch
from .roles import SHM_DECLS, check_task, operator_layer

__all__ = [
    "ANCESTOR_LABEL",
    "NODE",
    "NODE_PATH",
    "RUNTIME_KIND",
    "TRAINER_API_VERSION",
    "TRAINER_PORT",
    "TRAINJOB_KIND",
    "build_trainer",
    "node_roles",
]

TRAINER_API_VERSION = "trainer.kubeflow.org/v1alpha1"
TRAINJOB_KIND = "TrainJob"
RUNTIME_KIND = "TrainingRuntime"
# pkg/constants/constants.go: the trainer job and its training container are both "node";
# the torch plugin finds them by the ancestor label and that container name.
NODE = "node"
ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step"
ANCESTOR_TRAINER = "trainer"
# pkg/constants/constants.go ContainerTrainerPort: the torch plugin adds this port to the
# node container (torch.go EnforceMLPolicy, apply.UpsertPort) and points PET_MASTER_PORT at it.
TRAINER_PORT = 29500
NODE_PATH = "spec.template.spec.replicatedJobs[0].template.spec.template"
# torch.go EnforceMLPolicy upserts these into the node container (constants.go).
_PET_ENV = ("PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR",
            "PET_MASTER_PORT")
# JobSet v0.12.0 pkg/webhooks/jobset_webhook.go defaults a replicated job's pod
# restartPolicy to OnFailure; written out, so the runtime shows what will run.
DEFAULT_RESTART_POLICY = "OnFailure"
_JOB_RESTART_POLICIES = ("OnFailure", "Never")  # a Job's pods accept nothing else

_NODE_OWNED = (
    FieldDecl("spec.containers[primary].name",
              f"Trainer's torch plugin finds the training container by the name '{NODE}'"),
    FieldDecl("spec.containers[primary].command",
              "runs the task function through torchrun and the podtemplate executor: "
              "torchrun reads the rendezvous settings Trainer sets (PET_*)"),
    FieldDecl("spec.containers[primary].args", "names the task function and its inputs"),
    FieldDecl(f"spec.containers[primary].ports[{TRAINER_PORT},TCP]",
              "Trainer's torch plugin adds this port to the node container; PET_MASTER_PORT "
              "points at it"),
    *(FieldDecl(f"spec.containers[primary].env[{name}]",
                "runtime: set by Trainer's torch plugin when it creates the pod, replacing "
                "a template's value")
      for name in _PET_ENV),
)


def node_roles(task: Task, context: RenderContext) -> list[RoleSpec]:
    """The one role of a TrainJob: every node, rank 0 included, runs the ``node`` job's
    pod. It takes the task's layers and then the ``worker`` role's."""
    config = config_of(task, PyTorch)
    check_task(task, config)
    _check_trainer_config(task, config)
    port = {"containerPort": TRAINER_PORT, "protocol": "TCP"}
    layer = operator_layer(task, context, config, NODE, port, torchrun=True)
    owned = _NODE_OWNED + (SHM_DECLS if config.shm_size else ())
    return [RoleSpec(name=NODE, template_path=NODE_PATH, container_name=NODE,
                     role=config.worker, config_role="worker", operator_layer=layer,
                     owned=owned)]


def _check_trainer_config(task: Task, config: PyTorch) -> None:
    """What a PyTorch config asks that Trainer v2.3.0 cannot do."""
    def refuse(message: str, field: str, fix: str) -> DefinitionError:
        return DefinitionError(f"{message} (taskTypes.pytorch.operator: trainer)",
                               task=task.name, field=field, fix=fix)

    if config.elastic is not None:
        # torch.go EnforceMLPolicy: "TODO: Add support for PyTorch elastic when JobSet
        # supports Elastic Jobs"; TorchMLPolicySource has no elastic policy in v2.3.0.
        raise refuse("Kubeflow Trainer v2.3.0 runs no elastic PyTorch jobs",
                     "task_config.elastic",
                     "drop elastic (a fixed worker count), or render for the "
                     "training-operator")
    if config.master is not None and config.master != Role():
        raise refuse("Trainer v2 runs every node, rank 0 included, from one pod template: "
                     "a master role of its own cannot apply", "task_config.master",
                     "move the master's settings to the task or to the worker role")
    if config.restart_policy not in (None, *_JOB_RESTART_POLICIES):
        raise refuse(f"restart_policy {config.restart_policy!r} is not a policy of the "
                     "node job's pods (a Kubernetes Job accepts OnFailure or Never)",
                     "task_config.restart_policy", "use OnFailure or Never")
    if config.run_policy is not None and config.run_policy.clean_pod_policy is not None:
        raise refuse("a TrainJob has no cleanPodPolicy", "task_config.run_policy."
                     "clean_pod_policy", "drop clean_pod_policy; ttl_seconds_after_finished "
                     "removes the pods when the job has finished")


def nodes_of(config: PyTorch) -> int:
    """The number of nodes: the master and the workers of the same PyTorchJob, so the
    world size does not change with the operator."""
    return config.worker_replicas() + 1


def build_trainer(task: Task, roles: Sequence[RoleSpec], pods: Mapping[str, dict[str, Any]],
                  context: RenderContext) -> list[dict[str, Any]]:
    """The TrainingRuntime (first: the TrainJob names it) and the TrainJob."""
    config = config_of(task, PyTorch)
    (role,) = roles
    pod = pods[role.name]
    check_shm_volume(pod, config, role.name)
    pod["spec"]["restartPolicy"] = _restart_policy(pod, config, task)
    runtime = _runtime(task, context, config, pod)
    return [runtime, _train_job(task, context, config)]


def _restart_policy(pod: Mapping[str, Any], config: PyTorch, task: Task) -> str:
    from_template = pod["spec"].get("restartPolicy")
    # "" is no value (the API server stores none): the default applies, as with None.
    if config.restart_policy is None and from_template not in (None, "",
                                                               *_JOB_RESTART_POLICIES):
        raise DefinitionError(
            f"restartPolicy {from_template!r} is not allowed for the pods of the node job "
            "(a Kubernetes Job accepts OnFailure or Never)", task=task.name, role=NODE,
            field="spec.restartPolicy", fix="set OnFailure or Never in the template")
    return str(config.restart_policy or from_template or DEFAULT_RESTART_POLICY)


def _runtime(task: Task, context: RenderContext, config: PyTorch, pod: dict[str, Any]
             ) -> dict[str, Any]:
    # pkg/runtime/core/trainingruntime.go (newRuntimeInfo): the pod count of the job whose
    # ancestor label is "trainer" is mlPolicy.numNodes; the jobset plugin (SyncParallelCount)
    # makes it the Job's parallelism and completions.
    job: dict[str, Any] = {
        "name": NODE,
        "template": {"metadata": {"labels": {ANCESTOR_LABEL: ANCESTOR_TRAINER}},
                     "spec": {"template": pod}},
    }
    jobset: dict[str, Any] = {"replicatedJobs": [job]}
    policy = config.run_policy
    if policy is not None and policy.backoff_limit is not None:
        jobset["failurePolicy"] = {"maxRestarts": policy.backoff_limit}
    if policy is not None and policy.ttl_seconds_after_finished is not None:
        jobset["ttlSecondsAfterFinished"] = policy.ttl_seconds_after_finished
    return {
        "apiVersion": TRAINER_API_VERSION, "kind": RUNTIME_KIND,
        "metadata": object_metadata(task, context),
        "spec": {"mlPolicy": {"numNodes": nodes_of(config), "torch": {}},
                 "template": {"spec": jobset}},
    }


def _train_job(task: Task, context: RenderContext, config: PyTorch) -> dict[str, Any]:
    # torch.go EnforceMLPolicy: without trainer.numProcPerNode the plugin uses "auto"
    # (one process per CPU of a node without GPUs); one process per node is what the
    # PyTorchJob ran, so it is written out.
    spec: dict[str, Any] = {
        "runtimeRef": {"name": object_name(task, context),
                       "apiGroup": TRAINER_API_VERSION.split("/")[0], "kind": RUNTIME_KIND},
        "trainer": {"numNodes": nodes_of(config), "numProcPerNode": 1},
    }
    policy = config.run_policy
    if policy is not None and policy.active_deadline_seconds is not None:
        spec["activeDeadlineSeconds"] = policy.active_deadline_seconds
    return {"apiVersion": TRAINER_API_VERSION, "kind": TRAINJOB_KIND,
            "metadata": object_metadata(task, context), "spec": spec}

"""`taskTypes.pytorch.operator: trainer`: the same PyTorch task as a Kubeflow Trainer v2
(v2.3.0) TrainingRuntime + TrainJob, both validated against the Trainer CRDs."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from importlib import resources
from typing import Any

import pytest
from podtemplate import (
    DefinitionError,
    Platform,
    PlatformConfigError,
    PodTemplate,
    Resources,
    Role,
    Task,
    get_path,
    render,
    task,
)
from podtemplate.testing import assert_valid_custom_resource, assert_valid_pod_template, env_of
from podtemplate_pytorch import PyTorch, RunPolicy
from podtemplate_pytorch.trainer import NODE_PATH

RUNTIME_CRD = "podtemplate_pytorch:crds/trainer.kubeflow.org_trainingruntimes.json"
TRAINJOB_CRD = "podtemplate_pytorch:crds/trainer.kubeflow.org_trainjobs.json"
TRAINER = Platform(defaultImage="python:3.11", namespace="ml",
                   taskTypes={"pytorch": {"operator": "trainer"}})


def render_trainer(item: Task, platform: Platform = TRAINER, **kwargs: Any
                   ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The TrainingRuntime and the TrainJob of one task, each valid against its CRD and
    the node pod valid strictly."""
    runtime, job = render(item, platform=platform, **kwargs)
    assert (runtime["kind"], job["kind"]) == ("TrainingRuntime", "TrainJob")
    assert_valid_custom_resource(runtime, RUNTIME_CRD)
    assert_valid_custom_resource(job, TRAINJOB_CRD)
    assert_valid_pod_template(node_pod(runtime))
    return runtime, job


def node_pod(runtime: Mapping[str, Any]) -> dict[str, Any]:
    pod: dict[str, Any] = get_path(runtime, NODE_PATH)
    return pod


def node(runtime: Mapping[str, Any]) -> dict[str, Any]:
    first: dict[str, Any] = node_pod(runtime)["spec"]["containers"][0]
    return first


GPU = PodTemplate({"tolerations": [{"key": "gpu", "operator": "Exists"}],
                   "nodeSelector": {"pool": "a100"},
                   "containers": [{"name": "primary", "workingDir": "/work"},
                                  {"name": "log-agent", "image": "fluent-bit:3"}]})


@task(image="ghcr.io/acme/train:1", pod_template=GPU, task_config=PyTorch(
    worker=Role(replicas=3, requests=Resources(cpu="8", memory="32Gi", gpu=1),
                env={"EPOCHS": "3"}),
    shm_size="8Gi"))
def train() -> None: ...


def test_the_same_task_renders_a_pytorchjob_by_default() -> None:
    (job,) = render(train, platform=Platform(defaultImage="python:3.11"))
    assert job["kind"] == "PyTorchJob"


# Trainer v2.3.0 pkg/apis/trainer/v1alpha1/trainjob_types.go: RuntimeRef{name, apiGroup,
# kind}; a TrainingRuntime is namespaced and referenced by TrainJobs of its namespace
# (trainingruntime_types.go).
def test_trainjob_names_its_own_namespaced_runtime() -> None:
    runtime, job = render_trainer(train)
    assert runtime["metadata"]["name"] == job["metadata"]["name"] == "train"
    assert runtime["metadata"]["namespace"] == job["metadata"]["namespace"] == "ml"
    assert job["spec"]["runtimeRef"] == {"name": "train", "apiGroup": "trainer.kubeflow.org",
                                         "kind": "TrainingRuntime"}


# pkg/runtime/core/trainingruntime.go (newRuntimeInfo): the job labelled with the
# "trainer" ancestor step gets mlPolicy.numNodes pods; torch.go finds its container "node"
# (pkg/constants/constants.go: Node, LabelTrainJobAncestor, AncestorTrainer).
def test_runtime_holds_the_resolved_node_pod_under_the_torch_policy() -> None:
    runtime, _ = render_trainer(train)
    assert runtime["spec"]["mlPolicy"] == {"numNodes": 4, "torch": {}}  # master + 3 workers
    (replicated,) = runtime["spec"]["template"]["spec"]["replicatedJobs"]
    assert replicated["name"] == "node"
    assert replicated["template"]["metadata"]["labels"] == {
        "trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}
    pod = node_pod(runtime)
    assert pod["metadata"]["labels"]["podtemplate.io/role"] == "node"
    assert pod["spec"]["tolerations"] == [{"key": "gpu", "operator": "Exists"}]
    assert pod["spec"]["nodeSelector"] == {"pool": "a100"}
    main = node(runtime)
    assert main["name"] == "node" and main["workingDir"] == "/work"
    assert main["resources"]["requests"] == {"cpu": "8", "memory": "32Gi",
                                             "nvidia.com/gpu": "1"}
    assert env_of(main) == {"EPOCHS": "3"}
    assert [c["name"] for c in pod["spec"]["containers"]] == ["node", "log-agent"]
    shm = next(v for v in pod["spec"]["volumes"] if v["name"] == "dshm")
    assert shm["emptyDir"] == {"medium": "Memory", "sizeLimit": "8Gi"}


# torch.go EnforceMLPolicy: PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK, PET_MASTER_ADDR
# and PET_MASTER_PORT go into the node container, and the trainer port 29500
# (constants.ContainerTrainerPort) is added to it: torchrun reads the PET_* settings.
def test_node_runs_the_function_under_torchrun_on_the_trainer_port() -> None:
    runtime, _ = render_trainer(train)
    main = node(runtime)
    assert main["command"] == ["torchrun"]
    assert main["args"][:2] == ["-m", "podtemplate.executor"]
    assert {"containerPort": 29500, "protocol": "TCP"} in main["ports"]


# torch.go EnforceMLPolicy: without TrainJob spec.trainer.numProcPerNode the plugin uses
# "auto" (a process per CPU on a node without GPUs). The PyTorchJob ran one per pod.
def test_trainjob_carries_nodes_and_one_process_per_node() -> None:
    _, job = render_trainer(train)
    assert job["spec"]["trainer"] == {"numNodes": 4, "numProcPerNode": 1}


# JobSet v0.12.0 pkg/webhooks/jobset_webhook.go defaults a replicated job's pod
# restartPolicy to OnFailure; a Job's pods take OnFailure or Never only.
def test_restart_policy_defaults_to_on_failure_never_kept_always_refused() -> None:
    assert node_pod(render_trainer(train)[0])["spec"]["restartPolicy"] == "OnFailure"

    @task(image="t:1", pod_template=PodTemplate({"restartPolicy": "Never"}),
          task_config=PyTorch())
    def once() -> None: ...

    assert node_pod(render_trainer(once)[0])["spec"]["restartPolicy"] == "Never"

    @task(image="t:1", pod_template=PodTemplate({"restartPolicy": "Always"}),
          task_config=PyTorch())
    def forever() -> None: ...

    with pytest.raises(DefinitionError, match="OnFailure or Never") as error:
        render(forever, platform=TRAINER)
    assert (error.value.role, error.value.field) == ("node", "spec.restartPolicy")


def test_run_policy_maps_to_the_trainjob_and_jobset() -> None:
    @task(image="t:1", task_config=PyTorch(run_policy=RunPolicy(
        backoff_limit=2, active_deadline_seconds=3600, ttl_seconds_after_finished=60)))
    def bounded() -> None: ...

    runtime, job = render_trainer(bounded)
    jobset = runtime["spec"]["template"]["spec"]
    assert jobset["failurePolicy"] == {"maxRestarts": 2}
    assert jobset["ttlSecondsAfterFinished"] == 60
    assert job["spec"]["activeDeadlineSeconds"] == 3600


@pytest.mark.parametrize(("config", "field"), [
    # torch.go: "TODO (andreyvelich): Add support for PyTorch elastic when JobSet supports
    # Elastic Jobs" - v2.3.0 has no elastic torch policy.
    ({"elastic": {"min_replicas": 1, "max_replicas": 2}}, "task_config.elastic"),
    ({"master": Role(requests=Resources(cpu="1"))}, "task_config.master"),
    ({"restart_policy": "ExitCode"}, "task_config.restart_policy"),
    ({"run_policy": RunPolicy(clean_pod_policy="All")},
     "task_config.run_policy.clean_pod_policy"),
])
def test_what_trainer_cannot_do_is_refused(config: dict[str, Any], field: str) -> None:
    @task(image="t:1", task_config=PyTorch(**config))
    def job() -> None: ...

    with pytest.raises(DefinitionError, match="operator: trainer") as error:
        render(job, platform=TRAINER)
    assert error.value.field == field and error.value.task == "job"
    render(job, platform=Platform(defaultImage="python:3.11"))  # fine for PyTorchJob


def test_unknown_or_invalid_settings_are_platform_errors() -> None:
    for settings, words in (({"operator": "volcano"}, "taskTypes.pytorch.operator"),
                            ({"operatr": "trainer"}, "unknown key 'operatr'")):
        with pytest.raises(PlatformConfigError, match=words) as error:
            render(train, platform=Platform(taskTypes={"pytorch": settings}))
        assert "operator" in (error.value.fix or "")


def _shipped(resource: str) -> dict[str, Any]:
    """The openAPIV3Schema of a CRD this plugin ships."""
    text = resources.files("podtemplate_pytorch").joinpath(resource).read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)["spec"]["versions"][0]["schema"][
        "openAPIV3Schema"]
    return schema


# The shipped TrainJob CRD of Trainer v2.3.0 (manifests/base/crds/
# trainer.kubeflow.org_trainjobs.yaml, from trainjob_types.go's CEL markers): a TrainJob's
# name must match an RFC 1035 label of at most 63 characters. The PyTorch config refuses
# exactly such names when the task is defined, whichever operator the platform picks.
@pytest.mark.parametrize("name", ["a", "train-vit", "v2", "2024-run", "9", "x" * 40])
def test_task_names_follow_the_trainjob_crd_name_rule(name: str) -> None:
    rules = [v["rule"] for v in _shipped(TRAINJOB_CRD.partition(":")[2])[
        "x-kubernetes-validations"]]
    (pattern,) = [re.search(r"matches\('(.+)'\)", rule) for rule in rules if "matches(" in rule]
    assert pattern is not None and any("<= 63" in rule for rule in rules)
    crd_accepts = re.fullmatch(pattern.group(1), name) is not None and len(name) <= 63
    try:
        task(name=name, image="t:1", task_config=PyTorch())(lambda: None)
    except DefinitionError:
        assert not crd_accepts
    else:
        assert crd_accepts


# The shipped TrainJob CRD defaults spec.runtimeRef.kind to ClusterTrainingRuntime: a
# TrainJob that left it out would look for a cluster-wide runtime of the task's name. The
# rendered TrainJob names the kind of the namespaced runtime rendered beside it.
def test_runtime_ref_names_the_namespaced_kind_the_crd_would_not_default_to() -> None:
    ref = _shipped(TRAINJOB_CRD.partition(":")[2])["properties"]["spec"]["properties"][
        "runtimeRef"]["properties"]
    assert ref["kind"]["default"] == "ClusterTrainingRuntime"
    runtime, job = render_trainer(train)
    assert job["spec"]["runtimeRef"]["kind"] == runtime["kind"] == "TrainingRuntime"


def test_a_missing_worker_template_names_the_config_field_the_user_wrote() -> None:
    # The Trainer's pods are role 'node', but the user wrote worker=Role(...): the error
    # names task_config.worker, not task_config.node.
    from podtemplate import TemplateNotFoundError

    @task(image="train:1", task_config=PyTorch(worker=Role(pod_template_name="h200")))
    def train() -> None: ...

    with pytest.raises(TemplateNotFoundError) as error:
        render(train, platform=TRAINER)
    assert error.value.field == "task_config.worker.pod_template_name"
    assert error.value.role == "node"

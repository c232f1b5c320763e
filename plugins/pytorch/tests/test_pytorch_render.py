"""PyTorch tasks rendered through the real render path: every role resolved on its own,
the operator's fields on top, everything else the user set kept."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from podtemplate import (
    DefinitionError,
    Platform,
    PodTemplate,
    Resources,
    Role,
    TemplateNotFoundError,
    make_context,
    render_task,
    task,
)
from podtemplate.testing import container, env_of, pod_template_yaml
from podtemplate_pytorch import Elastic, PyTorch, RunPolicy

CLUSTER = pod_template_yaml("default", {
    "serviceAccountName": "runner",
    "tolerations": [{"key": "platform/batch", "operator": "Exists", "effect": "NoSchedule"}],
    "containers": [{"name": "primary", "env": [{"name": "PLATFORM", "value": "acme"}]}],
}, labels={"team": "ml"}) + "---\n" + pod_template_yaml("a100", {
    "nodeSelector": {"gpu": "a100"},
    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
    "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}}],
    "containers": [{"name": "primary",
                    "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}]}],
})

DEFAULT_SHM_VOLUME = {"name": "dshm", "emptyDir": {"medium": "Memory"}}
DEFAULT_SHM_MOUNT = {"name": "dshm", "mountPath": "/dev/shm"}


@pytest.fixture
def platform(templates_dir) -> Platform:  # type: ignore[no-untyped-def]
    return Platform(templates=templates_dir({"cluster.yaml": CLUSTER}), defaultTemplate="default",
                    fallbackNamespace="platform", defaultImage="python:3.11")


def replicas(job: dict[str, Any]) -> dict[str, dict[str, Any]]:
    specs: dict[str, dict[str, Any]] = job["spec"]["pytorchReplicaSpecs"]
    return specs


def pods(job: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Replica type -> its pod template."""
    return {name: replica["template"] for name, replica in replicas(job).items()}


def only_job(manifests: list[dict[str, Any]]) -> dict[str, Any]:
    assert len(manifests) == 1, "one PyTorchJob per task"
    return manifests[0]


# ----------------------------------------------------------------- the four cases


def test_worker_only_node_selector_is_on_workers_not_master(render_jobs, platform) -> None:  # type: ignore[no-untyped-def]
    gpu_nodes = PodTemplate({"nodeSelector": {"gpu": "h100"}})

    @task(image="train:1", task_config=PyTorch(worker=Role(replicas=3, pod_template=gpu_nodes)))
    def train() -> None: ...

    job = only_job(render_jobs(train, platform))
    assert pods(job)["Worker"]["spec"]["nodeSelector"] == {"gpu": "h100"}
    assert "nodeSelector" not in pods(job)["Master"]["spec"]
    assert replicas(job)["Worker"]["replicas"] == 3
    assert replicas(job)["Master"]["replicas"] == 1


def test_sidecar_before_primary_leaves_pytorch_first_with_worker_env(render_jobs, platform  # type: ignore[no-untyped-def]
                                                                     ) -> None:
    template = PodTemplate({"containers": [
        {"name": "proxy", "image": "envoy:1"},
        {"name": "primary", "env": [{"name": "FROM_TEMPLATE", "value": "1"}]},
    ]})

    @task(image="train:1", pod_template=template,
          task_config=PyTorch(worker=Role(env={"WORKER_ONLY": "yes"})))
    def train() -> None: ...

    job = only_job(render_jobs(train, platform))
    for name, pod in pods(job).items():
        containers = pod["spec"]["containers"]
        assert [c["name"] for c in containers] == ["pytorch", "proxy"], name
        assert env_of(containers[0])["FROM_TEMPLATE"] == "1"
        assert "env" not in container(pod, "proxy")
    assert env_of(pods(job)["Worker"]["spec"]["containers"][0])["WORKER_ONLY"] == "yes"
    assert "WORKER_ONLY" not in env_of(pods(job)["Master"]["spec"]["containers"][0])


def test_cluster_default_toleration_reaches_both_roles(render_jobs, platform) -> None:  # type: ignore[no-untyped-def]
    @task(image="train:1", task_config=PyTorch(
        worker=Role(pod_template=PodTemplate({"tolerations": [
            {"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]}))))
    def train() -> None: ...

    job = only_job(render_jobs(train, platform))
    platform_toleration = {"key": "platform/batch", "operator": "Exists", "effect": "NoSchedule"}
    for pod in pods(job).values():
        assert platform_toleration in pod["spec"]["tolerations"]
        assert pod["spec"]["serviceAccountName"] == "runner"
        assert pod["metadata"]["labels"]["team"] == "ml"
        assert env_of(container(pod, "pytorch"))["PLATFORM"] == "acme"
    assert len(pods(job)["Worker"]["spec"]["tolerations"]) == 2  # a role adds, never drops
    assert len(pods(job)["Master"]["spec"]["tolerations"]) == 1


def test_task_level_volume_reaches_both_roles(render_jobs, platform) -> None:  # type: ignore[no-untyped-def]
    data = PodTemplate({
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "imagenet"}}],
        "containers": [{"name": "primary",
                        "volumeMounts": [{"name": "data", "mountPath": "/data"}]}],
    })

    @task(image="train:1", pod_template=data, task_config=PyTorch(worker=Role(replicas=2)))
    def train() -> None: ...

    job = only_job(render_jobs(train, platform))
    for pod in pods(job).values():
        assert {"name": "data", "persistentVolumeClaim": {"claimName": "imagenet"}} in pod[
            "spec"]["volumes"]
        assert container(pod, "pytorch")["volumeMounts"] == [
            {"name": "data", "mountPath": "/data"}, DEFAULT_SHM_MOUNT]


# --------------------------------------------------------------------- operator-owned fields


def test_operator_fields_on_every_replica(render_jobs, platform) -> None:  # type: ignore[no-untyped-def]
    template = PodTemplate({"containers": [{
        "name": "primary", "command": ["bash"], "args": ["-c", "ignored"],
        "ports": [{"name": "metrics", "containerPort": 9090},
                  {"name": "dist", "containerPort": 23456}],
        "workingDir": "/work"}]})

    @task(image="train:1", pod_template=template, task_config=PyTorch())
    def train(epochs: int = 1) -> None: ...

    job = only_job(render_jobs(train, platform, inputs={"epochs": "3"}))
    assert job["metadata"]["name"] == "train"
    for pod in pods(job).values():
        main = pod["spec"]["containers"][0]
        assert main["name"] == "pytorch"
        assert main["command"] == ["python", "-m", "podtemplate.executor"]
        assert main["args"][-2:] == ["--inputs", '{"epochs": 3}']
        assert main["workingDir"] == "/work"
        ports = {p["containerPort"]: p["name"] for p in main["ports"]}
        assert ports == {9090: "metrics", 23456: "pytorchjob-port"}
        assert pod["metadata"]["labels"]["podtemplate.io/task-type"] == "pytorch"
        assert pod["metadata"]["annotations"]["kubectl.kubernetes.io/default-container"] == (
            "pytorch")
    assert pods(job)["Master"]["metadata"]["labels"]["podtemplate.io/role"] == "master"
    assert pods(job)["Worker"]["metadata"]["labels"]["podtemplate.io/role"] == "worker"


def test_role_settings_reach_only_their_role(render_jobs, platform) -> None:  # type: ignore[no-untyped-def]
    @task(image="train:1", requests=Resources(cpu="2", memory="4Gi"), task_config=PyTorch(
        master=Role(image="train-master:1"),
        worker=Role(requests=Resources(cpu="8", gpu=2), replicas=4)))
    def train() -> None: ...

    job = only_job(render_jobs(train, platform))
    master = container(pods(job)["Master"], "pytorch")
    worker = container(pods(job)["Worker"], "pytorch")
    assert master["image"] == "train-master:1" and worker["image"] == "train:1"
    assert master["resources"]["requests"] == {"cpu": "2", "memory": "4Gi"}
    assert worker["resources"]["requests"] == {"cpu": "8", "memory": "4Gi",
                                               "nvidia.com/gpu": "2"}
    assert worker["resources"]["limits"] == {"nvidia.com/gpu": "2", "cpu": "8",
                                             "memory": "4Gi"}  # an unset limit is the request, as on Flyte


# Training Operator v1.9.4, pkg/controller.v1/common/pod.go (createNewPod): a pod
# template's restartPolicy is overwritten from the replica spec (core.SetRestartPolicy,
# pkg/core/pod.go) and each pod created gets a warning event
# "SetPodTemplateRestartPolicy"; so the policy belongs on the replica spec only.
def test_restart_policy_is_on_the_replica_spec_only(render_jobs, platform) -> None:  # type: ignore[no-untyped-def]
    retried = PodTemplate({"restartPolicy": "OnFailure"})

    @task(image="train:1", task_config=PyTorch(worker=Role(pod_template=retried)))
    def train() -> None: ...

    job = only_job(render_jobs(train, platform))
    assert replicas(job)["Worker"]["restartPolicy"] == "OnFailure"
    # Unset: Never, as Flyte's PyTorch plugin (flyteidl RestartPolicy's zero value).
    assert replicas(job)["Master"]["restartPolicy"] == "Never"
    for replica in ("Master", "Worker"):
        assert "restartPolicy" not in pods(job)[replica]["spec"]


# Training Operator v1.9.4, pkg/apis/kubeflow.org/v1/common_types.go: RestartPolicyExitCode
# "ExitCode" (retry on retryable exit codes); pkg/core/pod.go SetRestartPolicy runs its pods
# with Never. A pod template cannot say ExitCode, so the config does.
def test_exit_code_restart_policy_on_every_replica(render_jobs, platform) -> None:  # type: ignore[no-untyped-def]
    never = PodTemplate({"restartPolicy": "Never"})

    @task(image="train:1", task_config=PyTorch(restart_policy="ExitCode",
                                               worker=Role(pod_template=never)))
    def train() -> None: ...

    job = only_job(render_jobs(train, platform))
    assert {r["restartPolicy"] for r in replicas(job).values()} == {"ExitCode"}
    assert all("restartPolicy" not in pod["spec"] for pod in pods(job).values())


def test_unknown_restart_policy_is_a_definition_error() -> None:
    with pytest.raises(DefinitionError, match="restart_policy"):
        PyTorch(restart_policy="Sometimes")


def test_interruptible_workers_only(render_jobs, templates_dir) -> None:  # type: ignore[no-untyped-def]
    platform = Platform(defaultImage="python:3.11", interruptible={
        "tolerations": [{"key": "spot", "operator": "Exists", "effect": "NoSchedule"}]})

    @task(image="train:1", task_config=PyTorch(worker=Role(interruptible=True)))
    def train() -> None: ...

    job = only_job(render_jobs(train, platform))
    assert pods(job)["Worker"]["spec"]["tolerations"][0]["key"] == "spot"
    assert "tolerations" not in pods(job)["Master"]["spec"]


def test_run_policy_is_rendered(render_jobs, platform) -> None:  # type: ignore[no-untyped-def]
    @task(image="train:1", task_config=PyTorch(run_policy=RunPolicy(
        clean_pod_policy="Running", backoff_limit=2, active_deadline_seconds=3600,
        ttl_seconds_after_finished=600)))
    def train() -> None: ...

    job = only_job(render_jobs(train, platform))
    assert job["spec"]["runPolicy"] == {"cleanPodPolicy": "Running", "backoffLimit": 2,
                                        "activeDeadlineSeconds": 3600,
                                        "ttlSecondsAfterFinished": 600}
    assert "elasticPolicy" not in job["spec"]


# ---------------------------------------------------------------------------- shm_size


def test_shm_size_mounts_memory_backed_shm_on_every_replica(render_jobs, platform) -> None:  # type: ignore[no-untyped-def]
    @task(image="train:1", task_config=PyTorch(worker=Role(replicas=2), shm_size="8Gi"))
    def train() -> None: ...

    job = only_job(render_jobs(train, platform))
    for pod in pods(job).values():
        assert {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}} in pod[
            "spec"]["volumes"]
        assert {"name": "dshm", "mountPath": "/dev/shm"} in container(pod, "pytorch")[
            "volumeMounts"]


def test_shm_size_wins_over_a_templates_shm_volume(render_jobs, platform) -> None:  # type: ignore[no-untyped-def]
    @task(image="train:1", pod_template_name="a100", task_config=PyTorch(shm_size="32Gi"))
    def train() -> None: ...

    job = only_job(render_jobs(train, platform))
    for pod in pods(job).values():
        assert pod["spec"]["volumes"] == [
            {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "32Gi"}}]
        assert container(pod, "pytorch")["volumeMounts"] == [
            {"name": "dshm", "mountPath": "/dev/shm"}]


def test_an_unsized_memory_backed_shm_by_default_as_flytekit_gives(render_jobs, platform) -> None:  # type: ignore[no-untyped-def]
    @task(image="train:1", task_config=PyTorch())
    def train() -> None: ...

    for pod in pods(only_job(render_jobs(train, platform))).values():
        assert pod["spec"]["volumes"] == [DEFAULT_SHM_VOLUME]
        assert container(pod, "pytorch")["volumeMounts"] == [DEFAULT_SHM_MOUNT]


def test_no_shm_with_shm_size_false(render_jobs, platform) -> None:  # type: ignore[no-untyped-def]
    @task(image="train:1", task_config=PyTorch(shm_size=False))
    def train() -> None: ...

    for pod in pods(only_job(render_jobs(train, platform))).values():
        assert "volumes" not in pod["spec"]
        assert "volumeMounts" not in container(pod, "pytorch")


def test_the_default_shm_leaves_a_template_or_task_shm_alone(render_jobs, platform) -> None:  # type: ignore[no-untyped-def]
    @task(image="train:1", shared_memory="3Gi", task_config=PyTorch())
    def train() -> None: ...

    for pod in pods(only_job(render_jobs(train, platform))).values():
        assert pod["spec"]["volumes"] == [
            {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "3Gi"}}]
        assert container(pod, "pytorch")["volumeMounts"] == [DEFAULT_SHM_MOUNT]


def test_shm_size_rejects_a_template_volume_of_the_same_name(render_jobs, platform) -> None:  # type: ignore[no-untyped-def]
    claim = PodTemplate({"volumes": [{"name": "dshm", "persistentVolumeClaim": {
        "claimName": "scratch"}}]})

    @task(image="train:1", pod_template=claim, task_config=PyTorch(shm_size="1Gi"))
    def train() -> None: ...

    with pytest.raises(DefinitionError) as error:
        render_jobs(train, platform)
    assert error.value.field == "spec.volumes[dshm]" and error.value.task == "train"
    assert "not an emptyDir" in str(error.value)


# ----------------------------------------------------------------------------- elastic


def test_elastic_job_has_workers_only_started_by_torchrun(render_jobs, platform) -> None:  # type: ignore[no-untyped-def]
    @task(image="train:1", task_config=PyTorch(elastic=Elastic(
        min_replicas=2, max_replicas=8, nproc_per_node="gpu", max_restarts=5)))
    def train() -> None: ...

    job = only_job(render_jobs(train, platform))
    assert list(replicas(job)) == ["Worker"]
    assert replicas(job)["Worker"]["replicas"] == 2
    assert job["spec"]["elasticPolicy"] == {"minReplicas": 2, "maxReplicas": 8,
                                            "rdzvBackend": "c10d", "maxRestarts": 5}
    assert job["spec"]["nprocPerNode"] == "gpu"
    main = container(pods(job)["Worker"], "pytorch")
    assert main["command"] == ["torchrun"]
    assert main["args"][:2] == ["-m", "podtemplate.executor"]


def test_elastic_numeric_nproc_is_a_string(render_jobs, platform) -> None:  # type: ignore[no-untyped-def]
    @task(image="train:1", task_config=PyTorch(worker=Role(replicas=3), elastic=Elastic(
        min_replicas=1, max_replicas=4, nproc_per_node=8, rdzv_backend="etcd-v2")))
    def train() -> None: ...

    job = only_job(render_jobs(train, platform))
    assert job["spec"]["nprocPerNode"] == "8"
    assert replicas(job)["Worker"]["replicas"] == 3
    assert job["spec"]["elasticPolicy"]["rdzvBackend"] == "etcd-v2"


# ------------------------------------------------------- named templates on a role (layer 5)


def test_worker_names_a_cluster_template_master_does_not(render_jobs, platform) -> None:  # type: ignore[no-untyped-def]
    @task(image="train:1", task_config=PyTorch(worker=Role(
        pod_template_name="a100", pod_template=PodTemplate({"nodeSelector": {"zone": "b"}}))))
    def train() -> None: ...

    job = only_job(render_jobs(train, platform))
    worker, master = pods(job)["Worker"], pods(job)["Master"]
    assert worker["spec"]["nodeSelector"] == {"gpu": "a100", "zone": "b"}
    assert {"name": "dshm", "mountPath": "/dev/shm"} in container(worker, "pytorch")[
        "volumeMounts"]
    assert [t["key"] for t in worker["spec"]["tolerations"]] == ["platform/batch",
                                                                 "nvidia.com/gpu"]
    assert "nodeSelector" not in master["spec"]
    assert master["spec"]["volumes"] == [DEFAULT_SHM_VOLUME]  # the default, unsized


def test_missing_role_template_names_the_role_and_field(render_jobs, platform) -> None:  # type: ignore[no-untyped-def]
    @task(image="train:1", task_config=PyTorch(worker=Role(pod_template_name="h200")))
    def train() -> None: ...

    with pytest.raises(TemplateNotFoundError) as error:
        render_jobs(train, platform)
    assert (error.value.task, error.value.role) == ("train", "worker")
    assert error.value.field == "task_config.worker.pod_template_name"
    assert "platform/a100" in str(error.value)


# ------------------------------------------------------------------- primary name conflicts


def test_renamed_primary_becomes_pytorch_and_warns(plugin_manager, check_job, platform) -> None:  # type: ignore[no-untyped-def]
    template = PodTemplate({"containers": [{"name": "trainer", "workingDir": "/src"},
                                           {"name": "sidecar", "image": "s:1"}]},
                           primary_container_name="trainer")

    @task(image="train:1", pod_template=template, task_config=PyTorch())
    def train() -> None: ...

    context = make_context(platform=platform, plugin_manager=plugin_manager)
    job = only_job(render_task(train, context))
    check_job(job)
    for pod in pods(job).values():
        assert [c["name"] for c in pod["spec"]["containers"]] == ["pytorch", "sidecar"]
        assert pod["spec"]["containers"][0]["workingDir"] == "/src"
    warnings = [str(w) for w in context.warnings]
    assert len(warnings) == 2 and all("'trainer' is renamed to 'pytorch'" in w
                                      for w in warnings)
    assert {w.role for w in context.warnings} == {"master", "worker"}


def test_task_template_with_primary_and_pytorch_containers_is_rejected(render_jobs, platform  # type: ignore[no-untyped-def]
                                                                       ) -> None:
    template = PodTemplate({"containers": [{"name": "primary", "image": "a:1"},
                                           {"name": "pytorch", "image": "b:1"}]})

    @task(image="train:1", pod_template=template, task_config=PyTorch())
    def train() -> None: ...

    with pytest.raises(DefinitionError) as error:
        render_jobs(train, platform)
    assert error.value.task == "train"
    assert error.value.field == "pod_template.containers[pytorch]"


def test_template_port_named_like_the_operators_is_rejected(render_jobs, platform) -> None:  # type: ignore[no-untyped-def]
    template = PodTemplate({"containers": [{"name": "primary", "ports": [
        {"name": "pytorchjob-port", "containerPort": 29500}]}]})

    @task(image="train:1", task_config=PyTorch(worker=Role(pod_template=template)))
    def train() -> None: ...

    with pytest.raises(DefinitionError) as error:
        render_jobs(train, platform)
    assert (error.value.task, error.value.role) == ("train", "worker")
    assert error.value.field == "spec.containers[pytorch].ports[29500,TCP].name"


# ------------------------------------------------------------------------- task checks


# Training Operator v1.9.4, pkg/webhooks/pytorch/pytorchjob_webhook.go: the job name must
# be a DNS-1035 label (NameIsDNS1035Label); Trainer v2.3.0's TrainJob CRD has the same CEL
# rule (pkg/apis/trainer/v1alpha1/trainjob_types.go). Checked when the task is defined.
@pytest.mark.parametrize(("name", "words"), [
    ("3d-unet", "is not a DNS-1035 label"),
    ("a" * 60, "longer than 63"),
])
def test_names_the_operator_cannot_use_are_rejected_at_definition(name: str, words: str
                                                                  ) -> None:
    with pytest.raises(DefinitionError, match=words) as error:
        @task(name=name, image="train:1", task_config=PyTorch(worker=Role(replicas=12)))
        def train() -> None: ...
    assert error.value.field == "name"
    assert error.value.task == name


def test_longest_replica_name_counts_elastic_maximum(render_jobs, platform) -> None:  # type: ignore[no-untyped-def]
    name = "a" * (63 - len("-worker-99"))  # fits 100 workers (index 99), not 101

    @task(name=name, image="train:1", task_config=PyTorch(
        elastic=Elastic(min_replicas=1, max_replicas=100)))
    def fits() -> None: ...

    assert only_job(render_jobs(fits, platform))["metadata"]["name"] == name
    with pytest.raises(DefinitionError, match="longer than 63"):
        @task(name=name, image="train:1", task_config=PyTorch(
            elastic=Elastic(min_replicas=1, max_replicas=101)))
        def too_many() -> None: ...


# Trainer v2.3.0, pkg/runtime/framework/plugins/jobset/jobset.go (IdentifyPodNetwork): the
# nodes are <job>-node-0-<index>, one per master and worker; the name must leave room for
# the last index whichever operator the platform picks.
def test_longest_trainer_node_name_counts_the_master_too() -> None:
    name = "a" * (63 - len("-node-0-10"))  # 10 workers + the master: index 10 fits
    task(name=name, image="t:1", task_config=PyTorch(worker=Role(replicas=10)))(lambda: None)
    with pytest.raises(DefinitionError, match=r"-node-0-100'.*at most 52"):
        task(name=name, image="t:1", task_config=PyTorch(worker=Role(replicas=100)))(
            lambda: None)


def test_task_command_is_rejected(render_jobs, platform) -> None:  # type: ignore[no-untyped-def]
    @task(image="train:1", command=["torchrun", "train.py"], task_config=PyTorch())
    def train() -> None: ...

    with pytest.raises(DefinitionError) as error:
        render_jobs(train, platform)
    assert error.value.field == "command" and error.value.task == "train"


# ------------------------------------------------------------------- determinism, inputs


def test_render_is_deterministic_and_leaves_inputs_alone(render_jobs, platform) -> None:  # type: ignore[no-untyped-def]
    spec = {"volumes": [{"name": "v", "emptyDir": {}}],
            "containers": [{"name": "primary", "env": [{"name": "A", "value": "1"}]}]}
    template = PodTemplate(spec)
    worker_template = PodTemplate({"nodeSelector": {"gpu": "x"}})
    before = (copy.deepcopy(template.pod_spec), copy.deepcopy(worker_template.pod_spec))

    @task(image="train:1", pod_template=template, task_config=PyTorch(
        worker=Role(pod_template=worker_template), shm_size="1Gi"))
    def train() -> None: ...

    first, second = render_jobs(train, platform), render_jobs(train, platform)
    assert first == second
    assert (template.pod_spec, worker_template.pod_spec) == before
    job = only_job(first)
    master, worker = pods(job)["Master"], pods(job)["Worker"]
    assert master["spec"]["volumes"] is not worker["spec"]["volumes"]
    master["spec"]["volumes"].append({"name": "x", "emptyDir": {}})
    assert len(worker["spec"]["volumes"]) == 2

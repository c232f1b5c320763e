"""Rendering Ray tasks: the RayJob's shape, every role's pod, and what the submitter takes.

Every RayJob rendered here is validated against the KubeRay CRD and its pod templates
strictly against the kubernetes client models (the ``render_rayjob`` fixture)."""

from __future__ import annotations

import copy
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from podtemplate import DefinitionError, Platform, PodTemplate, Resources, Role, Task, task
from podtemplate.testing import container, pod_template_yaml
from podtemplate_ray import Head, Ray, WorkerGroup

Render = Callable[..., dict[str, Any]]
PodsOf = Callable[[dict[str, Any]], dict[str, dict[str, Any]]]

IMAGE = "rayproject/ray:2.41.0-py311"
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
GPU_SELECTOR = {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"}
ROLES = ("head", "worker:cpu", "worker:gpu", "submitter")


def two_groups(**kwargs: Any) -> Ray:
    gpu_template = PodTemplate({"nodeSelector": GPU_SELECTOR, "tolerations": [GPU_TOLERATION]})
    groups = [
        WorkerGroup(name="cpu", replicas=2, min_replicas=1, max_replicas=4),
        WorkerGroup(name="gpu", requests=Resources(cpu="8", gpu=1), pod_template=gpu_template),
    ]
    return Ray(worker_groups=groups, **kwargs)


def make_task(config: Ray | None = None, **kwargs: Any) -> Task:
    def train(epochs: int = 1) -> None:
        """A Ray task function."""

    options: dict[str, Any] = {"image": IMAGE, "task_config": config or two_groups()}
    return task(**{**options, **kwargs})(train)


@pytest.fixture
def platform_with(templates_dir: Callable[[dict[str, str]], Path]
                  ) -> Callable[[str], Platform]:
    """A platform whose default template is the given kind: PodTemplate text."""

    def make(template: str) -> Platform:
        return Platform(templates=templates_dir({"default.yaml": template}),
                        defaultTemplate="default")

    return make


CLUSTER_TEMPLATE = pod_template_yaml("default", {
    "serviceAccountName": "ml-runner",
    "tolerations": [{"key": "platform.acme.io/batch", "operator": "Exists",
                     "effect": "NoSchedule"}],
    "containers": [{"name": "istio-proxy", "image": "istio/proxyv2:1.22"},
                   {"name": "primary", "env": [{"name": "PLATFORM", "value": "acme"}]}],
}, labels={"team": "ml"})


# ------------------------------------------------------------------------ the RayJob shape


def test_rayjob_shape(render_rayjob: Render) -> None:
    config = two_groups(runtime_env={"pip": ["torch"], "env_vars": {"A": "it's"}},
                        ray_start_params={"metrics-export-port": 8080},
                        enable_autoscaling=True, ttl_seconds_after_finished=300,
                        ray_version="2.41.0")
    job = render_rayjob(make_task(config), namespace="ml-team")
    assert job["metadata"]["name"] == "train"
    assert job["metadata"]["namespace"] == "ml-team"
    assert job["metadata"]["labels"]["podtemplate.io/task-type"] == "ray"
    spec = job["spec"]
    assert yaml.safe_load(spec["runtimeEnvYAML"]) == {"pip": ["torch"], "env_vars": {"A": "it's"}}
    assert spec["shutdownAfterJobFinishes"] is True
    assert spec["ttlSecondsAfterFinished"] == 300
    assert spec["submissionMode"] == "K8sJobMode"
    cluster = spec["rayClusterSpec"]
    assert cluster["rayVersion"] == "2.41.0"
    assert cluster["enableInTreeAutoscaling"] is True
    groups = cluster["workerGroupSpecs"]
    assert [(g["groupName"], g["replicas"], g["minReplicas"], g["maxReplicas"]) for g in groups
            ] == [("cpu", 2, 1, 4), ("gpu", 1, 1, 1)]
    assert all(g["rayStartParams"] == {"metrics-export-port": "8080"} for g in groups)
    assert cluster["headGroupSpec"]["rayStartParams"] == {
        "dashboard-host": "0.0.0.0", "metrics-export-port": "8080"}


def test_defaults_leave_optional_fields_out(render_rayjob: Render) -> None:
    spec = render_rayjob(make_task(Ray()))["spec"]
    assert "runtimeEnvYAML" not in spec and "ttlSecondsAfterFinished" not in spec
    assert "rayVersion" not in spec["rayClusterSpec"]
    assert spec["rayClusterSpec"]["workerGroupSpecs"] == []
    assert spec["rayClusterSpec"]["enableInTreeAutoscaling"] is False


def test_an_empty_autoscaled_group_is_valid(render_rayjob: Render) -> None:
    config = Ray(worker_groups=[WorkerGroup(name="burst", replicas=0, max_replicas=10)],
                 enable_autoscaling=True)
    (group,) = render_rayjob(make_task(config))["spec"]["rayClusterSpec"]["workerGroupSpecs"]
    assert (group["replicas"], group["minReplicas"], group["maxReplicas"]) == (0, 0, 10)


def test_own_ray_start_params_win(render_rayjob: Render) -> None:
    config = Ray(head=Head(ray_start_params={"num-cpus": 0, "dashboard-host": "127.0.0.1"}),
                 worker_groups=[WorkerGroup(name="cpu", ray_start_params={"num-cpus": "4"})],
                 ray_start_params={"num-cpus": "2", "block": True})
    cluster = render_rayjob(make_task(config))["spec"]["rayClusterSpec"]
    assert cluster["headGroupSpec"]["rayStartParams"] == {
        "dashboard-host": "127.0.0.1", "num-cpus": "0", "block": "true"}
    assert cluster["workerGroupSpecs"][0]["rayStartParams"] == {"num-cpus": "4", "block": "true"}


def test_entrypoint_runs_the_function_through_the_executor(render_rayjob: Render) -> None:
    job = render_rayjob(make_task(), inputs={"epochs": "3"})
    words = shlex.split(job["spec"]["entrypoint"])
    assert words[:3] == ["python", "-m", "podtemplate.executor"]
    assert words[words.index("--task") + 1] == "train"
    assert words[words.index("--inputs") + 1] == '{"epochs": 3}'


def test_submitter_submits_the_entrypoint(render_rayjob: Render) -> None:
    config = two_groups(runtime_env={"env_vars": {"QUOTE": "it's"}})
    job = render_rayjob(make_task(config), inputs={"epochs": "2"})
    submitter = job["spec"]["submitterPodTemplate"]["spec"]
    ray = submitter["containers"][0]
    assert ray["name"] == "ray-job-submitter"
    assert ray["command"] == ["bash", "-ce"]
    script = ray["args"][0]
    words = shlex.split(script.replace(";", " ; "))
    submit = words.index("submit")
    assert words[submit - 2:submit] == ["ray", "job"]
    tail = words[words.index("--", submit):]
    assert " ".join(tail[1:tail.index(";")]) == " ".join(shlex.split(job["spec"]["entrypoint"]))
    runtime_env = words[words.index("--runtime-env-json") + 1]
    assert yaml.safe_load(runtime_env) == {"env_vars": {"QUOTE": "it's"}}
    assert "$RAY_DASHBOARD_ADDRESS" in script and "$RAY_JOB_SUBMISSION_ID" in script
    assert submitter["restartPolicy"] == "Never"


# ------------------------------------------------------------------------ roles and layers


def test_ray_containers_are_named_first_and_run_ray_start(
        render_rayjob: Render, pods_of: PodsOf) -> None:
    template = PodTemplate({"containers": [
        {"name": "log-shipper", "image": "fluent/fluent-bit:3.0"},
        {"name": "primary", "command": ["sleep"], "args": ["1"]},
    ]})
    pods = pods_of(render_rayjob(make_task(pod_template=template)))
    expected = {"head": "ray-head", "worker:cpu": "ray-worker", "worker:gpu": "ray-worker",
                "submitter": "ray-job-submitter"}
    for role, name in expected.items():
        containers = pods[role]["spec"]["containers"]
        assert containers[0]["name"] == name, role
        assert pods[role]["metadata"]["annotations"][
            "kubectl.kubernetes.io/default-container"] == name
    for role in ("head", "worker:cpu", "worker:gpu"):
        names = [c["name"] for c in pods[role]["spec"]["containers"]]
        assert names == [expected[role], "log-shipper"], role
        ray = pods[role]["spec"]["containers"][0]
        assert "command" not in ray and "args" not in ray, role  # KubeRay writes ray start


def test_cluster_sidecar_listed_first_keeps_ray_container_at_index_0(
        render_rayjob: Render, pods_of: PodsOf, platform_with: Callable[[str], Platform]) -> None:
    pods = pods_of(render_rayjob(make_task(), platform=platform_with(CLUSTER_TEMPLATE)))
    for role, pod in pods.items():
        names = [c["name"] for c in pod["spec"]["containers"]]
        assert names[0].startswith("ray-") and names[1:] == ["istio-proxy"], role


def test_head_ports(render_rayjob: Render, pods_of: PodsOf) -> None:
    template = PodTemplate({"containers": [
        {"name": "primary", "ports": [{"containerPort": 8265, "name": "web"},
                                      {"containerPort": 9090, "name": "prom"}]}]})
    pods = pods_of(render_rayjob(make_task(pod_template=template)))
    ports = {p["containerPort"]: p["name"] for p in pods["head"]["spec"]["containers"][0]["ports"]}
    assert ports == {6379: "gcs-server", 10001: "client", 8265: "dashboard", 9090: "prom"}
    worker_ports = pods["worker:cpu"]["spec"]["containers"][0]["ports"]
    assert worker_ports == [{"containerPort": 8265, "name": "web"},
                            {"containerPort": 9090, "name": "prom"}]


def test_gpu_group_selector_and_toleration_reach_only_that_group(
        render_rayjob: Render, pods_of: PodsOf) -> None:
    base = PodTemplate({"tolerations": [{"key": "team", "operator": "Exists"}]})
    pods = pods_of(render_rayjob(make_task(pod_template=base)))
    gpu = pods["worker:gpu"]["spec"]
    assert gpu["nodeSelector"] == GPU_SELECTOR
    assert GPU_TOLERATION in gpu["tolerations"]
    assert {"key": "team", "operator": "Exists"} in gpu["tolerations"]
    for role in ("head", "worker:cpu", "submitter"):
        spec = pods[role]["spec"]
        assert "nodeSelector" not in spec, role
        assert spec["tolerations"] == [{"key": "team", "operator": "Exists"}], role


def test_submitter_has_no_gpu_and_no_task_resources(render_rayjob: Render,
                                                    pods_of: PodsOf) -> None:
    gpu_task = make_task(Ray(worker_groups=[WorkerGroup(name="cpu")]),
                         requests=Resources(cpu="8", memory="32Gi", gpu=1),
                         limits=Resources(memory="32Gi"))
    pods = pods_of(render_rayjob(gpu_task))
    for role in ("head", "worker:cpu"):
        resources = pods[role]["spec"]["containers"][0]["resources"]
        assert resources["requests"]["nvidia.com/gpu"] == "1", role
        assert resources["limits"]["nvidia.com/gpu"] == "1", role
    submitter = pods["submitter"]["spec"]["containers"][0]
    assert "resources" not in submitter
    text = yaml.safe_dump(pods["submitter"])
    assert "nvidia.com/gpu" not in text and "32Gi" not in text


def test_submitter_gets_only_platform_default_resources(render_rayjob: Render,
                                                        pods_of: PodsOf) -> None:
    platform = Platform(defaultImage="python:3.11",
                        defaultResources={"requests": {"cpu": "500m", "memory": "1Gi"}})
    job = render_rayjob(make_task(requests=Resources(cpu="16", gpu=2)), platform=platform)
    submitter = pods_of(job)["submitter"]["spec"]["containers"][0]
    assert submitter["resources"] == {"requests": {"cpu": "500m", "memory": "1Gi"},
                                      "limits": {"cpu": "500m", "memory": "1Gi"}}  # an unset limit is the request, as on Flyte


def test_template_service_account_reaches_every_role(
        render_rayjob: Render, pods_of: PodsOf, platform_with: Callable[[str], Platform]) -> None:
    from_cluster = pods_of(render_rayjob(make_task(), platform=platform_with(CLUSTER_TEMPLATE)))
    from_task = pods_of(render_rayjob(make_task(
        pod_template=PodTemplate({"serviceAccountName": "ray-jobs"}))))
    for role in ROLES:
        assert from_cluster[role]["spec"]["serviceAccountName"] == "ml-runner", role
        assert from_task[role]["spec"]["serviceAccountName"] == "ray-jobs", role


def test_role_service_account_wins_for_its_role_only(render_rayjob: Render,
                                                     pods_of: PodsOf) -> None:
    config = Ray(head=Head(pod_template=PodTemplate({"serviceAccountName": "ray-head"})),
                 worker_groups=[WorkerGroup(name="cpu")])
    pods = pods_of(render_rayjob(make_task(
        config, pod_template=PodTemplate({"serviceAccountName": "ray-jobs"}))))
    assert pods["head"]["spec"]["serviceAccountName"] == "ray-head"
    assert pods["worker:cpu"]["spec"]["serviceAccountName"] == "ray-jobs"
    assert pods["submitter"]["spec"]["serviceAccountName"] == "ray-jobs"


SCHEDULING_TEMPLATE = PodTemplate(
    {
        "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "ml",
                         "effect": "NoSchedule"}],
        "nodeSelector": {"pool": "ml"},
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
                {"key": "zone", "operator": "In", "values": ["a"]}]}]}}},
        "imagePullSecrets": [{"name": "registry"}],
        "serviceAccountName": "ray-jobs",
        "priorityClassName": "batch",
        "volumes": [{"name": "data", "emptyDir": {}}],
        "hostIPC": True,
        "containers": [
            {"name": "primary", "env": [{"name": "DATA", "value": "/data"}],
             "volumeMounts": [{"name": "data", "mountPath": "/data"}]},
            {"name": "sidecar", "image": "busybox:1.36"},
        ],
    },
    labels={"team": "ml"},
    annotations={"owner": "ml-platform"},
)


def test_submitter_takes_the_task_templates_scheduling_fields_only(
        render_rayjob: Render, pods_of: PodsOf) -> None:
    pods = pods_of(render_rayjob(make_task(pod_template=SCHEDULING_TEMPLATE)))
    head, submitter = pods["head"], pods["submitter"]
    for field in ("tolerations", "nodeSelector", "affinity", "imagePullSecrets",
                  "serviceAccountName", "priorityClassName"):
        assert submitter["spec"][field] == head["spec"][field] == SCHEDULING_TEMPLATE.pod_spec[
            field], field
    assert submitter["metadata"]["labels"]["team"] == "ml"
    assert submitter["metadata"]["annotations"]["owner"] == "ml-platform"
    for field in ("volumes", "hostIPC"):
        assert field in head["spec"] and field not in submitter["spec"], field
    assert [c["name"] for c in submitter["spec"]["containers"]] == ["ray-job-submitter"]
    assert "env" not in submitter["spec"]["containers"][0]


def test_submitter_takes_the_whole_cluster_template_and_its_own_role(
        render_rayjob: Render, pods_of: PodsOf, platform_with: Callable[[str], Platform]) -> None:
    role = Role(pod_template=PodTemplate({"containers": [{"name": "primary", "resources": {
        "requests": {"cpu": "100m"}}}]}, annotations={"sidecar.istio.io/inject": "false"}))
    job = render_rayjob(make_task(two_groups(submitter=role)),
                        platform=platform_with(CLUSTER_TEMPLATE))
    pods = pods_of(job)
    submitter = pods["submitter"]
    assert submitter["metadata"]["annotations"]["sidecar.istio.io/inject"] == "false"
    assert submitter["metadata"]["labels"]["team"] == "ml"
    ray = container(submitter, "ray-job-submitter")
    assert ray["env"] == [{"name": "PLATFORM", "value": "acme"}]
    assert ray["resources"] == {"requests": {"cpu": "100m"}, "limits": {"cpu": "100m"}}  # an unset limit is the request, as on Flyte
    for role_name in ("head", "worker:cpu", "worker:gpu"):
        assert "sidecar.istio.io/inject" not in pods[role_name]["metadata"]["annotations"]


@pytest.mark.parametrize(("config", "task_image", "expected"), [
    (Ray(), IMAGE, IMAGE),
    (Ray(head=Head(image="ray:head")), IMAGE, "ray:head"),
    (Ray(head=Head(image="ray:head"), submitter=Role(image="ray:cli")), IMAGE, "ray:cli"),
    (Ray(submitter=Role(pod_template=PodTemplate(
        {"containers": [{"name": "primary", "image": "ray:tmpl"}]}))), IMAGE, "ray:tmpl"),
    (Ray(), None, "python:3.11"),  # the platform's default image
])
def test_submitter_image(render_rayjob: Render, pods_of: PodsOf, config: Ray,
                         task_image: str | None, expected: str) -> None:
    pods = pods_of(render_rayjob(make_task(config, image=task_image)))
    assert pods["submitter"]["spec"]["containers"][0]["image"] == expected


def test_role_settings_apply_to_their_role(render_rayjob: Render, pods_of: PodsOf) -> None:
    config = Ray(head=Head(requests=Resources(cpu="2"), env={"ROLE": "head"}),
                 worker_groups=[WorkerGroup(name="cpu", image="ray:cpu", env={"ROLE": "cpu"})])
    pods = pods_of(render_rayjob(make_task(config, env={"SHARED": "1"})))
    head = pods["head"]["spec"]["containers"][0]
    worker = pods["worker:cpu"]["spec"]["containers"][0]
    assert head["image"] == IMAGE and worker["image"] == "ray:cpu"
    assert {e["name"]: e["value"] for e in head["env"]} == {"SHARED": "1", "ROLE": "head"}
    assert {e["name"]: e["value"] for e in worker["env"]} == {"SHARED": "1", "ROLE": "cpu"}
    assert head["resources"]["requests"]["cpu"] == "2"


def test_interruptible_roles(render_rayjob: Render, pods_of: PodsOf) -> None:
    spot = {"key": "spot", "operator": "Exists", "effect": "NoSchedule"}
    platform = Platform(defaultImage="python:3.11", interruptible={"tolerations": [spot]})
    config = Ray(head=Head(interruptible=False), worker_groups=[WorkerGroup(name="cpu")])
    pods = pods_of(render_rayjob(make_task(config, interruptible=True), platform=platform))
    assert "tolerations" not in pods["head"]["spec"]
    assert pods["worker:cpu"]["spec"]["tolerations"] == [spot]
    assert pods["submitter"]["spec"]["tolerations"] == [spot]


def test_run_override_reaches_every_role(render_rayjob: Render, pods_of: PodsOf) -> None:
    override = PodTemplate({"nodeSelector": {"pool": "override"},
                            "containers": [{"name": "primary", "env": [
                                {"name": "RUN", "value": "1"}]}]})
    pods = pods_of(render_rayjob(make_task().with_overrides(pod_template=override)))
    for role in ROLES:
        assert pods[role]["spec"]["nodeSelector"]["pool"] == "override", role
    for role in ("head", "worker:cpu", "worker:gpu"):
        assert {"name": "RUN", "value": "1"} in pods[role]["spec"]["containers"][0]["env"]


def test_system_labels_on_every_pod(render_rayjob: Render, pods_of: PodsOf) -> None:
    # A colon is not allowed in a label value, and KubeRay creates each worker pod with
    # its template's labels (kuberay v1.7.0, ray-operator/controllers/ray/common/pod.go,
    # DefaultWorkerPodTemplate: mergeLabels(workerSpec.Template.ObjectMeta.Labels, ...)),
    # so `worker:cpu` would make the API server refuse every worker pod.
    expected = {"head": "head", "submitter": "submitter", "worker:cpu": "worker-cpu",
                "worker:gpu": "worker-gpu"}
    for role, pod in pods_of(render_rayjob(make_task())).items():
        labels = pod["metadata"]["labels"]
        assert labels["podtemplate.io/role"] == expected[role]
        assert labels["podtemplate.io/task"] == "train"
        assert labels["podtemplate.io/task-type"] == "ray"


def test_a_long_worker_group_name_is_cut_to_fit_the_role_label() -> None:
    assert WorkerGroup(name="g" * 56).group_name == "g" * 56
    long = WorkerGroup(name="g" * 57).group_name
    assert len(long) == 56 and long != "g" * 56  # cut, with a hash of the name


def test_render_is_deterministic_and_leaves_inputs_alone(render_rayjob: Render) -> None:
    template = copy.deepcopy(SCHEDULING_TEMPLATE)
    config = two_groups(runtime_env={"pip": ["x"]})
    before = (copy.deepcopy(template.pod_spec), config.model_dump())
    first = render_rayjob(make_task(config, pod_template=template))
    second = render_rayjob(make_task(config, pod_template=template))
    assert first == second
    assert (template.pod_spec, config.model_dump()) == before
    # Read-only manifests may share what no layer changed (copy-on-write); copy=True
    # gives each pod its own.
    copied = render_rayjob(make_task(config, pod_template=template), copy=True)
    assert copied == first
    cluster = copied["spec"]["rayClusterSpec"]
    head, worker = cluster["headGroupSpec"]["template"], cluster["workerGroupSpecs"][0]["template"]
    assert head["spec"]["tolerations"] is not worker["spec"]["tolerations"]


def test_the_crd_check_can_fail(render_rayjob: Render,
                                validate_rayjob: Callable[[dict[str, Any]], None]) -> None:
    job = render_rayjob(make_task())
    for breaks in (lambda j: j["spec"].update(shutdownAfterJobFinishes="yes"),
                   lambda j: j["spec"]["rayClusterSpec"]["workerGroupSpecs"][0].pop("maxReplicas"),
                   lambda j: j["spec"]["rayClusterSpec"].update(enableAutoscaling=True),
                   lambda j: j["spec"].update(ttlSecondsAfterFinished="60")):
        broken = copy.deepcopy(job)
        breaks(broken)
        with pytest.raises(AssertionError):
            validate_rayjob(broken)


# ------------------------------------------------------------------------ bad input at render


def test_a_command_is_rejected(render_rayjob: Render) -> None:
    with pytest.raises(DefinitionError, match="command is not used by Ray tasks"):
        render_rayjob(make_task(command=["python", "train.py"]))


# KubeRay v1.7.0, ray-operator/controllers/ray/utils/validation.go (ValidateRayJobMetadata):
# len(name) <= MaxRayJobNameLength (47) and validation.IsDNS1035Label(name). Checked when
# the task is defined, not when the cluster refuses it.
def test_a_name_kuberay_refuses_is_rejected_at_definition(render_rayjob: Render) -> None:
    with pytest.raises(DefinitionError, match="is not a DNS-1035 label") as info:
        make_task(name="2024-backfill")
    assert info.value.task == "2024-backfill" and info.value.field == "name"
    assert "KubeRay's RayJob name rule" in str(info.value)
    render_rayjob(make_task(name="backfill-2024"))


def test_a_long_name_is_cut_to_kuberays_47_characters(render_rayjob: Render) -> None:
    # The object name rule cuts to the operator's limit (Ray.object_name_limit), not to
    # 63: a long task name renders instead of being refused.
    assert render_rayjob(make_task(name="a" * 47))["metadata"]["name"] == "a" * 47
    long_name = "nightly_feature_backfill_for_the_recommendation_model"
    rayjob = render_rayjob(make_task(name=long_name))
    name = rayjob["metadata"]["name"]
    assert len(name) == 47 and name.startswith("nightly-feature-backfill-")
    assert name == render_rayjob(make_task(name=long_name))["metadata"]["name"]  # stable
    assert name != render_rayjob(make_task(name=long_name + "_v2"))["metadata"]["name"]
    assert rayjob["metadata"]["annotations"]["podtemplate.io/task-name"] == long_name

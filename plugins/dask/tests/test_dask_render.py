"""A Dask task renders to one DaskJob whose three role pods each get every layer."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from podtemplate import DefinitionError, PodTemplate, Resources, Role, get_path, task
from podtemplate.testing import container, env_of
from podtemplate_dask import ROLE_PATHS, Dask, scheduler_service, worker_flags
from podtemplate_dask.config import RUNNER_RESTART_POLICY

IMAGE = "ghcr.io/dask/dask:2024.12.1"
Render = Callable[..., dict[str, Any]]


def pods(job: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {role: get_path(job, path) for role, path in ROLE_PATHS.items()}


def primary(pod: dict[str, Any]) -> dict[str, Any]:
    return pod["spec"]["containers"][0]  # type: ignore[no-any-return]


@task(image=IMAGE, task_config=Dask(workers=Role(replicas=3)))
def crunch(n: int = 2) -> int:
    return n


def test_daskjob_shape(render_dask: Render) -> None:
    job = render_dask(crunch)
    assert job["metadata"]["name"] == "crunch"
    assert job["metadata"]["namespace"] == "ml-team"
    roles = pods(job)
    assert [primary(p)["name"] for p in roles.values()] == ["job", "scheduler", "worker"]
    assert job["spec"]["cluster"]["spec"]["worker"]["replicas"] == 3
    assert "idleTimeout" not in job["spec"]["cluster"]["spec"]
    for role, pod in roles.items():
        assert pod["metadata"]["labels"]["podtemplate.io/role"] == role
        assert pod["metadata"]["labels"]["podtemplate.io/task-type"] == "dask"
        assert primary(pod)["image"] == IMAGE


def test_job_runner_runs_the_task_function(render_dask: Render) -> None:
    job = render_dask(crunch, inputs={"n": "5"})
    runner = primary(pods(job)["job-runner"])
    assert runner["command"] == ["python", "-m", "podtemplate.executor"]
    assert runner["args"][runner["args"].index("--task") + 1] == "crunch"
    assert json.loads(runner["args"][runner["args"].index("--inputs") + 1]) == {"n": 5}
    assert pods(job)["job-runner"]["spec"]["restartPolicy"] == "Never"


def test_scheduler_entrypoint_ports_and_service(render_dask: Render) -> None:
    job = render_dask(crunch)
    scheduler = job["spec"]["cluster"]["spec"]["scheduler"]
    main = primary(scheduler)
    assert main["command"] == ["dask", "scheduler"]
    assert {(p["name"], p["containerPort"]) for p in main["ports"]} == {
        ("tcp-comm", 8786), ("http-dashboard", 8787)}
    assert scheduler["service"] == scheduler_service("crunch")
    assert scheduler["service"]["selector"]["dask.org/cluster-name"] == "crunch"
    assert [p["targetPort"] for p in scheduler["service"]["ports"]] == [
        "tcp-comm", "http-dashboard"]
    assert scheduler["spec"]["restartPolicy"] == "Always"


def test_worker_entrypoint_names_itself(render_dask: Render) -> None:
    main = primary(pods(render_dask(crunch))["worker"])
    assert main["command"] == ["dask", "worker"]
    assert main["args"][:2] == ["--name", "$(DASK_WORKER_NAME)"]


# dask-kubernetes 2025.4.3, dask_kubernetes/operator/controller/controller.py:
# daskjob_create_components builds the DaskCluster with build_cluster_spec, which copies
# only spec.cluster.spec.worker and .scheduler; daskcluster_autoshutdown reads the
# DaskCluster's idleTimeout (dask-kubernetes issue #882). An idle_timeout would be ignored.
@pytest.mark.parametrize("value", [0, 300])
def test_idle_timeout_is_refused_with_the_reason(value: int) -> None:
    with pytest.raises(DefinitionError, match="issue #882") as error:
        Dask(idle_timeout=value)
    assert error.value.field == "task_config.idle_timeout"
    assert "activeDeadlineSeconds" in (error.value.fix or "")


def test_no_idle_timeout_is_rendered(render_dask: Render) -> None:
    assert "idleTimeout" not in render_dask(crunch)["spec"]["cluster"]["spec"]


def test_default_is_one_worker(render_dask: Render) -> None:
    @task(image=IMAGE, task_config=Dask())
    def bare() -> None: ...

    assert render_dask(bare)["spec"]["cluster"]["spec"]["worker"]["replicas"] == 1


# --- templates reach every role ---------------------------------------------------------

def test_named_template_priority_class_reaches_all_three_roles(
        render_dask: Render, templates_dir: Callable[[dict[str, str]], Path]) -> None:
    folder = templates_dir({"batch.yaml": """
        apiVersion: v1
        kind: PodTemplate
        metadata: {name: batch-high}
        template:
          metadata:
            labels: {cost-center: ml}
          spec:
            priorityClassName: batch-high
            containers:
              - name: primary
                env: [{name: FROM_TEMPLATE, value: "1"}]
        """})

    @task(image=IMAGE, pod_template_name="batch-high", task_config=Dask())
    def named() -> None: ...

    job = render_dask(named, templates=folder)
    for role, pod in pods(job).items():
        assert pod["spec"]["priorityClassName"] == "batch-high", role
        assert pod["metadata"]["labels"]["cost-center"] == "ml", role
        assert env_of(primary(pod))["FROM_TEMPLATE"] == "1", role


def test_worker_only_toleration_reaches_only_workers(render_dask: Render) -> None:
    spot = {"key": "spot", "operator": "Exists", "effect": "NoSchedule"}
    base = {"key": "team", "operator": "Equal", "value": "ml", "effect": "NoSchedule"}

    @task(image=IMAGE, pod_template=PodTemplate({"tolerations": [base]}), task_config=Dask(
        workers=Role(replicas=2, pod_template=PodTemplate({"tolerations": [spot]}))))
    def spotty() -> None: ...

    roles = pods(render_dask(spotty))
    assert roles["worker"]["spec"]["tolerations"] == [base, spot]
    assert roles["scheduler"]["spec"]["tolerations"] == [base]
    assert roles["job-runner"]["spec"]["tolerations"] == [base]


def test_template_sidecar_and_init_container_survive_on_every_role(render_dask: Render) -> None:
    sidecar = {"name": "log-shipper", "image": "fluent/fluent-bit:3.0",
               "volumeMounts": [{"name": "logs", "mountPath": "/logs"}]}
    init = {"name": "fetch", "image": "busybox:1.36", "command": ["true"]}
    template = PodTemplate({
        "volumes": [{"name": "logs", "emptyDir": {}}],
        "initContainers": [init],
        "containers": [{"name": "primary", "volumeMounts": [{"name": "logs",
                                                              "mountPath": "/logs"}]},
                       sidecar],
    })

    @task(image=IMAGE, pod_template=template, task_config=Dask())
    def logged() -> None: ...

    for role, pod in pods(render_dask(logged)).items():
        names = [c["name"] for c in pod["spec"]["containers"]]
        assert names[1:] == ["log-shipper"], role
        assert container(pod, "log-shipper") == sidecar, role
        assert pod["spec"]["initContainers"] == [init], role
        assert primary(pod)["volumeMounts"] == [{"name": "logs", "mountPath": "/logs"}], role


def test_role_template_primary_alias_and_own_name_both_work(render_dask: Render) -> None:
    @task(image=IMAGE, task_config=Dask(
        scheduler=Role(pod_template=PodTemplate(
            {"containers": [{"name": "scheduler", "workingDir": "/sched"}]},
            primary_container_name="scheduler")),
        workers=Role(pod_template=PodTemplate({"containers": [{"name": "primary",
                                                               "workingDir": "/work"}]}))))
    def aliased() -> None: ...

    roles = pods(render_dask(aliased))
    assert primary(roles["scheduler"])["workingDir"] == "/sched"
    assert primary(roles["worker"])["workingDir"] == "/work"
    assert "workingDir" not in primary(roles["job-runner"])


def test_role_labels_go_to_that_role_only(render_dask: Render) -> None:
    @task(image=IMAGE, pod_template=PodTemplate({}, labels={"all": "yes"}), task_config=Dask(
        scheduler=Role(pod_template=PodTemplate({}, annotations={"sched": "yes"}))))
    def labelled() -> None: ...

    roles = pods(render_dask(labelled))
    assert all(p["metadata"]["labels"]["all"] == "yes" for p in roles.values())
    assert roles["scheduler"]["metadata"]["annotations"]["sched"] == "yes"
    assert "sched" not in roles["worker"]["metadata"]["annotations"]


def test_job_runner_role_settings(render_dask: Render) -> None:
    @task(image=IMAGE, task_config=Dask(job_runner=Role(
        image="ghcr.io/acme/driver:1", env={"ROLE": "driver"},
        requests=Resources(cpu="250m"))))
    def driven() -> None: ...

    roles = pods(render_dask(driven))
    runner = primary(roles["job-runner"])
    assert runner["image"] == "ghcr.io/acme/driver:1"
    assert env_of(runner) == {"ROLE": "driver"}
    assert primary(roles["worker"])["image"] == IMAGE


# Flyte's dask plugin runs the job runner with restartPolicy Never (flyteplugins
# k8s/dask/dask.go createJobSpec); a template may ask for the DaskJob CRD's own default,
# OnFailure (dask_kubernetes/operator/customresources/daskjob.yaml, 2025.4.3), which
# retries the runner while the scheduler comes up. controller.py
# (handle_runner_status_change_succeeded / _failed) deletes the cluster only when the
# runner pod reaches Succeeded or Failed, so Always is refused.
def test_job_runner_restart_policy_is_never_as_on_flyte_or_the_templates(
        render_dask: Render) -> None:
    @task(image=IMAGE, pod_template=PodTemplate({"restartPolicy": "OnFailure"}),
          task_config=Dask())
    def retried() -> None: ...

    roles = pods(render_dask(retried))
    assert roles["job-runner"]["spec"]["restartPolicy"] == "OnFailure"
    assert roles["scheduler"]["spec"]["restartPolicy"] == "Always"
    assert roles["worker"]["spec"]["restartPolicy"] == "Always"
    assert pods(render_dask(crunch))["job-runner"]["spec"]["restartPolicy"] == "Never"


def test_the_default_is_flytes_not_the_shipped_daskjob_crds() -> None:
    # The DaskJob CRD shipped with this plugin (dask-kubernetes 2025.4.3,
    # crds/kubernetes.dask.org_daskjobs.json) defaults spec.job.spec.restartPolicy to
    # OnFailure; the rendered runner writes out Flyte's Never instead.
    text = resources.files("podtemplate_dask").joinpath(
        "crds/kubernetes.dask.org_daskjobs.json").read_text("utf-8")
    schema = json.loads(text)["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    job = schema["properties"]["spec"]["properties"]["job"]["properties"]["spec"]
    assert job["properties"]["restartPolicy"]["default"] == "OnFailure"
    assert RUNNER_RESTART_POLICY == "Never"


def test_job_runner_restart_policy_always_is_refused(render_dask: Render) -> None:
    always = PodTemplate({"restartPolicy": "Always"})

    @task(image=IMAGE, pod_template=always, task_config=Dask())
    def forever() -> None: ...

    with pytest.raises(DefinitionError, match="never reach Succeeded") as error:
        render_dask(forever)
    assert (error.value.task, error.value.role, error.value.field) == (
        "forever", "job-runner", "spec.restartPolicy")
    with pytest.raises(DefinitionError, match="never reach Succeeded") as error:
        Dask(job_runner=Role(pod_template=always))
    assert error.value.field == "task_config.job_runner.pod_template.restartPolicy"


# --- resources ---------------------------------------------------------------------------

def test_role_resources_merge_key_by_key_over_the_task(render_dask: Render) -> None:
    @task(image=IMAGE, requests=Resources(cpu="1", memory="2Gi"),
          limits=Resources(memory="4Gi", ephemeral_storage="10Gi"),
          task_config=Dask(workers=Role(requests=Resources(cpu="4"),
                                        limits=Resources(memory="16Gi"))))
    def sized() -> None: ...

    roles = pods(render_dask(sized))
    # as on Flyte, an unset request is the limit and an unset limit the request
    assert primary(roles["worker"])["resources"] == {
        "requests": {"cpu": "4", "memory": "2Gi", "ephemeral-storage": "10Gi"},
        "limits": {"memory": "16Gi", "ephemeral-storage": "10Gi", "cpu": "4"}}
    assert primary(roles["scheduler"])["resources"] == {
        "requests": {"cpu": "1", "memory": "2Gi", "ephemeral-storage": "10Gi"},
        "limits": {"memory": "4Gi", "ephemeral-storage": "10Gi", "cpu": "1"}}


def test_role_resources_merge_over_the_templates(render_dask: Render) -> None:
    template = PodTemplate({"containers": [{"name": "primary", "resources": {
        "requests": {"cpu": "2", "example.com/fpga": "1"},
        "limits": {"example.com/fpga": "1"}}}]})

    @task(image=IMAGE, pod_template=template,
          task_config=Dask(workers=Role(requests=Resources(memory="8Gi"))))
    def fpga() -> None: ...

    worker = primary(pods(render_dask(fpga))["worker"])
    assert worker["resources"]["requests"] == {"cpu": "2", "example.com/fpga": "1",
                                               "memory": "8Gi"}
    assert worker["resources"]["limits"] == {"example.com/fpga": "1", "cpu": "2",
                                             "memory": "8Gi"}  # an unset limit is the request, as on Flyte


@pytest.mark.parametrize(("resources", "flags"), [
    ({}, []),
    ({"limits": {"cpu": "2", "memory": "8Gi"}}, ["--nthreads", "2", "--memory-limit",
                                                 "8589934592"]),
    ({"limits": {"cpu": "2500m"}}, ["--nthreads", "3"]),
    ({"limits": {"cpu": "100m"}}, ["--nthreads", "1"]),
    ({"requests": {"cpu": "4", "memory": "1Gi"}}, ["--nthreads", "4"]),
    ({"requests": {"cpu": "4"}, "limits": {"cpu": "2", "memory": "1G"}},
     ["--nthreads", "2", "--memory-limit", "1000000000"]),
])
def test_worker_flags(resources: dict[str, dict[str, str]], flags: list[str]) -> None:
    assert worker_flags(resources) == flags


def test_worker_flags_follow_the_resolved_limits(
        render_dask: Render, templates_dir: Callable[[dict[str, str]], Path]) -> None:
    folder = templates_dir({"big.yaml": """
        apiVersion: v1
        kind: PodTemplate
        metadata: {name: big}
        template:
          spec:
            containers:
              - name: primary
                resources: {limits: {cpu: "8", memory: 32Gi}}
        """})

    @task(image=IMAGE, pod_template_name="big",
          task_config=Dask(workers=Role(limits=Resources(cpu="6"))))
    def big() -> None: ...

    worker = primary(pods(render_dask(big, templates=folder))["worker"])
    assert worker["args"] == ["--name", "$(DASK_WORKER_NAME)", "--nthreads", "6",
                              "--memory-limit", str(32 * 2**30)]
    assert worker["resources"]["limits"] == {"cpu": "6", "memory": "32Gi"}


def test_worker_flags_use_the_limits_completed_from_platform_defaults(render_dask: Render) -> None:
    from podtemplate import Platform

    # As on Flyte: the default request, and the limit is the request (defaultResources.
    # limits only caps).
    platform = Platform(defaultImage=IMAGE,
                        defaultResources={"requests": {"cpu": "500m", "memory": "1Gi"},
                                          "limits": {"memory": "64Gi"}})
    worker = primary(pods(render_dask(crunch, platform=platform))["worker"])
    assert worker["args"][2:] == ["--nthreads", "1", "--memory-limit", str(2**30)]


# --- interruptible -----------------------------------------------------------------------

def test_interruptible_workers_and_on_demand_scheduler(render_dask: Render) -> None:
    from podtemplate import Platform

    spot = {"key": "spot", "operator": "Exists", "effect": "NoSchedule"}
    platform = Platform(defaultImage=IMAGE, interruptible={
        "tolerations": [spot], "nodeSelector": {"pool": "spot"}})

    @task(image=IMAGE, task_config=Dask(workers=Role(replicas=4, interruptible=True),
                                        scheduler=Role(interruptible=False)))
    def cheap() -> None: ...

    roles = pods(render_dask(cheap, platform=platform))
    assert roles["worker"]["spec"]["tolerations"] == [spot]
    assert roles["worker"]["spec"]["nodeSelector"] == {"pool": "spot"}
    for role in ("scheduler", "job-runner"):
        assert "tolerations" not in roles[role]["spec"], role
        assert "nodeSelector" not in roles[role]["spec"], role


# --- warnings ----------------------------------------------------------------------------

# dask-kubernetes 2025.4.3, dask_kubernetes/operator/controller/controller.py:
# build_worker_deployment_spec and build_job_pod_spec append DASK_SCHEDULER_ADDRESS /
# DASK_WORKER_NAME to a container only "if ... not in container_env_names": a template's
# value would win. So they are removed from every container, with a warning that says so.
def test_template_setting_operator_env_is_removed_and_warned(plugin_manager: Any,
                                                              platform: Any) -> None:
    from podtemplate import make_context, render_task

    sidecar = PodTemplate({"containers": [{"name": "proxy", "image": "proxy:1", "env": [
        {"name": "DASK_WORKER_NAME", "value": "fixed"}, {"name": "KEEP", "value": "1"}]}]})

    @task(image=IMAGE, env={"DASK_SCHEDULER_ADDRESS": "tcp://elsewhere:8786", "MINE": "1"},
          pod_template=sidecar, task_config=Dask())
    def pointed() -> None: ...

    context = make_context(platform=platform, plugin_manager=plugin_manager)
    (job,) = render_task(pointed, context)
    warned = {(w.role, w.field) for w in context.warnings}
    assert warned == {
        ("job-runner", "spec.containers[job].env[DASK_SCHEDULER_ADDRESS]"),
        ("worker", "spec.containers[worker].env[DASK_SCHEDULER_ADDRESS]"),
        ("worker", "spec.containers[proxy].env[DASK_WORKER_NAME]"),
    }
    assert all("only where a container does not" in w.message for w in context.warnings)
    roles = pods(job)
    owned = {"job-runner": {"DASK_SCHEDULER_ADDRESS"},
             "worker": {"DASK_SCHEDULER_ADDRESS", "DASK_WORKER_NAME"}}
    for role, names_owned in owned.items():
        names = {e["name"] for c in roles[role]["spec"]["containers"] for e in c.get("env", [])}
        assert not names & names_owned, role
        assert {"MINE", "KEEP"} <= names
    scheduler_env = env_of(primary(roles["scheduler"]))  # the operator sets none there
    assert scheduler_env["DASK_SCHEDULER_ADDRESS"] == "tcp://elsewhere:8786"


def test_render_is_deterministic_and_leaves_inputs_alone(render_dask: Render) -> None:
    template = PodTemplate({"tolerations": [{"key": "a", "operator": "Exists"}]})
    before = copy.deepcopy(template.pod_spec)

    @task(image=IMAGE, pod_template=template, task_config=Dask(
        workers=Role(replicas=2, pod_template=PodTemplate({"nodeSelector": {"n": "1"}}))))
    def stable() -> None: ...

    first, second = render_dask(stable), render_dask(stable)
    assert first == second
    assert template.pod_spec == before
    first["spec"]["job"]["spec"]["tolerations"].append({"key": "mutated"})
    assert render_dask(stable) == second


def test_a_volume_whose_only_source_the_crd_prunes_is_refused(plugin_manager: Any,
                                                              platform: Any) -> None:
    # The DaskJob CRD (Kubernetes 1.21) prunes an image volume's source: the pods the
    # operator would create hold a volume with no source, which the API server turns
    # into an empty emptyDir.
    from podtemplate import DefinitionError, render

    template = PodTemplate({"volumes": [{"name": "model", "image": {"reference": "m:1"}}]})

    @task(image=IMAGE, pod_template=template, task_config=Dask())
    def with_model() -> None: ...

    with pytest.raises(DefinitionError) as caught:
        render(with_model, platform=platform, plugin_manager=plugin_manager)
    assert caught.value.field == "spec.volumes[model]"
    assert "prunes the only source" in caught.value.message


def test_an_init_container_left_without_its_sidecar_policy_loses_its_probes(
        render_dask: Render) -> None:
    template = PodTemplate({"initContainers": [{
        "name": "shipper", "image": "fluent-bit:3", "restartPolicy": "Always",
        "livenessProbe": {"exec": {"command": ["true"]}}}]})

    @task(image=IMAGE, pod_template=template, task_config=Dask())
    def shipped() -> None: ...

    for pod in pods(render_dask(shipped)).values():
        (init,) = pod["spec"]["initContainers"]
        assert init == {"name": "shipper", "image": "fluent-bit:3"}

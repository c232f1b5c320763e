"""Rendered SparkApplications: every template field reaches both roles, the fields Spark
sets itself are mapped natively, and each manifest validates against the real CRD."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from podtemplate import DefinitionError, Platform, PodTemplate, Resources, Role, Task, task
from podtemplate.testing import container, env_of
from podtemplate_spark import Spark, SparkApplicationTask, SparkRole
from podtemplate_spark.check import template_problems

ROLES = ("driver", "executor")
NAMES = {"driver": "spark-kubernetes-driver", "executor": "spark-kubernetes-executor"}
Render = Callable[..., tuple[dict[str, Any], Any]]

FULL_TEMPLATE = {
    "serviceAccountName": "spark-runner",
    "imagePullSecrets": [{"name": "registry"}],
    "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}},
                {"name": "shared", "emptyDir": {}}],
    "initContainers": [{"name": "fetch", "image": "busybox:1.36",
                        "volumeMounts": [{"name": "shared", "mountPath": "/shared"}]}],
    "containers": [
        {"name": "primary",
         "envFrom": [{"secretRef": {"name": "s3-credentials"}}],
         "volumeMounts": [{"name": "data", "mountPath": "/data"},
                          {"name": "shared", "mountPath": "/shared"}]},
        {"name": "log-shipper", "image": "fluent/fluent-bit:3.0",
         "volumeMounts": [{"name": "shared", "mountPath": "/shared", "readOnly": True}]},
    ],
}


def jvm_app(**kwargs: Any) -> Task:
    args: dict[str, Any] = {"name": "pi", "image": "apache/spark:3.5.5",
                            "main_application_file": "local:///opt/app.jar",
                            "main_class": "org.example.Pi"}
    return SparkApplicationTask(**{**args, **kwargs})


def spark_container(manifest: dict[str, Any], role: str) -> dict[str, Any]:
    template = manifest["spec"][role]["template"]
    assert template["spec"]["containers"][0]["name"] == NAMES[role]
    return container(template, NAMES[role])


def assert_full_template_reached(manifest: dict[str, Any]) -> None:
    for role in ROLES:
        spec = manifest["spec"][role]["template"]["spec"]
        assert spec["serviceAccountName"] == "spark-runner"
        assert manifest["spec"][role]["serviceAccount"] == "spark-runner"
        assert spec["imagePullSecrets"] == [{"name": "registry"}]
        assert [v["name"] for v in spec["volumes"]] == ["data", "shared"]
        assert [c["name"] for c in spec["initContainers"]] == ["fetch"]
        assert [c["name"] for c in spec["containers"]] == [NAMES[role], "log-shipper"]
        main = spark_container(manifest, role)
        assert main["envFrom"] == [{"secretRef": {"name": "s3-credentials"}}]
        assert {m["mountPath"] for m in main["volumeMounts"]} == {"/data", "/shared"}


def test_inline_template_reaches_both_roles(render_spark: Render) -> None:
    manifest, _ = render_spark(jvm_app(pod_template=PodTemplate(pod_spec=FULL_TEMPLATE)))
    assert_full_template_reached(manifest)


def test_cluster_template_reaches_both_roles(render_spark: Render, tmp_path: Path) -> None:
    import yaml

    document = {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "spark"},
                "template": {"spec": FULL_TEMPLATE}}
    (tmp_path / "spark.yaml").write_text(yaml.safe_dump(document))
    platform = Platform(templates=tmp_path, defaultTemplate="spark")
    manifest, _ = render_spark(jvm_app(), platform=platform)
    assert_full_template_reached(manifest)


def test_function_task_template_reaches_both_roles(render_spark: Render) -> None:
    @task(image="spark-py:3.5", pod_template=PodTemplate(pod_spec=FULL_TEMPLATE),
          task_config=Spark())
    def etl() -> None: ...

    manifest, _ = render_spark(etl)
    assert_full_template_reached(manifest)


def test_driver_only_node_selector_stays_off_the_executors(render_spark: Render) -> None:
    driver = Role(pod_template=PodTemplate(pod_spec={"nodeSelector": {"pool": "on-demand"}}))
    manifest, _ = render_spark(jvm_app(driver=driver, executor=Role(replicas=3)))
    assert manifest["spec"]["driver"]["template"]["spec"]["nodeSelector"] == {
        "pool": "on-demand"}
    assert "nodeSelector" not in manifest["spec"]["executor"]["template"]["spec"]
    assert manifest["spec"]["executor"]["instances"] == 3


def test_interruptible_executors_run_on_spot_and_the_driver_does_not(render_spark: Render
                                                                      ) -> None:
    platform = Platform(defaultImage="x", interruptible={
        "tolerations": [{"key": "spot", "operator": "Exists"}],
        "nodeSelector": {"node-pool": "spot"}})
    manifest, _ = render_spark(jvm_app(executor=Role(interruptible=True)), platform=platform)
    executor = manifest["spec"]["executor"]["template"]["spec"]
    assert executor["nodeSelector"] == {"node-pool": "spot"}
    assert executor["tolerations"] == [{"key": "spot", "operator": "Exists"}]
    assert "nodeSelector" not in manifest["spec"]["driver"]["template"]["spec"]
    assert manifest["spec"]["sparkConf"]["spark.decommission.enabled"] == "true"


def test_gpu_requests_become_the_native_gpu_field(render_spark: Render) -> None:
    manifest, _ = render_spark(jvm_app(executor=Role(requests=Resources(gpu=2))))
    assert manifest["spec"]["executor"]["gpu"] == {"name": "nvidia.com/gpu", "quantity": 2}
    assert "gpu" not in manifest["spec"]["driver"]
    limits = spark_container(manifest, "executor")["resources"]["limits"]
    assert limits["nvidia.com/gpu"] == "2"


def test_gpu_uses_the_platform_resource_name(render_spark: Render) -> None:
    platform = Platform(defaultImage="x", gpuResourceName="amd.com/gpu")
    manifest, _ = render_spark(jvm_app(requests=Resources(gpu=1)), platform=platform)
    for role in ROLES:
        assert manifest["spec"][role]["gpu"] == {"name": "amd.com/gpu", "quantity": 1}


def test_cpu_and_memory_are_mapped_natively(render_spark: Render) -> None:
    executor = SparkRole(requests=Resources(cpu="1500m", memory="6Gi"),
                         limits=Resources(cpu="3", memory="8Gi"), memory_overhead="1Gi")
    manifest, _ = render_spark(jvm_app(executor=executor,
                                       requests=Resources(cpu="500m", memory="1536Mi")))
    native = manifest["spec"]["executor"]
    assert (native["cores"], native["coreRequest"], native["coreLimit"]) == (2, "1500m", "3")
    assert (native["memory"], native["memoryOverhead"], native["memoryLimit"]) == (
        "6g", "1g", "8Gi")
    driver = manifest["spec"]["driver"]
    assert (driver["cores"], driver["coreRequest"], driver["memory"]) == (1, "500m", "1536m")
    assert "coreLimit" not in driver and "memoryLimit" not in driver


def test_memory_spark_cannot_express_from_a_template_is_an_error(render_spark: Render
                                                                 ) -> None:
    template = PodTemplate(pod_spec={"containers": [
        {"name": "primary", "resources": {"requests": {"memory": "2G"}}}]})
    with pytest.raises(DefinitionError, match="whole MiB") as error:
        render_spark(jvm_app(pod_template=template))
    assert error.value.task == "pi" and error.value.role == "driver"
    assert error.value.field == (
        "spec.containers[spark-kubernetes-driver].resources.requests.memory")


def test_image_labels_and_annotations_are_mapped_natively(render_spark: Render) -> None:
    template = PodTemplate(pod_spec={}, labels={"team": "data"}, annotations={"a": "b"})
    executor = Role(image="spark-gpu:3.5", pod_template=PodTemplate(
        pod_spec={}, labels={"tier": "spot"}))
    manifest, _ = render_spark(jvm_app(pod_template=template, executor=executor))
    driver, execs = manifest["spec"]["driver"], manifest["spec"]["executor"]
    assert driver["image"] == "apache/spark:3.5.5" and execs["image"] == "spark-gpu:3.5"
    assert spark_container(manifest, "executor")["image"] == "spark-gpu:3.5"
    assert driver["labels"]["team"] == "data" and "tier" not in driver["labels"]
    assert execs["labels"]["tier"] == "spot" and execs["labels"]["podtemplate.io/role"] == (
        "executor")
    assert driver["annotations"]["a"] == "b" == execs["annotations"]["a"]
    for role in ROLES:
        assert manifest["spec"][role]["labels"] == (
            manifest["spec"][role]["template"]["metadata"]["labels"])


def test_image_pull_policy_is_one_native_policy(render_spark: Render) -> None:
    template = PodTemplate(pod_spec={"containers": [
        {"name": "primary", "imagePullPolicy": "Always"}]})
    manifest, _ = render_spark(jvm_app(pod_template=template))
    assert manifest["spec"]["imagePullPolicy"] == "Always"
    executor = Role(pod_template=PodTemplate(pod_spec={"containers": [
        {"name": "primary", "imagePullPolicy": "Never"}]}))
    with pytest.raises(DefinitionError, match="one policy"):
        render_spark(jvm_app(pod_template=template, executor=executor))
    manifest, context = render_spark(jvm_app(executor=executor))
    assert manifest["spec"]["imagePullPolicy"] == "Never"
    assert [w.role for w in context.warnings] == ["driver"]


def test_spark_owned_fields_are_removed_or_set(render_spark: Render) -> None:
    template = PodTemplate(pod_spec={"restartPolicy": "Always", "hostname": "fixed",
                                     "containers": [{"name": "primary", "args": ["x"]}]})
    manifest, _ = render_spark(jvm_app(pod_template=template))
    for role in ROLES:
        spec = manifest["spec"][role]["template"]["spec"]
        assert spec["restartPolicy"] == "Never"
        assert "args" not in spark_container(manifest, role)
        assert "command" not in spark_container(manifest, role)
    assert manifest["spec"]["driver"]["template"]["spec"]["hostname"] == "fixed"
    assert "hostname" not in manifest["spec"]["executor"]["template"]["spec"]


def test_task_command_is_refused(render_spark: Render) -> None:
    @task(image="x", command=["python"], task_config=Spark())
    def job() -> None: ...

    with pytest.raises(DefinitionError, match="command is not used"):
        render_spark(job)


def test_user_conf_wins_over_native_fields_with_a_warning(render_spark: Render) -> None:
    app = jvm_app(requests=Resources(cpu="2", memory="4Gi"),
                  spark_conf={"spark.executor.cores": "4", "spark.driver.memory": "4g"})
    manifest, context = render_spark(app)
    assert "cores" not in manifest["spec"]["executor"]
    assert manifest["spec"]["driver"]["cores"] == 2
    assert "memory" not in manifest["spec"]["driver"]  # the user's key says the same
    warnings = [str(w) for w in context.warnings]
    assert len(warnings) == 1, warnings
    assert "spark.executor.cores" in warnings[0] and "wins" in warnings[0]
    assert context.warnings[0].role == "executor"


def test_user_conf_wins_over_derived_conf_with_a_warning(render_spark: Render) -> None:
    app = jvm_app(executor=Role(interruptible=True),
                  spark_conf={"spark.decommission.enabled": "false"})
    manifest, context = render_spark(app)
    conf = manifest["spec"]["sparkConf"]
    assert conf["spark.decommission.enabled"] == "false"
    assert conf["spark.storage.decommission.enabled"] == "true"
    assert any("spark.decommission.enabled" in str(w) for w in context.warnings)


def test_decommission_is_not_derived_over_an_executor_lifecycle(render_spark: Render) -> None:
    lifecycle = {"preStop": {"exec": {"command": ["sh", "-c", "sleep 5"]}}}
    executor = Role(interruptible=True, pod_template=PodTemplate(pod_spec={"containers": [
        {"name": "primary", "lifecycle": lifecycle}]}))
    manifest, context = render_spark(jvm_app(executor=executor))
    assert "sparkConf" not in manifest["spec"]
    assert spark_container(manifest, "executor")["lifecycle"] == lifecycle
    assert any("lifecycle" in str(w) for w in context.warnings)


def test_function_task_driver_runs_the_function_through_the_executor(render_spark: Render
                                                                      ) -> None:
    @task(image="spark-py:3.5", env={"MODE": "full"}, task_config=Spark(
        spark_conf={"spark.sql.shuffle.partitions": 8}, hadoop_conf={"fs.s3a.fast": True}))
    def rollup(day: str, limit: int = 10) -> None: ...

    manifest, _ = render_spark(rollup, inputs={"day": "2026-01-02"})
    spec = manifest["spec"]
    assert (spec["type"], spec["mode"], spec["pythonVersion"]) == ("Python", "cluster", "3")
    assert spec["mainApplicationFile"] == "local:///opt/podtemplate/spark_launcher.py"
    assert spec["arguments"][:4] == ["--module", rollup.module, "--task", "rollup"]
    assert '"day": "2026-01-02"' in spec["arguments"][5]
    assert spec["sparkConf"] == {"spark.sql.shuffle.partitions": "8"}
    assert spec["hadoopConf"] == {"fs.s3a.fast": "true"}
    for role in ROLES:
        assert env_of(spark_container(manifest, role))["MODE"] == "full"


@pytest.mark.parametrize(("config", "text"), [
    (Spark(main_class="a.B"), "main_class is for JVM"),
    (Spark(arguments=["1"]), "arguments is for JVM"),
    (Spark(application_type="Scala"), "not Scala"),
])
def test_function_task_refuses_jvm_settings(render_spark: Render, config: Spark, text: str
                                            ) -> None:
    @task(image="x", task_config=config)
    def job() -> None: ...

    with pytest.raises(DefinitionError, match=text):
        render_spark(job)


def test_jvm_application_spec(render_spark: Render) -> None:
    manifest, _ = render_spark(jvm_app(arguments=["1000"], spark_version="3.4.1"))
    spec = manifest["spec"]
    assert (spec["type"], spec["mainClass"], spec["arguments"]) == (
        "Scala", "org.example.Pi", ["1000"])
    assert spec["sparkVersion"] == "3.4.1" and "pythonVersion" not in spec
    assert spec["restartPolicy"] == {"type": "Never"}
    assert spec["executor"]["instances"] == 1
    assert manifest["metadata"]["labels"]["podtemplate.io/task-type"] == "spark"


def test_python_main_file_is_a_python_application(render_spark: Render) -> None:
    manifest, _ = render_spark(jvm_app(main_application_file="local:///app/main.py",
                                       main_class=None))
    assert manifest["spec"]["type"] == "Python"


def test_check_rejects_an_invalid_template() -> None:
    good = {"metadata": {}, "spec": {"containers": [
        {"name": "spark-kubernetes-driver", "image": "x"}]}}
    manifest: dict[str, Any] = {
        "apiVersion": "sparkoperator.k8s.io/v1beta2", "kind": "SparkApplication",
        "spec": {"driver": {"template": good}, "executor": {"template": {
            "spec": {"containers": [{"name": "spark-kubernetes-executor", "imagee": "x"}]}}}}}
    problems = template_problems(manifest)
    assert len(problems) == 1
    assert "spec.executor.template.spec.containers[spark-kubernetes-executor].imagee" in (
        problems[0])
    manifest["spec"]["executor"]["template"] = {"spec": {"containers": [
        {"name": "sidecar", "image": "x"}, {"name": "spark-kubernetes-executor"}]}}
    assert "Spark needs 'spark-kubernetes-executor' first" in template_problems(manifest)[0]
    assert template_problems({"apiVersion": "v1", "kind": "Pod"}) == []


def test_check_skips_only_the_very_pods_core_validated() -> None:
    bad = {"spec": {"containers": [{"name": "spark-kubernetes-driver", "imagee": "x"}]}}
    manifest: dict[str, Any] = {
        "apiVersion": "sparkoperator.k8s.io/v1beta2", "kind": "SparkApplication",
        "spec": {"driver": {"template": bad}, "executor": {"template": {"spec": {
            "containers": [{"name": "spark-kubernetes-executor", "image": "x"}]}}}}}
    import copy

    # An equal copy is not the object core validated: it is validated here.
    assert len(template_problems(manifest, validated={"driver": copy.deepcopy(bad)})) == 1
    assert template_problems(manifest, validated={"driver": bad}) == []


def test_build_places_the_resolved_pods_unchanged(spark_plugin_manager: Any) -> None:
    """What lets the check trust core's validation: the build neither copies nor mutates
    the role pods it is given."""
    import copy

    from podtemplate import make_context, resolve_pod
    from podtemplate.testing import build_manifests, define_roles

    app = jvm_app(pod_template=PodTemplate(pod_spec=FULL_TEMPLATE))
    context = make_context(platform=Platform(defaultImage="python:3.11"),
                           plugin_manager=spark_plugin_manager)
    roles = define_roles(app, context)
    pods = {role.name: resolve_pod(app, role, context) for role in roles}
    before = copy.deepcopy(pods)
    [manifest] = build_manifests(app, roles, pods, context)
    for role in ROLES:
        assert manifest["spec"][role]["template"] is pods[role]
    assert pods == before


def test_rendering_is_deterministic_and_leaves_inputs_alone(render_spark: Render) -> None:
    template = PodTemplate(pod_spec=FULL_TEMPLATE)
    before = template.layer()
    app = jvm_app(pod_template=template, executor=Role(replicas=2))
    first, _ = render_spark(app)
    second, _ = render_spark(app)
    assert first == second
    assert template.layer() == before
    assert first["spec"]["driver"]["template"] is not first["spec"]["executor"]["template"]


def test_spark_bookkeeping_labels_are_refused(render_spark: Render) -> None:
    template = PodTemplate(pod_spec={}, labels={"spark-role": "mine"})
    with pytest.raises(DefinitionError, match="reserved by Spark") as error:
        render_spark(jvm_app(pod_template=template))
    assert error.value.field == "metadata.labels.spark-role"


def test_executor_count_from_conf_alone_is_not_overridden(render_spark: Render) -> None:
    manifest, context = render_spark(jvm_app(spark_conf={"spark.executor.instances": "5"}))
    assert "instances" not in manifest["spec"]["executor"]
    assert manifest["spec"]["sparkConf"]["spark.executor.instances"] == "5"
    assert context.warnings == []


def test_task_cpu_against_conf_says_which_wins(render_spark: Render) -> None:
    @task(image="x", requests=Resources(cpu="2"),
          task_config=Spark(spark_conf={"spark.kubernetes.executor.request.cores": "3"}))
    def job() -> None: ...

    manifest, context = render_spark(job)
    assert "coreRequest" not in manifest["spec"]["executor"]
    assert manifest["spec"]["driver"]["coreRequest"] == "2"
    [warning] = context.warnings
    assert warning.role == "executor" and warning.field == "spec.executor.coreRequest"
    assert "wins over coreRequest '2'" in warning.message


def test_user_label_property_wins_over_the_pod_label(render_spark: Render) -> None:
    template = PodTemplate(pod_spec={}, labels={"team": "ml"})
    app = jvm_app(pod_template=template,
                  spark_conf={"spark.kubernetes.driver.label.team": "data"})
    manifest, context = render_spark(app)
    assert "team" not in manifest["spec"]["driver"]["labels"]
    assert manifest["spec"]["executor"]["labels"]["team"] == "ml"
    assert [w.field for w in context.warnings] == ["metadata.labels.team"]


def test_application_task_checks_its_memory_when_defined() -> None:
    with pytest.raises(DefinitionError, match="whole MiB") as error:
        jvm_app(requests=Resources(memory="1G"))
    assert (error.value.task, error.value.field) == ("pi", "requests.memory")


# Spark Operator v2.5.2, internal/webhook/sparkpod_defaulter.go: mutateSparkPod applies the
# driver/executor gpu (addGPU) and memoryLimit (addMemoryLimit) when a Spark pod is created;
# nothing else reads them. A platform that declares the webhook off gets a warning for each.
def test_webhook_only_fields_warn_when_the_platform_declares_the_webhook_off(
        render_spark: Render) -> None:
    app = jvm_app(executor=Role(requests=Resources(gpu=1, memory="4Gi"),
                                limits=Resources(memory="6Gi")))
    on, context = render_spark(app)
    assert on["spec"]["executor"]["gpu"]["quantity"] == 1
    assert on["spec"]["executor"]["memoryLimit"] == "6Gi"
    assert not [w for w in context.warnings if "webhook" in w.message]
    off = Platform(defaultImage="python:3.11", taskTypes={"spark": {"webhook": False}})
    manifest, context = render_spark(app, platform=off)
    assert manifest == on  # the same application: the warning is the difference
    warned = {(w.role, w.field) for w in context.warnings if "webhook" in w.message}
    assert warned == {("executor", "spec.executor.gpu"),
                      ("executor", "spec.executor.memoryLimit")}


def test_spark_settings_reject_unknown_keys(render_spark: Render) -> None:
    from podtemplate import PlatformConfigError

    with pytest.raises(PlatformConfigError, match="unknown key 'mutatingWebhook'"):
        render_spark(jvm_app(), platform=Platform(taskTypes={"spark": {
            "mutatingWebhook": False}}))

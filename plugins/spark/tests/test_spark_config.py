"""``Spark(...)``, ``SparkRole`` and ``SparkApplicationTask``: bad input fails when the task
is defined, naming the field and the fix."""

from __future__ import annotations

from typing import Any

import pytest
from podtemplate import DefinitionError, Resources, Role, task
from podtemplate_spark import Spark, SparkApplicationTask, SparkRole


def test_spark_selects_the_spark_task_type() -> None:
    @task(image="spark:3.5", task_config=Spark())
    def job() -> None: ...

    assert job.task_type == "spark"
    assert Spark.task_type == "spark"


def test_conf_values_become_strings() -> None:
    config = Spark(spark_conf={"spark.sql.shuffle.partitions": 64, "spark.ui.enabled": False,
                               "spark.memory.fraction": 0.6})
    assert config.spark_conf == {"spark.sql.shuffle.partitions": "64",
                                 "spark.ui.enabled": "false", "spark.memory.fraction": "0.6"}


@pytest.mark.parametrize("role", [
    lambda: Role(replicas=0), lambda: SparkRole(replicas=-1),
])
def test_executor_count_below_one_is_rejected(role: Any) -> None:
    with pytest.raises(DefinitionError, match="replicas must be at least 1"):
        Spark(executor=role())


@pytest.mark.parametrize("value", ["0", "-2", "many"])
def test_executor_instances_in_conf_below_one_is_rejected(value: str) -> None:
    with pytest.raises(DefinitionError) as error:
        Spark(spark_conf={"spark.executor.instances": value})
    assert error.value.field == "task_config.spark_conf.spark.executor.instances"
    assert "replicas" in (error.value.fix or "")


def test_executor_count_in_two_places_must_agree() -> None:
    Spark(executor=Role(replicas=3), spark_conf={"spark.executor.instances": "3"})
    with pytest.raises(DefinitionError, match="instances") as error:
        Spark(executor=Role(replicas=3), spark_conf={"spark.executor.instances": "4"})
    assert "drop spark.executor.instances" in (error.value.fix or "")


@pytest.mark.parametrize(("key", "cpu"), [
    ("spark.executor.cores", "2"),
    ("spark.kubernetes.executor.request.cores", "1500m"),
])
def test_conflicting_cpu_between_conf_and_role_requests_is_rejected(key: str, cpu: str
                                                                      ) -> None:
    with pytest.raises(DefinitionError) as error:
        Spark(executor=Role(requests=Resources(cpu=cpu)), spark_conf={key: "4"})
    assert error.value.field == f"task_config.spark_conf.{key}"
    assert "executor" in error.value.message


def test_agreeing_cpu_in_conf_and_role_is_fine() -> None:
    Spark(driver=Role(requests=Resources(cpu="1500m")),
          spark_conf={"spark.driver.cores": "2",
                      "spark.kubernetes.driver.request.cores": "1.5"})


def test_conflicting_memory_between_conf_and_role_is_rejected() -> None:
    Spark(driver=Role(requests=Resources(memory="4Gi")), spark_conf={"spark.driver.memory": "4g"})
    with pytest.raises(DefinitionError, match="memory"):
        Spark(driver=Role(requests=Resources(memory="4Gi")),
              spark_conf={"spark.driver.memory": "2g"})


@pytest.mark.parametrize("memory", ["1G", "1500m", "100Ki"])
def test_role_memory_spark_cannot_express_is_rejected(memory: str) -> None:
    with pytest.raises(DefinitionError, match="whole MiB") as error:
        Spark(executor=Role(requests=Resources(memory=memory)))
    assert error.value.field == "task_config.executor.requests.memory"


def test_memory_overhead_spark_cannot_express_is_rejected() -> None:
    with pytest.raises(DefinitionError, match="whole MiB"):
        SparkRole(memory_overhead="1G")


def test_memory_limit_below_spark_request_is_rejected() -> None:
    with pytest.raises(DefinitionError, match="below what Spark requests") as error:
        Spark(executor=Role(requests=Resources(memory="4Gi"), limits=Resources(memory="4200Mi")))
    assert error.value.field == "task_config.executor.limits.memory"


def test_driver_is_one_pod() -> None:
    with pytest.raises(DefinitionError, match="one pod"):
        Spark(driver=Role(replicas=2))


@pytest.mark.parametrize("version", ["2.4.8", "2.4"])
def test_spark_before_3_has_no_pod_templates(version: str) -> None:
    with pytest.raises(DefinitionError, match=r"Spark 3\.0 or later"):
        Spark(spark_version=version)


def test_spark_version_must_be_a_version() -> None:
    with pytest.raises(DefinitionError, match="not a version"):
        Spark(spark_version="latest")


@pytest.mark.parametrize("key", ["spark.kubernetes.driver.podTemplateFile",
                                 "spark.kubernetes.executor.podTemplateContainerName"])
def test_pod_template_properties_are_reserved(key: str) -> None:
    with pytest.raises(DefinitionError, match="operator sets"):
        Spark(spark_conf={key: "x"})


def test_hadoop_keys_go_without_the_spark_hadoop_prefix() -> None:
    with pytest.raises(DefinitionError, match="prefix") as error:
        Spark(hadoop_conf={"spark.hadoop.fs.s3a.endpoint": "x"})
    assert "'fs.s3a.endpoint'" in (error.value.fix or "")


@pytest.mark.parametrize(("kwargs", "text"), [
    ({"spark_conf": {"bad key": "1"}}, "not valid"),
    ({"spark_conf": {"k": [1]}}, "string, number or bool"),
    ({"main_class": "not a class"}, "Java class"),
    ({"arguments": "1000"}, "list of strings"),
    ({"arguments": [1000]}, "must be a string"),
    ({"application_type": "Go"}, "Python"),
    ({"workers": 2}, "unknown argument 'workers'"),
])
def test_bad_arguments_are_definition_errors(kwargs: dict[str, Any], text: str) -> None:
    with pytest.raises(DefinitionError, match=text):
        Spark(**kwargs)


def test_application_task_is_a_spark_task_without_a_function() -> None:
    app = SparkApplicationTask(name="pi", image="apache/spark:3.5.5",
                               main_application_file="local:///app.jar", main_class="a.Main",
                               arguments=["10"], executor=Role(replicas=2))
    assert app.task_type == "spark" and app.fn is None
    assert app.task_config.arguments == ("10",)
    assert app.task_config.executor.replicas == 2


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"image": ""}, "image"),
    ({"main_application_file": ""}, "task_config.main_application_file"),
    ({"spark_conf": {"spark.executor.instances": "0"}},
     "task_config.spark_conf.spark.executor.instances"),
])
def test_application_task_errors_name_the_task(kwargs: dict[str, Any], field: str) -> None:
    args = {"name": "pi", "image": "apache/spark:3.5.5",
            "main_application_file": "local:///app.jar", **kwargs}
    with pytest.raises(DefinitionError) as error:
        SparkApplicationTask(**args)
    assert error.value.task == "pi"
    assert error.value.field == field


# Spark Operator v2.5.2, internal/webhook/sparkapplication_validator.go: ValidateCreate and
# ValidateUpdate call validateName, validation.IsDNS1035Label(name). Checked at definition,
# for both ways of defining a Spark task.
@pytest.mark.parametrize("name", ["2024-spark-pi", "9lives"])
def test_a_name_the_operator_refuses_is_rejected_at_definition(name: str) -> None:
    with pytest.raises(DefinitionError, match="is not a DNS-1035 label") as info:
        task(name=name, image="spark:3.5.5", task_config=Spark())(lambda: None)
    assert info.value.task == name and info.value.field == "name"
    with pytest.raises(DefinitionError, match="is not a DNS-1035 label"):
        SparkApplicationTask(name=name, image="spark:3.5.5",
                             main_application_file="local:///opt/app.jar")
    task(name="spark-pi-2024", image="spark:3.5.5", task_config=Spark())(lambda: None)

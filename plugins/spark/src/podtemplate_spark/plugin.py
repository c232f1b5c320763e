"""The ``spark`` task type (entry point ``podtemplate: spark``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from podtemplate import PodTemplate, RenderContext, RoleSpec, Task, TaskType, hookimpl
from podtemplate.plugin import TaskTypePlugin, config_of

from .application import application_for, check_task
from .build import API_VERSION, KIND, build_application
from .check import template_problems
from .config import ROLE_NAMES, Spark, SparkRole
from .roles import role_spec
from .settings import SparkSettings
from .task import SparkApplicationTask

TASK_TYPE = TaskType(
    name=Spark.task_type, distribution="podtemplate-spark", kind=KIND, api_version=API_VERSION,
    crds=("podtemplate_spark:crds/sparkoperator.k8s.io_sparkapplications.json",), config=Spark,
    settings=SparkSettings,
    description="a Spark application (driver and executors) as a Kubeflow Spark Operator "
    "SparkApplication")


class SparkType(TaskTypePlugin):
    task_type = TASK_TYPE

    def define_roles(self, task: Task, context: RenderContext) -> list[RoleSpec]:
        config = config_of(task, Spark)
        check_task(task)
        application_for(task, config, context)  # fail before resolving any pod
        return [role_spec(name, config.role(name)) for name in ROLE_NAMES]

    def build(self, task: Task, roles: Sequence[RoleSpec], pods: Mapping[str, dict[str, Any]],
              context: RenderContext) -> list[dict[str, Any]]:
        return [build_application(task, pods, context)]

    @hookimpl
    def podtemplate_check_manifest(self, task: Task, manifest: Mapping[str, Any],
                                   pods: Mapping[str, Mapping[str, Any]],
                                   context: RenderContext) -> Sequence[str] | None:
        return template_problems(manifest, validated=pods)

    def sample(self, pod_template: PodTemplate | None, pod_template_name: str | None,
               role_templates: Mapping[str, PodTemplate]) -> Task:
        return SparkApplicationTask(
            name="sample-spark", image="apache/spark:3.5.5",
            main_application_file="local:///opt/spark/examples/jars/spark-examples.jar",
            main_class="org.apache.spark.examples.SparkPi", arguments=["100"],
            driver=SparkRole(pod_template=role_templates.get("driver")),
            executor=SparkRole(pod_template=role_templates.get("executor"), replicas=2),
            pod_template=pod_template, pod_template_name=pod_template_name)

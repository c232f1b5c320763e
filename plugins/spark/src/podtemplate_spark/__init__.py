"""podtemplate-spark: the ``spark`` task type.

A PySpark function task (``@task(task_config=Spark(...))``) or a JVM application
(``SparkApplicationTask(...)``) renders to a Kubeflow Spark Operator
``sparkoperator.k8s.io/v1beta2 SparkApplication`` whose driver and executors each carry
their full resolved pod in ``spec.driver.template`` / ``spec.executor.template``.
"""

from __future__ import annotations

from podtemplate.plugin import flytekit_names

from .config import DEFAULT_SPARK_VERSION, Spark, SparkRole
from .launcher import DEFAULT_MAIN_APPLICATION_FILE, LAUNCHER_PATH, write_launcher
from .roles import CONTAINER_NAMES
from .task import SparkApplicationTask

__all__ = [
    "CONTAINER_NAMES",
    "DEFAULT_MAIN_APPLICATION_FILE",
    "DEFAULT_SPARK_VERSION",
    "LAUNCHER_PATH",
    "Spark",
    "SparkApplicationTask",
    "SparkRole",
    "write_launcher",
]

# flytekitplugins-spark names with no class here: what to write instead.
__getattr__ = flytekit_names(__name__, {
    name: "a Databricks job runs on Databricks, with no pod to template: use "
    "task_config=Spark(spark_conf=...) to run on Kubernetes"
    for name in ("Databricks", "DatabricksV2")
})

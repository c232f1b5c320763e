"""podtemplate-spark: the ``spark`` task type.

A PySpark function task (``@task(task_config=Spark(...))``) or a JVM application
(``SparkApplicationTask(...)``) renders to a Kubeflow Spark Operator
``sparkoperator.k8s.io/v1beta2 SparkApplication`` whose driver and executors each carry
their full resolved pod in ``spec.driver.template`` / ``spec.executor.template``.
"""

from __future__ import annotations

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

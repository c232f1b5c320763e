"""``SparkApplicationTask``: a Spark application from a jar (or a Python/R file) in an
image, with no Python function — the ContainerTask form of the ``spark`` task type."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from podtemplate import DefinitionError, PodTemplate, Resources, Role, Task
from podtemplate.plugin import EnvValue, defining_task, refuse_arguments

from .config import DEFAULT_SPARK_VERSION, ApplicationType, Spark
from .natives import cpu_fields, memory_fields

__all__ = ["SparkApplicationTask"]


def SparkApplicationTask(
    name: str,
    image: str,
    main_application_file: str,
    main_class: str | None = None,
    arguments: Sequence[str] | None = None,
    spark_conf: Mapping[str, Any] | None = None,
    hadoop_conf: Mapping[str, Any] | None = None,
    driver: Role | None = None,
    executor: Role | None = None,
    spark_version: str = DEFAULT_SPARK_VERSION,
    application_type: ApplicationType | None = None,
    env: Mapping[str, EnvValue] | None = None,
    requests: Resources | None = None,
    limits: Resources | None = None,
    pod_template: PodTemplate | None = None,
    pod_template_name: str | None = None,
    interruptible: bool = False,
    **unknown: Any,
) -> Task:
    """A Spark application that runs ``main_application_file`` (``local://`` for a file
    in ``image``) with ``main_class`` and ``arguments``; driver and executors get the task's
    templates and settings, then their role's. Define it at module level: ``podtemplate
    render`` finds it there.
    """
    with defining_task(name):
        refuse_arguments(unknown, {}, call="SparkApplicationTask",  # a mistyped keyword
                         help_name="SparkApplicationTask", accepted=SparkApplicationTask)
        if not isinstance(image, str) or not image.strip():
            raise DefinitionError("image is empty", field="image",
                                  fix="give a Spark image, e.g. apache/spark:3.5.5")
        if not main_application_file:
            raise DefinitionError("main_application_file is empty",
                                  field="task_config.main_application_file",
                                  fix="give the application, e.g. local:///opt/app/app.jar")
        settings: dict[str, Any] = {
            "spark_conf": spark_conf, "hadoop_conf": hadoop_conf, "driver": driver,
            "executor": executor, "spark_version": spark_version,
            "main_application_file": main_application_file, "main_class": main_class,
            "arguments": arguments, "application_type": application_type}
        config = Spark(**settings)  # Spark validates and normalises each value
        _check_resources(requests, limits)
    return Task(name=name, task_type=Spark.task_type, fn=None, image=image,
                env=dict(env or {}), requests=requests, limits=limits,
                pod_template=pod_template, pod_template_name=pod_template_name,
                task_config=config, interruptible=interruptible)


def _check_resources(requests: Resources | None, limits: Resources | None) -> None:
    """The task's cpu and memory in Spark's terms, checked now rather than at render."""
    cpu_fields(requests.cpu if requests else None, limits.cpu if limits else None,
               where="")
    memory_fields(requests.memory if requests else None,
                  limits.memory if limits else None, None, where="")

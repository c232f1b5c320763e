"""``Spark(...)``: the ``task_config`` of a Spark task, and ``SparkRole`` for its roles.

Everything that can be checked without the cluster templates is checked here, when the
task is defined: Spark versions without pod templates, reserved properties, an executor
count below 1, and a role whose own requests contradict ``spark_conf``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

from podtemplate import ConfigModel, DefinitionError, Role
from podtemplate.plugin import (
    check_dns1035_label,
    check_quantity,
    refuse_config_keys,
    scalar_text,
    warn_alias,
)
from pydantic import field_validator, model_validator

from .conf import RESERVED_KEYS, conflicts
from .natives import cpu_fields, memory_fields
from .units import spark_memory

__all__ = [
    "Spark",
    "SparkRole",
    "ApplicationType",
    "DEFAULT_SPARK_VERSION",
    "ROLE_NAMES",
    "spark_version_at_least",
]

DEFAULT_SPARK_VERSION = "3.5.5"
ROLE_NAMES = ("driver", "executor")
ApplicationType = Literal["Python", "Scala", "Java", "R"]
_VERSION = re.compile(r"^(\d+)\.(\d+)(\.\d+)?([-+.][0-9A-Za-z.+-]+)?$")
_JAVA_CLASS = re.compile(r"^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$")
_CONF_KEY = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-/:\[\]]*$")


class SparkRole(Role):
    """A Spark driver or executor role: :class:`podtemplate.Role` plus
    ``memory_overhead``, the non-heap memory Spark adds to the pod's memory request and
    limit (Spark's default: max(384Mi, 10% of memory; 40% for Python)). ``replicas`` of
    the executor role is the executor count."""

    memory_overhead: str | None = None

    @field_validator("memory_overhead", mode="before")
    @classmethod
    def _overhead(cls, value: Any) -> str | None:
        if value is None:
            return None
        quantity = check_quantity(value, field="memory_overhead")
        spark_memory(quantity, field="memory_overhead")
        return quantity


class Spark(ConfigModel):
    """A Spark application as a Kubeflow Spark Operator ``SparkApplication``.

    - ``spark_conf`` / ``hadoop_conf``: Spark and Hadoop properties (values may be numbers
      or booleans; they are written as strings). Hadoop keys go without the
      ``spark.hadoop.`` prefix: the operator adds it.
    - ``driver`` / ``executor``: the roles (:class:`podtemplate.Role` or
      :class:`SparkRole`); ``executor.replicas`` is the executor count (default 1).
    - ``spark_version``: at least 3.0, the first with pod templates.
    - ``main_application_file``: a JVM application's jar (or a Python/R file); for a
      function task, where the image keeps the podtemplate launcher (see the README).
    - ``main_class`` and ``arguments``: for JVM applications.
    - ``application_type``: ``Python``, ``Scala``, ``Java`` or ``R``; by default taken from
      the main application file (``Python`` for a function task).
    """

    task_type: ClassVar[str] = "spark"

    spark_conf: dict[str, str] | None = None
    hadoop_conf: dict[str, str] | None = None
    driver: Role | None = None
    executor: Role | None = None
    spark_version: str = DEFAULT_SPARK_VERSION
    main_application_file: str | None = None
    main_class: str | None = None
    arguments: tuple[str, ...] | None = None
    application_type: ApplicationType | None = None

    @model_validator(mode="before")
    @classmethod
    def _flytekit_spellings(cls, data: Any) -> Any:
        return flytekit_spark_arguments(data)

    @field_validator("spark_conf", "hadoop_conf", mode="before")
    @classmethod
    def _properties(cls, value: Any, info: Any) -> dict[str, str] | None:
        return None if value is None else _string_map(value, f"task_config.{info.field_name}")

    @field_validator("spark_version")
    @classmethod
    def _version(cls, value: str) -> str:
        if not _VERSION.match(value):
            raise DefinitionError(f"spark_version {value!r} is not a version",
                                  field="task_config.spark_version",
                                  fix=f'write it like "{DEFAULT_SPARK_VERSION}"')
        if not spark_version_at_least(value, 3, 0):
            raise DefinitionError(
                f"Spark {value} has no pod templates (they need Spark 3.0 or later)",
                field="task_config.spark_version", fix="use Spark 3.0 or later")
        return value

    @field_validator("main_application_file")
    @classmethod
    def _main_file(cls, value: str | None) -> str | None:
        if value is not None and (not value.strip() or value != value.strip()):
            raise DefinitionError(f"main_application_file {value!r} is empty or padded",
                                  field="task_config.main_application_file",
                                  fix="give a path such as local:///opt/app/app.jar")
        return value

    @field_validator("main_class")
    @classmethod
    def _main_class(cls, value: str | None) -> str | None:
        if value is not None and not _JAVA_CLASS.match(value):
            raise DefinitionError(f"main_class {value!r} is not a Java class name",
                                  field="task_config.main_class",
                                  fix="give a fully qualified name such as org.example.Main")
        return value

    @field_validator("arguments", mode="before")
    @classmethod
    def _arguments(cls, value: Any) -> tuple[str, ...] | None:
        return None if value is None else _strings(value, "task_config.arguments")

    @model_validator(mode="after")
    def _consistent(self) -> Spark:
        conf = self.spark_conf or {}
        for key in RESERVED_KEYS:
            if key in conf:
                raise DefinitionError(
                    f"spark_conf sets {key}, which the operator sets to the resolved pod "
                    "template", field=f"task_config.spark_conf.{key}",
                    fix="remove it; put pod settings in pod_template or the role's template")
        for key in self.hadoop_conf or {}:
            if key.startswith("spark.hadoop."):
                raise DefinitionError(
                    f"hadoop_conf key {key!r} carries the spark.hadoop. prefix",
                    field=f"task_config.hadoop_conf.{key}",
                    fix=f"write {key.removeprefix('spark.hadoop.')!r}: the operator adds the "
                    "prefix")
        _check_instances(conf)
        for name in ROLE_NAMES:
            _check_role_against_conf(name, getattr(self, name), conf)
        return self

    def check_task_name(self, name: str) -> None:
        # Spark Operator v2.5.2, internal/webhook/sparkapplication_validator.go
        # (validateName, on create and update): the name must be a DNS-1035 label.
        check_dns1035_label(name, what="Spark task name",
                            why="the Spark Operator's webhook requires it of a "
                            "SparkApplication")

    def role(self, name: str) -> Role | None:
        """The ``driver`` or ``executor`` role config."""
        return getattr(self, name)  # type: ignore[no-any-return]

    def memory_overhead(self, name: str) -> str | None:
        role = self.role(name)
        return role.memory_overhead if isinstance(role, SparkRole) else None


def spark_version_at_least(version: str, major: int, minor: int) -> bool:
    match = _VERSION.match(version)
    if match is None:
        return False
    return (int(match.group(1)), int(match.group(2))) >= (major, minor)


def _string_map(value: Any, field: str) -> dict[str, str]:
    if not isinstance(value, Mapping):
        raise DefinitionError(f"{field} must be a dict of property names to values",
                              field=field, fix='write {"spark.sql.shuffle.partitions": "64"}')
    out = {}
    for key, item in value.items():
        if not isinstance(key, str) or not _CONF_KEY.match(key):
            raise DefinitionError(f"property name {key!r} is not valid", field=field,
                                  fix="use a dotted name without spaces, e.g. spark.ui.enabled")
        text = scalar_text(item)
        if text is None:
            raise DefinitionError(f"value of {key} must be a string, number or bool, not "
                                  f"{type(item).__name__}", field=f"{field}.{key}",
                                  fix="write the value as Spark reads it, e.g. '4g'")
        out[key] = text
    return out


def _strings(value: Any, field: str) -> tuple[str, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise DefinitionError(f"{field} must be a list of strings", field=field,
                              fix="write arguments=['1000'], one item per argument")
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise DefinitionError(f"{field}[{index}] must be a string", field=field,
                                  fix=f"quote it: {str(item)!r}")
    return tuple(value)


def _check_instances(conf: Mapping[str, str]) -> None:
    text = conf.get("spark.executor.instances")
    if text is None:
        return
    try:
        count = int(text)
    except ValueError:
        count = None
    if count is None or count < 1:
        raise DefinitionError(f"spark.executor.instances must be a whole number of at least "
                              f"1, got {text!r}",
                              field="task_config.spark_conf.spark.executor.instances",
                              fix="set executor=Role(replicas=N) with N >= 1 instead")


def _check_role_against_conf(name: str, role: Role | None, conf: Mapping[str, str]) -> None:
    """A role's own settings and ``spark_conf`` saying two things is a definition error."""
    if role is None:
        return
    where = f"task_config.{name}"
    if name == "driver" and role.replicas not in (None, 1):
        raise DefinitionError(f"the driver is one pod, got replicas={role.replicas}",
                              field=f"{where}.replicas",
                              fix="drop driver replicas; set executor=Role(replicas=N)")
    requests, limits = role.requests, role.limits
    natives: dict[str, Any] = {}
    natives.update(cpu_fields(requests.cpu if requests else None,
                              limits.cpu if limits else None, where=where))
    overhead = role.memory_overhead if isinstance(role, SparkRole) else None
    natives.update(memory_fields(requests.memory if requests else None,
                                 limits.memory if limits else None, overhead, where=where))
    if role.image:
        natives["image"] = role.image
    if name == "executor" and role.replicas is not None:
        natives["instances"] = role.replicas
    for conflict in conflicts(name, natives, conf):
        raise DefinitionError(
            f"{name} {conflict.field} is {conflict.derived!r} from the role's settings but "
            f"spark_conf[{conflict.key!r}] is {conflict.user!r}",
            field=f"task_config.spark_conf.{conflict.key}",
            fix=f"set it in one place: drop {conflict.key} from spark_conf or the value "
            f"from {name}=Role(...)")


# flytekitplugins-spark arguments whose meaning differs here, with what to write instead.
_FLYTEKIT_ONLY = {
    "executor_path": "drop executor_path=; to choose the Python of the driver and "
    "executors write spark_conf={'spark.pyspark.python': PATH}",
    "applications_path": "drop applications_path= for a function task (the podtemplate "
    "launcher is the application); for a JVM or script application write "
    "main_application_file=PATH",
    "databricks_conf": "podtemplate renders SparkApplications for the Spark Operator; a "
    "Databricks job is not one: drop databricks_conf=",
    "databricks_instance": "drop databricks_instance= (see databricks_conf)",
}


def flytekit_spark_arguments(data: Any) -> Any:
    """``Spark(driver_pod=..., executor_pod=...)`` (flytekit's pod templates of each role)
    as ``driver=Role(pod_template=...)``/``executor=...``, with a one-time warning;
    flytekit arguments without an equivalent refused with the replacement."""
    if not isinstance(data, Mapping):
        return data
    refuse_config_keys(data, _FLYTEKIT_ONLY, call="Spark", where="task_config",
                       why="is flytekit's, with another meaning here")
    out = dict(data)
    for old, role in (("driver_pod", "driver"), ("executor_pod", "executor")):
        if old not in out:
            continue
        template = out.pop(old)
        if out.get(role) is not None:
            raise DefinitionError(
                f"Spark({old}=...) and {role}= both given", field=f"task_config.{old}",
                fix=f"put the template in the role: {role}=Role(pod_template=..., ...)")
        warn_alias(f"Spark({old}=...)", f"Spark({role}=Role(pod_template=...))")
        out[role] = None if template is None else Role(pod_template=template)
    return out

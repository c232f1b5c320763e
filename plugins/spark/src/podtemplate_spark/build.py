"""Assemble the ``sparkoperator.k8s.io/v1beta2 SparkApplication`` of a task.

Each role's resolved pod goes whole into ``spec.<role>.template``; the fields Spark would
overwrite are also written natively (:mod:`podtemplate_spark.natives`), unless the user's
``spark_conf`` sets them (:mod:`podtemplate_spark.conf`) or only the platform's
``defaultResources`` gave them (:mod:`podtemplate_spark.origin`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from podtemplate import DefinitionError, RenderContext, Task, object_metadata
from podtemplate.plugin import config_of

from ._fast import yield_to_user
from .application import application_for
from .conf import Warn, combine_conf, derived_conf
from .config import ROLE_NAMES, Spark, spark_version_at_least
from .natives import pod_natives, primary_container
from .origin import resource_origins
from .roles import CONTAINER_NAMES, DRIVER, EXECUTOR, RESERVED_LABELS
from .settings import WEBHOOK_ONLY, webhook_on

__all__ = ["API_VERSION", "KIND", "build_application", "executors_interruptible"]

API_VERSION = "sparkoperator.k8s.io/v1beta2"
KIND = "SparkApplication"
_PULL_POLICY_KEY = "spark.kubernetes.container.image.pullPolicy"
_DECOMMISSION_KEY = "spark.decommission.enabled"


def _warner(task: Task, context: RenderContext) -> Warn:
    def warn(message: str, *, role: str | None = None, field: str | None = None) -> None:
        context.warn(message, task=task.name, role=role, field=field)

    return warn


def executors_interruptible(task: Task, config: Spark) -> bool:
    """Whether the executors run on interruptible nodes (the role's say, else the task's)."""
    role = config.executor
    if role is not None and role.interruptible is not None:
        return role.interruptible
    return task.interruptible


def build_application(task: Task, pods: Mapping[str, dict[str, Any]],
                      context: RenderContext) -> dict[str, Any]:
    config = config_of(task, Spark)
    warn = _warner(task, context)
    user_conf = config.spark_conf or {}
    app = application_for(task, config, context)
    spec: dict[str, Any] = {"type": app.type, "mode": "cluster",
                            "sparkVersion": config.spark_version,
                            "mainApplicationFile": app.main_application_file}
    if app.main_class:
        spec["mainClass"] = app.main_class
    if app.arguments:
        spec["arguments"] = list(app.arguments)
    if app.type == "Python":
        spec["pythonVersion"] = "3"
    policy = _pull_policy(task, pods, warn)
    if policy is not None and _PULL_POLICY_KEY not in user_conf:
        spec["imagePullPolicy"] = policy
    conf = combine_conf(_derived(task, config, pods, warn), user_conf, warn)
    if conf:
        spec["sparkConf"] = conf
    if config.hadoop_conf:
        spec["hadoopConf"] = dict(config.hadoop_conf)
    spec["restartPolicy"] = {"type": "Never"}
    for role in ROLE_NAMES:
        spec[role] = _role_section(task, config, role, pods[role], context, warn)
    _warn_decommission_lifecycle(conf, pods[EXECUTOR], warn)
    return {"apiVersion": API_VERSION, "kind": KIND,
            "metadata": object_metadata(task, context), "spec": spec}


def _role_section(task: Task, config: Spark, role: str, pod: dict[str, Any],
                  context: RenderContext, warn: Warn) -> dict[str, Any]:
    resources, blame = resource_origins(task, config, role, pod, context)
    try:
        natives = pod_natives(pod, CONTAINER_NAMES[role],
                              gpu_name=context.platform_settings.gpu_resource_name,
                              overhead=config.memory_overhead(role),
                              reserved_labels=RESERVED_LABELS[role], resources=resources)
    except DefinitionError as error:
        raise error.located(task=task.name, role=role) from None
    user_conf = config.spark_conf or {}
    if role == EXECUTOR:
        replicas = config.executor.replicas if config.executor else None
        if replicas is not None or "spark.executor.instances" not in user_conf:
            natives = {"instances": replicas or 1, **natives}
    section = yield_to_user(role, natives, user_conf, warn, blame)
    if not webhook_on(context):
        for key in WEBHOOK_ONLY:
            if key in section:
                warn(f"spec.{role}.{key} takes effect only through the Spark Operator's "
                     "mutating webhook, which this platform declares off "
                     "(taskTypes.spark.webhook: false): the pods will not get it",
                     role=role, field=f"spec.{role}.{key}")
    section["template"] = pod
    return section


def _pull_policy(task: Task, pods: Mapping[str, dict[str, Any]], warn: Warn) -> str | None:
    """Spark has one image pull policy for driver and executors (and overwrites the
    template's with it: IfNotPresent unless told)."""
    policies = {role: primary_container(pods[role], CONTAINER_NAMES[role]).get(
        "imagePullPolicy") for role in ROLE_NAMES}
    given = {p for p in policies.values() if p}
    if len(given) > 1:
        raise DefinitionError(
            f"driver imagePullPolicy {policies[DRIVER]} differs from executor "
            f"{policies[EXECUTOR]}; Spark applies one policy to both", task=task.name,
            field="spec.containers[primary].imagePullPolicy",
            fix="set the same imagePullPolicy for driver and executor")
    if not given:
        return None
    policy: str = given.pop()
    unset = [role for role, value in policies.items() if not value]
    if unset:
        warn(f"imagePullPolicy {policy} applies to the {unset[0]} too: Spark has one policy "
             "for driver and executors", role=unset[0],
             field="spec.containers[primary].imagePullPolicy")
    return policy


def _derived(task: Task, config: Spark, pods: Mapping[str, dict[str, Any]],
             warn: Warn) -> dict[str, str]:
    interruptible = executors_interruptible(task, config)
    has_lifecycle = "lifecycle" in primary_container(pods[EXECUTOR],
                                                     CONTAINER_NAMES[EXECUTOR])
    if interruptible and has_lifecycle and _DECOMMISSION_KEY not in (config.spark_conf or {}):
        warn("executors are interruptible but decommissioning is not enabled: Spark would "
             "replace the executor container's lifecycle with its decommission hook",
             role=EXECUTOR, field="spec.containers[primary].lifecycle")
    return derived_conf(
        executors_interruptible=interruptible and not has_lifecycle,
        decommission_supported=spark_version_at_least(config.spark_version, 3, 1))


def _warn_decommission_lifecycle(conf: Mapping[str, str], executor: dict[str, Any],
                                 warn: Warn) -> None:
    container = primary_container(executor, CONTAINER_NAMES[EXECUTOR])
    if conf.get(_DECOMMISSION_KEY) == "true" and "lifecycle" in container:
        warn(f"{_DECOMMISSION_KEY} is true: Spark replaces the executor container's "
             "lifecycle with its decommission preStop hook", role=EXECUTOR,
             field="spec.containers[primary].lifecycle")

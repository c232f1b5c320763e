"""The two pod roles of a SparkApplication and what Spark owns in each.

The operator writes ``spec.driver.template`` / ``spec.executor.template`` to files and
passes them to spark-submit as ``spark.kubernetes.{driver,executor}.podTemplateFile``,
naming the Spark container ``spark-kubernetes-driver`` / ``spark-kubernetes-executor``
(``podTemplateContainerName``). Spark keeps every other container, every volume and every
pod field of the template, except the few declared below.
"""

from __future__ import annotations

import functools
from typing import Any

from podtemplate import FieldDecl, Role, RoleSpec

__all__ = [
    "DRIVER",
    "EXECUTOR",
    "CONTAINER_NAMES",
    "NATIVE_PREFIX",
    "RESERVED_LABELS",
    "native_decls",
    "owned_decls",
    "role_spec",
]

DRIVER, EXECUTOR = "driver", "executor"
CONTAINER_NAMES = {DRIVER: "spark-kubernetes-driver", EXECUTOR: "spark-kubernetes-executor"}
NATIVE_PREFIX = "native: "
_PRIMARY = "spec.containers[primary]"

_COMMON_OWNED = (
    FieldDecl("metadata.name", "runtime: Spark names the pods (<app>-driver, <app>-exec-<n>)"),
    FieldDecl("metadata.namespace", "runtime: Spark creates the pods in the application's "
              "namespace"),
    FieldDecl("spec.restartPolicy",
              "Spark runs the driver and executors once and sets restartPolicy Never; "
              "retries are the SparkApplication's spec.restartPolicy"),
    FieldDecl(f"{_PRIMARY}.name",
              "the operator tells Spark its container is spark-kubernetes-driver/-executor "
              "(podTemplateContainerName)"),
    FieldDecl(f"{_PRIMARY}.command",
              "runtime: the Spark image's entrypoint starts the driver/executor; Spark keeps a "
              "template command, which would bypass it, so the plugin removes it"),
    FieldDecl(f"{_PRIMARY}.args",
              "runtime: Spark appends its own arguments (driver --properties-file..., executor); "
              "application arguments go to spec.arguments"),
)
_EXECUTOR_OWNED = (
    FieldDecl("spec.hostname", "runtime: Spark sets each executor's hostname to its pod "
              "name"),
)
# Labels Spark sets for its own bookkeeping and refuses from configuration.
RESERVED_LABELS = {
    DRIVER: ("spark-app-selector", "spark-role"),
    EXECUTOR: ("spark-app-selector", "spark-role", "spark-exec-id",
               "spark-exec-resourceprofile-id"),
}


@functools.cache
def native_decls(role: str) -> tuple[FieldDecl, ...]:
    """Fields Spark overwrites from its configuration: they stay in the template and are
    also written in the operator's native form (reason ``native: <manifest path>``)."""
    at = f"spec.{role}"
    resources = f"{_PRIMARY}.resources"
    return (
        FieldDecl(f"{_PRIMARY}.image", f"{NATIVE_PREFIX}{at}.image"),
        FieldDecl(f"{_PRIMARY}.imagePullPolicy",
                  f"{NATIVE_PREFIX}spec.imagePullPolicy (one policy for driver and executors)"),
        FieldDecl(f"{resources}.requests.cpu",
                  f"{NATIVE_PREFIX}{at}.coreRequest (and {at}.cores: the cpu rounded up)"),
        FieldDecl(f"{resources}.limits.cpu", f"{NATIVE_PREFIX}{at}.coreLimit"),
        FieldDecl(f"{resources}.requests.memory",
                  f"{NATIVE_PREFIX}{at}.memory (in Spark's units; Spark adds memoryOverhead "
                  "to the pod's request and limit)"),
        FieldDecl(f"{resources}.limits.memory",
                  f"{NATIVE_PREFIX}{at}.memoryLimit (when it differs from the request)"),
        FieldDecl("spec.serviceAccountName", f"{NATIVE_PREFIX}{at}.serviceAccount"),
        FieldDecl("spec.serviceAccount", f"{NATIVE_PREFIX}{at}.serviceAccount"),
    )


@functools.cache
def owned_decls(role: str) -> tuple[FieldDecl, ...]:
    own = _COMMON_OWNED + (_EXECUTOR_OWNED if role == EXECUTOR else ())
    labels = tuple(FieldDecl(f"metadata.labels.{key}", "runtime: Spark's own bookkeeping "
                             "label; a template setting it is an error")
                   for key in RESERVED_LABELS[role])
    return own + labels + native_decls(role)


@functools.cache  # one per role, the same for every task (read only, like every layer)
def _operator_layer(role: str) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "restartPolicy": "Never",
        # None removes what a lower layer set: see the command/args declarations.
        "containers": [{"name": CONTAINER_NAMES[role], "command": None, "args": None}],
    }
    if role == EXECUTOR:
        spec["hostname"] = None
    return {"spec": spec}


def role_spec(role: str, config_role: Role | None) -> RoleSpec:
    return RoleSpec(
        name=role,
        template_path=f"spec.{role}.template",
        container_name=CONTAINER_NAMES[role],
        role=config_role,
        operator_layer=_operator_layer(role),
        owned=owned_decls(role),
        replicas_path="spec.executor.instances" if role == EXECUTOR else None,
        # As on Flyte (flyteplugins spark.go builds the driver with a non-interruptible
        # context): a task's interruptible=True puts the executors on interruptible
        # nodes, not the driver, whose loss fails the application; Role(interruptible=True)
        # opts the driver in.
        task_interruptible=role == EXECUTOR,
    )

"""The ``shell`` task type: one role; a Pod and its ConfigMap."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from podtemplate import (
    FieldDecl,
    PodTemplate,
    RenderContext,
    RoleSpec,
    Task,
    TaskType,
    pod_manifest,
)
from podtemplate.plugin import POD_ROLE, TaskTypePlugin, config_of, single_pod_role

from .config import ShellConfig
from .delivery import SCRIPT_DIR, SCRIPT_VOLUME, configmap_manifest, operator_layer
from .task import TASK_TYPE_NAME, ShellTask


def _owned(config: ShellConfig) -> tuple[FieldDecl, ...]:
    script = "holds the script: the ConfigMap the task renders beside its Pod"
    inputs = tuple(FieldDecl(f"spec.containers[primary].env[{name}]",
                             "a declared input: its default or --input value")
                   for name in config.inputs)
    return (
        FieldDecl(f"spec.volumes[{SCRIPT_VOLUME}]", script),
        FieldDecl(f"spec.containers[primary].volumeMounts[{SCRIPT_DIR}]", script),
        *inputs,
    )


class ShellType(TaskTypePlugin):
    task_type = TaskType(name=TASK_TYPE_NAME, distribution="podtemplate-shell",
                         config=ShellConfig,
                         description="a shell script in one v1 Pod, delivered in a ConfigMap")

    def define_roles(self, task: Task, context: RenderContext) -> list[RoleSpec]:
        config = config_of(task, ShellConfig)
        return [single_pod_role("shell", operator_layer=operator_layer(task, config, context),
                                owned=_owned(config))]

    def build(self, task: Task, roles: Sequence[RoleSpec], pods: Mapping[str, dict[str, Any]],
              context: RenderContext) -> list[dict[str, Any]]:
        config = config_of(task, ShellConfig)
        return [pod_manifest(task, pods[POD_ROLE], context),
                configmap_manifest(task, config, context)]

    def sample(self, pod_template: PodTemplate | None, pod_template_name: str | None,
               role_templates: Mapping[str, PodTemplate]) -> Task:
        return ShellTask(name="sample-shell", script='echo "hello $WHO"\n', image="busybox:1.36",
                         inputs={"WHO": "world"}, pod_template=pod_template,
                         pod_template_name=pod_template_name)

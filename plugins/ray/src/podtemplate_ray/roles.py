"""The pod roles of a Ray task: ``head``, ``worker:<group>`` per worker group and
``submitter``, with what KubeRay owns in each."""

from __future__ import annotations

from typing import Any

from podtemplate import DefinitionError, FieldDecl, RenderContext, Role, RoleSpec, Task
from podtemplate.plugin import DEFAULT_CONTAINER, StashKey

from .config import Ray, WorkerGroup
from .entrypoint import ray_entrypoint, submitter_command

__all__ = [
    "HEAD",
    "HEAD_CONTAINER",
    "HEAD_PATH",
    "HEAD_PORTS",
    "SUBMITTER",
    "SUBMITTER_CONTAINER",
    "SUBMITTER_PATH",
    "WORKER_CONTAINER",
    "ray_roles",
    "worker_path",
    "worker_role_name",
]

HEAD = "head"
SUBMITTER = "submitter"
HEAD_CONTAINER = "ray-head"
WORKER_CONTAINER = "ray-worker"
SUBMITTER_CONTAINER = "ray-job-submitter"  # the name of KubeRay's default submitter
HEAD_PATH = "spec.rayClusterSpec.headGroupSpec.template"
SUBMITTER_PATH = "spec.submitterPodTemplate"
# KubeRay's port names: its head Service exposes these container ports by name.
HEAD_PORTS = (
    {"name": "gcs-server", "containerPort": 6379, "protocol": "TCP"},
    {"name": "client", "containerPort": 10001, "protocol": "TCP"},
    {"name": "dashboard", "containerPort": 8265, "protocol": "TCP"},
)

# Kept on a task's Ray config, one per image: the submitter's role.
_SUBMITTER_ROLE = StashKey[Role]("the submitter role of a Ray config, per image")
_RAY_START = ("runtime: KubeRay writes the Ray container's command itself: `ray start` with the "
              "rayStartParams; a template command would run before it, so it is removed")
RAY_NODE_OWNED = (
    FieldDecl("spec.containers[primary].command", _RAY_START),
    FieldDecl("spec.containers[primary].args", _RAY_START),
)
SUBMITTER_OWNED = (
    FieldDecl("spec.containers[primary].command", "runs `ray job submit` with the entrypoint"),
    FieldDecl("spec.containers[primary].args", "runs `ray job submit` with the entrypoint"),
    FieldDecl("spec.restartPolicy", "the submitter is a Kubernetes Job pod; a failed "
              "submission is retried by the Job (submitterConfig.backoffLimit), not in place"),
)


def worker_role_name(group: WorkerGroup) -> str:
    """``worker:<group name as KubeRay gets it>`` (``worker:test-group``)."""
    return f"worker:{group.group_name}"


def worker_path(index: int) -> str:
    return f"spec.rayClusterSpec.workerGroupSpecs[{index}].template"


def ray_roles(task: Task, config: Ray, context: RenderContext) -> list[RoleSpec]:
    """Head, each worker group in order, then the submitter."""
    _check_task(task)
    entrypoint = ray_entrypoint(task, context)
    roles = [_head(config)]
    roles += [_worker(group, index) for index, group in enumerate(config.groups)]
    roles.append(_submitter(task, config, context, entrypoint))
    return roles


def _check_task(task: Task) -> None:
    if task.command is not None:
        raise DefinitionError(
            "command is not used by Ray tasks: the function runs as the RayJob entrypoint",
            task=task.name, field="command", fix="drop command")
    if task.task_config is None:  # a task built without a config: the defaults' rule
        Ray().check_task_name(task.object_name)


def _ray_node_layer(container: str, **fields: Any) -> dict[str, Any]:
    """Operator layer of a Ray node: the Ray container, with the command and args of
    lower layers removed (``None`` deletes in the merge)."""
    return {"spec": {"containers": [{"name": container, "command": None, "args": None,
                                     **fields}]}}


def _head(config: Ray) -> RoleSpec:
    layer = _ray_node_layer(HEAD_CONTAINER, ports=[dict(port) for port in HEAD_PORTS])
    return RoleSpec(name=HEAD, template_path=HEAD_PATH, container_name=HEAD_CONTAINER,
                    role=config.head, operator_layer=layer, owned=RAY_NODE_OWNED)


def _worker(group: WorkerGroup, index: int) -> RoleSpec:
    return RoleSpec(name=worker_role_name(group), template_path=worker_path(index),
                    container_name=WORKER_CONTAINER, role=group,
                    operator_layer=_ray_node_layer(WORKER_CONTAINER), owned=RAY_NODE_OWNED,
                    replicas_path=f"spec.rayClusterSpec.workerGroupSpecs[{index}].replicas")


def _submitter(task: Task, config: Ray, context: RenderContext, entrypoint: str) -> RoleSpec:
    command, args = submitter_command(entrypoint, config.runtime_env)
    layer = {"spec": {"restartPolicy": "Never", "containers": [
        {"name": SUBMITTER_CONTAINER, "command": command, "args": args}]}}
    return RoleSpec(name=SUBMITTER, template_path=SUBMITTER_PATH,
                    container_name=SUBMITTER_CONTAINER,
                    role=_submitter_role(task, config, context), operator_layer=layer,
                    owned=SUBMITTER_OWNED, inherit="scheduling")


def _submitter_role(task: Task, config: Ray, context: RenderContext) -> Role:
    """The submitter's role, with an image: it needs the ``ray`` CLI, and it takes no task
    settings. Its own image (role or role template) wins, else the head's, else the task's,
    else the platform default - the image the head runs, as KubeRay's default submitter."""
    role = config.submitter or Role()
    if role.image or _sets_image(role):
        return role
    head_image = config.head.image if config.head is not None else None
    image = head_image or task.image or context.platform_settings.default_image
    if not image:
        return role
    # Kept on the config, one per image: the same role every render, so what core
    # compiles from its layers is kept too.
    return config.compiled(_SUBMITTER_ROLE, lambda: role.model_copy(update={"image": image}),
                           image)


def _sets_image(role: Role) -> bool:
    template = role.pod_template
    if template is None:
        return False
    primary = {template.primary_container_name, SUBMITTER_CONTAINER, DEFAULT_CONTAINER}
    return any(c.get("name") in primary and c.get("image")
               for c in template.pod_spec.get("containers") or ())

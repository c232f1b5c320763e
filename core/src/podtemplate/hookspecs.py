"""The hook specification of podtemplate.

Every hook is called only through the typed functions of :mod:`podtemplate.dispatch`; a
plugin implements the hooks it needs with ``@podtemplate.hookimpl``. Built-in features (the
Python task type, the folder template store) are plugins on these same hooks.

Core remembers which plugin declared each task type. The hooks about one task
(``define_roles``, ``build_manifests``, ``make_sample_task``) are called on that plugin
alone: a hook body never has to ask whether the task is its own. ``check_manifest`` is
called on the task's own plugin and on every plugin that declares no task type;
``make_template_store`` on every plugin.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from .context import RenderContext
    from .files.store import TemplateStore
    from .model.roles import RoleSpec, TaskType
    from .model.task import Task
    from .model.templates import PodTemplate
    from .policy import PolicySubject, Violation

__all__ = ["hookspec", "hookimpl", "PROJECT"]

PROJECT = "podtemplate"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def podtemplate_add_task_types() -> Sequence[TaskType]:
    """Declare the task types this plugin provides.

    Called once, when the plugin manager is built. Takes no arguments. Returns a sequence
    of :class:`~podtemplate.model.roles.TaskType` (empty for a plugin that adds no task type).
    Two plugins declaring the same name is an error. Must not mutate anything.
    """
    raise NotImplementedError


@hookspec(firstresult=True)
def podtemplate_define_roles(task: Task, context: RenderContext) -> Sequence[RoleSpec]:
    """Declare the pod roles of ``task``.

    Called once per task per render, before any pod is resolved. ``task`` is the task
    being rendered, ``context`` the render context (platform, store, warnings). Returns
    the task's :class:`~podtemplate.model.roles.RoleSpec` list in manifest order. Called
    only on the plugin that declared ``task.task_type``. Must not mutate ``task`` or
    ``context``; may call ``context.warn``.
    """
    raise NotImplementedError


@hookspec(firstresult=True)
def podtemplate_build_manifests(
    task: Task,
    roles: Sequence[RoleSpec],
    pods: Mapping[str, dict[str, Any]],
    context: RenderContext,
) -> list[dict[str, Any]]:
    """Assemble the manifests of ``task`` from its resolved role pods.

    Called once per task per render, after every role in ``roles`` was resolved through
    all layers. ``pods`` maps role name to its final PodTemplateSpec dict
    (``{"metadata": {...}, "spec": {...}}``); the plugin owns these dicts and may place
    them into its manifest as they are (no copy needed) or mutate them. Returns the list
    of manifests (the task's main object first). Called only on the plugin that declared
    ``task.task_type``. Must not mutate ``task``; may call ``context.warn``.
    """
    raise NotImplementedError


@hookspec(firstresult=True)
def podtemplate_make_template_store(context: RenderContext) -> TemplateStore | None:
    """Provide the store that cluster templates are looked up in.

    Called at most once per render, the first time a template is needed. Returns a
    :class:`~podtemplate.files.store.TemplateStore`, or None to let the next plugin answer (the
    built-in folder store answers when ``context.platform.templates`` is a folder, the
    built-in cluster store when it is ``cluster``). Must not
    mutate ``context``.
    """
    raise NotImplementedError


@hookspec
def podtemplate_check_manifest(
    task: Task,
    manifest: Mapping[str, Any],
    pods: Mapping[str, Mapping[str, Any]],
    context: RenderContext,
) -> Sequence[str] | None:
    """Check one rendered manifest before it is output.

    Called for every manifest of a task, after the build, on the plugin of the task's type
    and on every plugin that declares no task type (a policy). ``pods`` are the role pods
    handed to the build, by role name: core validated each strictly when it resolved it,
    so a plugin whose build places a pod unchanged need not validate that object again
    (the build may have mutated them, which only the plugin knows). Returns a list of
    problem descriptions (each one line, naming the field path and the fix) that fail the
    render, or None/empty when the manifest is fine. Must not mutate its arguments; may
    call ``context.warn`` for problems that should not fail the render.
    """
    raise NotImplementedError


@hookspec
def podtemplate_check_policy(subject: PolicySubject, context: RenderContext
                             ) -> Sequence[Violation] | None:
    """Judge one role's final pod against the platform's policy (an organisation's own
    rules beside the built-in ones).

    Called for every role of every task once the role's pod is resolved through every
    layer, the policy's ``enforce`` included, and for each pod of an existing manifest
    (:func:`podtemplate.policy.manifests.check_manifests`); every plugin is called
    (broadcast). The
    built-in checks (Pod Security Standards, allowed registries, resource ceilings,
    locked fields) are a plugin on this same hook. ``subject`` carries the task and
    role names, the final PodTemplateSpec dict (``subject.pod``), the policy
    (``subject.policy``, platform.yaml's ``policy:``) and ``subject.provenance``, which
    says which layer and file set each field path (computed on first use). Returns
    :class:`~podtemplate.policy.Violation` objects (field path, rule, value, fix), or
    None/empty when the pod passes; core fills in task, role and the layer that set
    the value. Every violation of a render is reported, and any fails it. Must not
    mutate its arguments.
    """
    raise NotImplementedError


@hookspec(firstresult=True)
def podtemplate_make_sample_task(
    task_type: str,
    pod_template: PodTemplate | None,
    pod_template_name: str | None,
    role_templates: Mapping[str, PodTemplate],
) -> Task:
    """Build a small, valid task of ``task_type`` for the conformance kit and
    ``podtemplate coverage``.

    Called by the kit once per probe layer. ``pod_template`` is the task's inline template
    (layer 2), ``pod_template_name`` the cluster template to name (layer 1),
    ``role_templates`` maps role names to role templates (layer 5; empty for a type
    without roles). Every role the type declares must appear in the task. Returns the
    task. Called only on the plugin that declared ``task_type``. Must not mutate its
    arguments.
    """
    raise NotImplementedError

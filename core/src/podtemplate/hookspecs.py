"""The hook specification of podtemplate.

A plugin implements the hooks it needs with ``@podtemplate.hookimpl``; the built-in
features (the ``python`` task type, the folder template store, the built-in policy
checks) are plugins on these same hooks. A task type's plugin is usually a subclass of
:class:`podtemplate.plugin.TaskTypePlugin`, whose hook implementations (``add_task_types``,
``define_roles``, ``build_manifests``, ``make_sample_task``) forward to its methods. Core
calls every hook through pluggy (:mod:`podtemplate.dispatch`), so pluggy's tracing and
hook-call monitoring see each call.

Who is called: the hooks about one task (``define_roles``, ``build_manifests``,
``make_sample_task``) reach only the plugin that declared the task's type, so a hook body
never asks whether the task is its own; ``check_manifest`` reaches that plugin and every
plugin that declares no task type; the other hooks reach every plugin.

Ownership, one rule for every hook: **what a hook receives as its own, the plugin owns**.
The pods and the list of roles a build is handed, the ``role_templates`` mapping of a
sample task: the plugin may change anything in them, with no effect on any template,
other role, other task or later render (core hands over copies). What a hook receives
without owning it is named in its docstring (the task, the render context, what a check
judges): it must not change those. What ``podtemplate.render()`` returns is its caller's
in the same way.
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


# -------------------------------------------------------------------- installation


@hookspec
def podtemplate_add_task_types() -> Sequence[TaskType]:
    """Called once, when the plugin manager is built, to declare the task types this
    plugin provides.

    :returns: a sequence of :class:`~podtemplate.model.roles.TaskType`, empty for a
        plugin that adds no task type. Two plugins declaring one name is an error.
    """
    raise NotImplementedError


# -------------------------------------------------------------------- one task's render


@hookspec(firstresult=True)
def podtemplate_define_roles(task: Task, context: RenderContext) -> Sequence[RoleSpec]:
    """Called once per task per render, before any pod is resolved, on the plugin that
    declared ``task.task_type`` alone, to declare the task's pod roles.

    :param task: the task being rendered; not the plugin's: must not be changed.
    :param context: the render context (platform, store, settings); read it, and report
        problems that do not fail the render with ``context.warn``.
    :returns: the task's :class:`~podtemplate.model.roles.RoleSpec` list, in manifest
        order. None or an empty list fails the render (the plugin declared no role).
    """
    raise NotImplementedError


@hookspec(firstresult=True)
def podtemplate_build_manifests(
    task: Task,
    roles: Sequence[RoleSpec],
    pods: Mapping[str, dict[str, Any]],
    context: RenderContext,
) -> list[dict[str, Any]]:
    """Called once per task per render, after every role was resolved through all
    layers and judged by the policy, on the plugin that declared ``task.task_type``
    alone, to assemble the task's manifests.

    :param task: the task being rendered; not the plugin's: must not be changed.
    :param roles: the roles ``podtemplate_define_roles`` declared, in a list the plugin
        owns.
    :param pods: each role's final PodTemplateSpec dict (``{"metadata": ..., "spec":
        ...}``) by role name. The plugin owns them: it may place them into its manifests
        as they are, change them in place, or copy them; nothing else shares them.
    :param context: the render context; report problems that do not fail the render
        with ``context.warn``.
    :returns: the list of manifests, the task's main object first. Core then judges the
        pods it finds in them at each role's ``template_path``, as they will be written:
        the API server's pod rules, every field the build changed or added (names,
        types, values), the rest of each object as the API server checks it (its own
        metadata, a ``v1 Pod`` that is no role's, a ``v1 ConfigMap``), the CRDs of the
        task type, and ``podtemplate_check_manifest``.
        None fails the render (the plugin built nothing).
    """
    raise NotImplementedError


@hookspec
def podtemplate_check_manifest(
    task: Task,
    manifest: Mapping[str, Any],
    pods: Mapping[str, Mapping[str, Any]],
    context: RenderContext,
) -> Sequence[str] | None:
    """Called for every manifest of a task, after core's own checks of what the build
    returned, on the plugin of the task's type and on every plugin that declares no
    task type (a policy), to check one manifest before it is output.

    :param task: the task being rendered; must not be changed.
    :param manifest: the manifest, as it will be written; must not be changed.
    :param pods: each role's pod as it sits in the manifests (found at its
        ``template_path``), by role name; core has judged each against the API server's
        rules already. Must not be changed.
    :param context: the render context; problems that should not fail the render go
        to ``context.warn``.
    :returns: one line per problem (naming the field path and the fix); any fails the
        render. None or an empty list: the manifest is fine.
    """
    raise NotImplementedError


@hookspec
def podtemplate_check_policy(subject: PolicySubject, context: RenderContext
                             ) -> Sequence[Violation] | None:
    """Called for every role of every task once its pod is resolved through every layer
    (the policy's ``enforce`` included), and for each pod of an existing manifest
    (:func:`podtemplate.policy.manifests.check_manifests`), on every plugin, to judge
    the pod against the platform's policy. The built-in checks (Pod Security
    Standards, allowed registries, resource ceilings, locked fields) are a plugin on
    this hook; when they are its only implementation and the platform sets no policy,
    a render does not call it (they would find nothing), so hook-call monitoring sees
    no call then.

    :param subject: the task and role names, the final PodTemplateSpec dict
        (``subject.pod``), the policy (``subject.policy``, platform.yaml's ``policy:``)
        and ``subject.provenance``, which says which layer and file set each field path
        (computed on first use). Must not be changed.
    :param context: the render context; must not be changed.
    :returns: :class:`~podtemplate.policy.Violation` objects (field path, rule, value,
        fix); core fills in task, role and the layer that set the value. Every
        violation of a render is reported, and any fails it. None or an empty list: the
        pod passes.
    """
    raise NotImplementedError


# -------------------------------------------------------------------- services


@hookspec(firstresult=True)
def podtemplate_make_template_store(context: RenderContext) -> TemplateStore | None:
    """Called at most once per render, the first time a template is needed, on every
    plugin until one answers, to provide the store cluster templates are looked up in.
    Stops at the first non-None result.

    :param context: the render context; must not be changed.
    :returns: a :class:`~podtemplate.files.store.TemplateStore`. None lets the next
        plugin answer (the built-in folder store answers when
        ``context.platform.templates`` is a folder, the built-in cluster store when it
        is ``cluster``).
    """
    raise NotImplementedError


@hookspec(firstresult=True)
def podtemplate_make_sample_task(
    task_type: str,
    pod_template: PodTemplate | None,
    pod_template_name: str | None,
    role_templates: Mapping[str, PodTemplate],
) -> Task:
    """Called by the conformance kit once per probe layer and by ``podtemplate
    coverage``, on the plugin that declared ``task_type`` alone, to build a small,
    valid task of that type.

    :param task_type: the name of the task type.
    :param pod_template: the task's inline template (layer 2), or None.
    :param pod_template_name: the cluster template to name (layer 1), or None.
    :param role_templates: role templates by role name (layer 5; empty for a type
        without roles), in a mapping the plugin owns. The templates themselves are the
        kit's: must not be changed.
    :returns: the task; every role the type declares must appear in it. None fails
        (the plugin makes no sample task).
    """
    raise NotImplementedError

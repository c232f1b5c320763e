"""The class a task type's plugin subclasses: its :class:`TaskType` and three methods.

The hook implementations live here, once: each forwards one hook of
:mod:`podtemplate.hookspecs` to a method of the subclass, so a plugin's ``plugin.py`` is a
class and little else, and every call still goes through pluggy (tracing and
``add_hookcall_monitoring`` see it). The hook specs stay the contract: what a method is
handed, when it is called and what it returns are written there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from ..hookspecs import hookimpl

if TYPE_CHECKING:
    from ..context import RenderContext
    from .roles import RoleSpec, TaskType
    from .task import Task
    from .templates import PodTemplate

__all__ = ["TaskTypePlugin"]


class TaskTypePlugin:
    """A task type as a plugin: set :attr:`task_type`, write :meth:`define_roles`,
    :meth:`build` and :meth:`sample`, and name the class as the entry point
    (``[project.entry-points.podtemplate] sweep = "podtemplate_sweep.plugin:SweepType"``).
    Core makes one instance and registers it with pluggy; the methods below are called
    for tasks of this type alone. A subclass may implement any other hook of
    :mod:`podtemplate.hookspecs` as a method marked ``@hookimpl``
    (``podtemplate_check_manifest``, say)."""

    #: The facts of the type: its name (the entry point's name), distribution, manifest
    #: kind, config class, CRDs, settings and variants.
    task_type: ClassVar[TaskType]

    def define_roles(self, task: Task, context: RenderContext) -> list[RoleSpec]:
        """The task's pod roles, in manifest order (``podtemplate_define_roles``)."""
        raise NotImplementedError

    def build(self, task: Task, roles: Sequence[RoleSpec], pods: Mapping[str, dict[str, Any]],
              context: RenderContext) -> list[dict[str, Any]]:
        """The task's manifests, its main object first, holding each role's pod at the
        role's ``template_path`` (``podtemplate_build_manifests``)."""
        raise NotImplementedError

    def sample(self, pod_template: PodTemplate | None, pod_template_name: str | None,
               role_templates: Mapping[str, PodTemplate]) -> Task:
        """A small valid task of this type carrying the given templates
        (``podtemplate_make_sample_task``)."""
        raise NotImplementedError

    # The hook implementations: one line each, forwarding to the methods above.

    @hookimpl
    def podtemplate_add_task_types(self) -> Sequence[TaskType]:
        return [self.task_type]

    @hookimpl
    def podtemplate_define_roles(self, task: Task, context: RenderContext) -> list[RoleSpec]:
        return self.define_roles(task, context)

    @hookimpl
    def podtemplate_build_manifests(self, task: Task, roles: Sequence[RoleSpec],
                                    pods: Mapping[str, dict[str, Any]],
                                    context: RenderContext) -> list[dict[str, Any]]:
        return self.build(task, roles, pods, context)

    @hookimpl
    def podtemplate_make_sample_task(self, task_type: str, pod_template: PodTemplate | None,
                                     pod_template_name: str | None,
                                     role_templates: Mapping[str, PodTemplate]) -> Task:
        return self.sample(pod_template, pod_template_name, role_templates)

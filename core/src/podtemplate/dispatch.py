"""The plugin manager and the typed functions through which every hook is called."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import TYPE_CHECKING, Any

import pluggy

from . import hookspecs
from .errors import MissingPluginError, PluginError

if TYPE_CHECKING:
    from .context import RenderContext
    from .model.roles import RoleSpec, TaskType
    from .model.task import Task

__all__ = [
    "PluginInfo",
    "build_plugin_manager",
    "task_types",
    "plugin_infos",
    "define_roles",
    "build_manifests",
    "check_manifest",
]

ENTRY_POINT_GROUP = "podtemplate"


@dataclass(frozen=True)
class PluginInfo:
    name: str
    distribution: str
    version: str
    task_types: tuple[TaskType, ...]


def build_plugin_manager(extra_plugins: Iterable[object] = (), *,
                         load_entry_points: bool = True) -> pluggy.PluginManager:
    """Build a manager with the hook spec, the built-in plugins, every plugin installed
    under the ``podtemplate`` entry-point group and ``extra_plugins`` (tests use these).
    Hook implementations that match no spec fail here, not at call time."""
    from .files import builtin_store

    manager = pluggy.PluginManager(hookspecs.PROJECT)
    manager.add_hookspecs(hookspecs)
    manager.register(builtin_store, name="builtin-folder-store")
    if load_entry_points:
        manager.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
    for plugin in extra_plugins:
        manager.register(plugin)
    manager.check_pending()
    _index_task_types(manager)
    return manager


def _index_task_types(manager: pluggy.PluginManager) -> None:
    by_name: dict[str, TaskType] = {}
    for declared in manager.hook.podtemplate_add_task_types():
        for task_type in declared:
            if task_type.name in by_name:
                raise PluginError(
                    f"task type {task_type.name!r} is provided by both "
                    f"{by_name[task_type.name].distribution} and {task_type.distribution}",
                    fix="uninstall one of the two distributions")
            by_name[task_type.name] = task_type
    manager.podtemplate_task_types = by_name  # type: ignore[attr-defined]


def task_types(manager: pluggy.PluginManager) -> Mapping[str, TaskType]:
    """Installed task types by name."""
    return manager.podtemplate_task_types  # type: ignore[attr-defined,no-any-return]


def plugin_infos(manager: pluggy.PluginManager) -> list[PluginInfo]:
    """What is installed: each plugin's distribution, version and task types."""
    infos = []
    dists = {plugin: dist for plugin, dist in manager.list_plugin_distinfo()}
    for name, plugin in sorted(manager.list_name_plugin(), key=lambda item: item[0]):
        dist = dists.get(plugin)
        declared = tuple(getattr(plugin, "podtemplate_add_task_types", lambda: ())())
        infos.append(PluginInfo(
            name=name,
            distribution=dist.project_name if dist else "podtemplate (built in)",
            version=dist.version if dist else metadata.version("podtemplate"),
            task_types=declared,
        ))
    return infos


def require_task_type(manager: pluggy.PluginManager, task: Task) -> TaskType:
    try:
        return task_types(manager)[task.task_type]
    except KeyError:
        raise MissingPluginError(
            f"task type {task.task_type!r} is not installed",
            fix=f"pip install podtemplate-{task.task_type}",
            task=task.name) from None


def define_roles(task: Task, context: RenderContext) -> list[RoleSpec]:
    require_task_type(context.plugin_manager, task)
    roles = context.plugin_manager.hook.podtemplate_define_roles(task=task, context=context)
    if not roles:
        raise PluginError(f"no plugin declared the roles of task type {task.task_type!r}",
                          task=task.name, fix="reinstall the plugin of this task type")
    return list(roles)


def build_manifests(task: Task, roles: Sequence[RoleSpec], pods: Mapping[str, dict[str, Any]],
                    context: RenderContext) -> list[dict[str, Any]]:
    manifests = context.plugin_manager.hook.podtemplate_build_manifests(
        task=task, roles=roles, pods=pods, context=context)
    if manifests is None:
        raise PluginError(f"no plugin built the manifests of task type {task.task_type!r}",
                          task=task.name, fix="reinstall the plugin of this task type")
    return list(manifests)


def check_manifest(task: Task, manifest: Mapping[str, Any],
                   pods: Mapping[str, Mapping[str, Any]], context: RenderContext) -> list[str]:
    results = context.plugin_manager.hook.podtemplate_check_manifest(
        task=task, manifest=manifest, pods=pods, context=context)
    return [problem for problems in results if problems for problem in problems]

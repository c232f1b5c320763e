"""The plugin manager, the registry of task types and the dispatch of every hook call.

Core remembers which plugin declared each task type. The hooks about one task (its roles,
its manifests, its sample task) are then called on that plugin alone, so a hook body never
asks whether the task is its own. :data:`PER_TASK_HOOKS` names them; the other hooks are
broadcast: every template store plugin may answer, and every plugin that declares no task
type checks every manifest (a task-type plugin checks only its own tasks' manifests).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from typing import TYPE_CHECKING, Any, cast

import pluggy
from pluggy import HookImpl

from . import hookspecs
from .errors import MissingPluginError, PluginError
from .model.roles import config_of

if TYPE_CHECKING:
    from .context import RenderContext
    from .model.roles import RoleSpec, TaskType
    from .model.task import Task
    from .model.templates import PodTemplate

__all__ = [
    "PER_TASK_HOOKS",
    "PluginInfo",
    "build_manifests",
    "build_plugin_manager",
    "check_manifest",
    "define_roles",
    "make_sample_task",
    "plugin_infos",
    "require_task_type",
    "task_types",
]

ENTRY_POINT_GROUP = "podtemplate"
# Called on the plugin that declared the task's type, and on no other.
PER_TASK_HOOKS = (
    "podtemplate_define_roles",
    "podtemplate_build_manifests",
    "podtemplate_make_sample_task",
)
_REGISTRY = "podtemplate_registry"  # the manager attribute holding the registry


@dataclass(frozen=True)
class PluginInfo:
    name: str
    distribution: str
    version: str
    task_types: tuple[TaskType, ...]


class _Implementations:
    """The chosen implementations of one hook, called as pluggy calls them (last
    registered first, each with the arguments it declares) without filtering the hook's
    implementations again on every call: these hooks run once or more per task."""

    def __init__(self, impls: Sequence[HookImpl], firstresult: bool) -> None:
        self._calls = [(impl.function, impl.argnames) for impl in reversed(impls)]
        self._firstresult = firstresult

    def __call__(self, **kwargs: Any) -> Any:
        results = []
        for function, argnames in self._calls:
            result = function(*[kwargs[name] for name in argnames])
            if result is not None:
                if self._firstresult:
                    return result
                results.append(result)
        return None if self._firstresult else results


@dataclass
class _Registry:
    """Each task type, the plugin that declared it, and its hook callers (made once)."""

    manager: pluggy.PluginManager
    task_types: dict[str, TaskType] = field(default_factory=dict)
    owners: dict[str, object] = field(default_factory=dict)
    _callers: dict[tuple[str, str], Any] = field(default_factory=dict)

    def caller(self, hook: str, task_type: str) -> Any:
        """The caller of ``hook`` for tasks of ``task_type``, chosen once per (hook, task
        type). A per-task hook is the owner's implementation alone; a broadcast hook
        leaves out only the plugins of other task types."""
        key = (hook, task_type)
        found = self._callers.get(key)
        if found is None:
            found = self._callers[key] = self._make_caller(hook, self.owners[task_type])
        return found

    def _make_caller(self, hook: str, owner: object) -> Any:
        if hook in PER_TASK_HOOKS:
            left_out = [p for p in self.manager.get_plugins() if p is not owner]
        else:
            left_out = [p for p in set(self.owners.values()) if p is not owner]
        caller = getattr(self.manager.hook, hook)
        out = {id(plugin) for plugin in left_out}
        impls = [impl for impl in caller.get_hookimpls() if id(impl.plugin) not in out]
        if any(impl.hookwrapper or impl.wrapper for impl in impls):
            return self.manager.subset_hook_caller(hook, left_out)  # pluggy runs wrappers
        firstresult = bool(caller.spec is not None and caller.spec.opts.get("firstresult"))
        return _Implementations(impls, firstresult)


def build_plugin_manager(extra_plugins: Iterable[object] = (), *,
                         load_entry_points: bool = True) -> pluggy.PluginManager:
    """Build a manager with the hook spec, the built-in plugins, every plugin installed
    under the ``podtemplate`` entry-point group and ``extra_plugins`` (tests use these).
    Hook implementations that match no spec fail here, not at call time."""
    from .cluster import store as cluster_store
    from .files import builtin_store
    from .policy import builtin as builtin_policy
    from .policy.engine import BUILTIN_POLICY_PLUGIN

    manager = pluggy.PluginManager(hookspecs.PROJECT)
    manager.add_hookspecs(hookspecs)
    manager.register(builtin_store, name="builtin-folder-store")
    manager.register(cluster_store, name="builtin-cluster-store")
    manager.register(builtin_policy, name=BUILTIN_POLICY_PLUGIN)
    if load_entry_points:
        manager.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
    for plugin in extra_plugins:
        manager.register(plugin)
    manager.check_pending()
    setattr(manager, _REGISTRY, _index_task_types(manager))
    return manager


def _index_task_types(manager: pluggy.PluginManager) -> _Registry:
    registry = _Registry(manager)
    by_name = registry.task_types
    for impl in reversed(manager.hook.podtemplate_add_task_types.get_hookimpls()):
        declared = cast("Sequence[TaskType]", impl.function())
        for task_type in declared:
            if task_type.name in by_name:
                raise PluginError(
                    f"task type {task_type.name!r} is provided by both "
                    f"{by_name[task_type.name].distribution} and {task_type.distribution}",
                    fix="uninstall one of the two distributions")
            by_name[task_type.name] = task_type
            registry.owners[task_type.name] = impl.plugin
    return registry


def _registry(manager: pluggy.PluginManager) -> _Registry:
    registry: _Registry = getattr(manager, _REGISTRY)
    return registry


def task_types(manager: pluggy.PluginManager) -> Mapping[str, TaskType]:
    """Installed task types by name."""
    return _registry(manager).task_types


def plugin_infos(manager: pluggy.PluginManager) -> list[PluginInfo]:
    """What is installed: each plugin's distribution, version and task types."""
    infos = []
    registry = _registry(manager)
    dists = {plugin: dist for plugin, dist in manager.list_plugin_distinfo()}
    for name, plugin in sorted(manager.list_name_plugin(), key=lambda item: item[0]):
        dist = dists.get(plugin)
        declared = tuple(registry.task_types[type_name]
                         for type_name, owner in registry.owners.items() if owner is plugin)
        infos.append(PluginInfo(
            name=name,
            distribution=dist.project_name if dist else "podtemplate (built in)",
            version=dist.version if dist else metadata.version("podtemplate"),
            task_types=declared,
        ))
    return infos


def require_task_type(manager: pluggy.PluginManager, task: Task) -> TaskType:
    """The task's type; an error naming the distribution to install when it is absent, or
    the config class to pass when the task's config is not the type's."""
    try:
        task_type = task_types(manager)[task.task_type]
    except KeyError:
        raise MissingPluginError(
            f"task type {task.task_type!r} is not installed",
            fix=f"pip install podtemplate-{task.task_type}",
            task=task.name) from None
    if task_type.config is not None and task.task_config is not None:
        config_of(task, task_type.config)
    return task_type


def define_roles(task: Task, context: RenderContext) -> list[RoleSpec]:
    require_task_type(context.plugin_manager, task)
    hook = _registry(context.plugin_manager).caller("podtemplate_define_roles", task.task_type)
    roles = hook(task=task, context=context)
    if not roles:
        raise PluginError(f"no plugin declared the roles of task type {task.task_type!r}",
                          task=task.name, fix="reinstall the plugin of this task type")
    return list(roles)


def build_manifests(task: Task, roles: Sequence[RoleSpec], pods: Mapping[str, dict[str, Any]],
                    context: RenderContext) -> list[dict[str, Any]]:
    hook = _registry(context.plugin_manager).caller("podtemplate_build_manifests",
                                                    task.task_type)
    manifests = hook(task=task, roles=roles, pods=pods, context=context)
    if manifests is None:
        raise PluginError(f"no plugin built the manifests of task type {task.task_type!r}",
                          task=task.name, fix="reinstall the plugin of this task type")
    return list(manifests)


def check_manifest(task: Task, manifest: Mapping[str, Any],
                   pods: Mapping[str, Mapping[str, Any]], context: RenderContext) -> list[str]:
    hook = _registry(context.plugin_manager).caller("podtemplate_check_manifest",
                                                    task.task_type)
    results = hook(task=task, manifest=manifest, pods=pods, context=context)
    return [problem for problems in results if problems for problem in problems]


def make_sample_task(manager: pluggy.PluginManager, task_type: str, *,
                     pod_template: PodTemplate | None = None,
                     pod_template_name: str | None = None,
                     role_templates: Mapping[str, PodTemplate] | None = None) -> Task:
    """The sample task of ``task_type``, made by its plugin (for the conformance kit and
    ``podtemplate coverage``)."""
    registry = _registry(manager)
    if task_type not in registry.task_types:
        raise MissingPluginError(f"task type {task_type!r} is not installed",
                                 fix=f"pip install podtemplate-{task_type}")
    hook = registry.caller("podtemplate_make_sample_task", task_type)
    task: Task | None = hook(task_type=task_type, pod_template=pod_template,
                             pod_template_name=pod_template_name,
                             role_templates=dict(role_templates or {}))
    if task is None:
        raise PluginError(f"no plugin makes a sample task of type {task_type!r}",
                          fix="implement the podtemplate_make_sample_task hook")
    return task

"""The plugin manager, the task types its plugins declare, and the typed calls of every
hook about one task.

Built-in features are plugins loaded by one path: :data:`BUILTIN_PLUGINS` names them as an
entry point's value does (``module`` or ``module:Class``), registered like any plugin
before the ``podtemplate`` entry points (pytest's ``default_plugins``); a plugin named by
its class (a :class:`~podtemplate.model.tasktype.TaskTypePlugin`) is registered as one
instance of it. Every hook call goes through pluggy's own machinery, so
``PluginManager.enable_tracing`` and ``add_hookcall_monitoring`` see all of them.

The hooks about one task (:data:`PER_TASK_HOOKS`) reach only the plugin that declared its
type, through a pluggy subset hook caller made once per hook and task type: a hook body
never asks whether the task is its own. ``podtemplate_check_manifest`` reaches the task
type's plugin and every plugin that declares no task type (a policy); the other hooks are
broadcast.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import pluggy

from . import hookspecs
from .errors import MissingPluginError, PluginError
from .files.entrypoints import InstalledEntryPoint, entry_points
from .model.roles import config_of

if TYPE_CHECKING:
    from .context import RenderContext
    from .model.roles import RoleSpec, TaskType
    from .model.task import Task
    from .model.templates import PodTemplate

__all__ = [
    "BUILTIN_PLUGINS",
    "PER_TASK_HOOKS",
    "PluginInfo",
    "PluginManager",
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
# The built-in plugins, registered under their module names before any other plugin.
BUILTIN_PLUGINS = (
    "podtemplate.python_task:PythonType",  # the ``python`` task type
    "podtemplate.files.builtin_store",  # the template folder of platform.yaml
    "podtemplate.cluster.store",  # templates: cluster (v1 PodTemplate objects)
    "podtemplate.policy.builtin",  # the built-in policy checks
)
# Called on the plugin that declared the task's type, and on no other.
PER_TASK_HOOKS = (
    "podtemplate_define_roles",
    "podtemplate_build_manifests",
    "podtemplate_make_sample_task",
)


class PluginInfo(NamedTuple):
    name: str
    distribution: str
    version: str
    task_types: tuple[TaskType, ...]


class PluginManager(pluggy.PluginManager):
    """pluggy's plugin manager for the podtemplate hook spec, knowing each installed task
    type and the plugin that declared it (:meth:`index_task_types`).

    A task type installed by an entry point that names a class is imported on first use
    (:meth:`task_type`): until then only its entry point is known (:attr:`installed`),
    so a render imports the plugins of its own tasks' types and no other; what needs
    every type (:func:`task_types`) loads them all."""

    def __init__(self) -> None:
        super().__init__(hookspecs.PROJECT)
        self.add_hookspecs(hookspecs)
        self.task_types: dict[str, TaskType] = {}
        self.owners: dict[str, object] = {}  # task type name -> the plugin declaring it
        # Task types installed and not imported yet: their entry points, by name.
        self.installed: dict[str, InstalledEntryPoint] = {}
        self._callers: dict[tuple[str, str], pluggy.HookCaller] = {}
        # plugin name -> the entry point that installed it (its distribution's name, version)
        self.entry_points: dict[str, InstalledEntryPoint] = {}

    def load(self, name: str, value: str | InstalledEntryPoint) -> None:
        """Import the plugin ``value`` names (``module`` or ``module:attribute``, as an
        entry point's value) and register it as ``name``: a class as one instance of it."""
        point = (value if isinstance(value, InstalledEntryPoint)
                 else InstalledEntryPoint(name, value, ENTRY_POINT_GROUP, None))
        plugin = point.load()
        self.register(plugin() if isinstance(plugin, type) else plugin, name=name)
        if isinstance(value, InstalledEntryPoint):
            self.entry_points[name] = value

    def load_entry_points(self) -> None:
        """Know every plugin installed under the ``podtemplate`` entry-point group, but a
        blocked one or one whose name is taken: one that names a class is a task type of
        the entry point's name, imported on first use; one that names a module (a
        policy, a store, a task type in the older form) is imported now."""
        for point in entry_points(ENTRY_POINT_GROUP):
            if self.get_plugin(point.name) is not None or self.is_blocked(point.name):
                continue
            if point.attr:
                self.installed.setdefault(point.name, point)
            else:
                self.load(point.name, point)

    def task_type(self, name: str) -> TaskType | None:
        """The task type ``name``, its plugin imported now if it was not; None when no
        installed plugin provides it."""
        if name not in self.task_types and name in self.installed:
            self._load_task_type(name)
        return self.task_types.get(name)

    def installed_names(self) -> set[str]:
        """The name of every installed task type, no plugin imported."""
        return {*self.task_types, *self.installed}

    def load_all(self) -> Mapping[str, TaskType]:
        """Every installed task type, each plugin imported (listing, coverage, checking a
        custom resource of any kind)."""
        for name in list(self.installed):
            self._load_task_type(name)
        return self.task_types

    def _load_task_type(self, name: str) -> None:
        point = self.installed.pop(name)
        self.load(name, point)
        self.index_task_types()
        if name not in self.task_types:
            dist = point.distribution[0] or "its distribution"
            raise PluginError(
                f"the entry point {name!r} of {dist} names {point.value}, which declares no "
                f"task type {name!r}",
                fix="name the entry point after the task type its class declares, or name "
                "a module for a plugin that declares no task type")

    def index_task_types(self) -> None:
        """Ask every plugin for its task types; two plugins declaring one name fail."""
        self.task_types.clear()
        self.owners.clear()
        self._callers.clear()
        name = "podtemplate_add_task_types"
        plugins = [impl.plugin for impl in getattr(self.hook, name).get_hookimpls()]
        for plugin in reversed(plugins):
            declare = self.subset_hook_caller(name, [p for p in plugins if p is not plugin])
            for task_type in (found for answer in declare() for found in answer):
                known = self.task_types.get(task_type.name)
                if known is not None:
                    raise PluginError(
                        f"task type {task_type.name!r} is provided by both "
                        f"{known.distribution} and {task_type.distribution}",
                        fix="uninstall one of the two distributions")
                self.task_types[task_type.name] = task_type
                self.owners[task_type.name] = plugin

    def hook_for(self, hook: str, task_type: str) -> pluggy.HookCaller:
        """pluggy's caller of ``hook`` for a task of ``task_type``, made once: a per-task
        hook reaches the type's own plugin alone, another hook leaves out only the
        plugins of other task types."""
        key = (hook, task_type)
        caller = self._callers.get(key)
        if caller is None:
            owner = self.owners[task_type]
            others = (self.get_plugins() if hook in PER_TASK_HOOKS
                      else set(self.owners.values()))
            caller = self._callers[key] = self.subset_hook_caller(
                hook, [plugin for plugin in others if plugin is not owner])
        return caller


def build_plugin_manager(extra_plugins: Iterable[object] = (), *,
                         load_entry_points: bool = True) -> PluginManager:
    """Build a manager with the hook spec, the built-in plugins, every plugin installed
    under the ``podtemplate`` entry-point group and ``extra_plugins`` (tests use these).
    Hook implementations that match no spec fail here, not at call time."""
    manager = PluginManager()
    for value in BUILTIN_PLUGINS:
        manager.load(value.partition(":")[0], value)
    if load_entry_points:
        manager.load_entry_points()
    for plugin in extra_plugins:
        manager.register(plugin)
    manager.check_pending()
    manager.index_task_types()
    return manager


def ours(manager: pluggy.PluginManager) -> PluginManager:
    """``manager`` as the podtemplate manager it must be."""
    if not isinstance(manager, PluginManager):
        raise PluginError(f"a {type(manager).__name__} cannot render: it knows no task types",
                          fix="pass the manager made by podtemplate.build_plugin_manager()")
    return manager


def task_types(manager: pluggy.PluginManager) -> Mapping[str, TaskType]:
    """Every installed task type by name (each plugin imported)."""
    return ours(manager).load_all()


def plugin_infos(manager: pluggy.PluginManager) -> list[PluginInfo]:
    """What is installed: each plugin's distribution, version and task types."""
    from . import __version__  # the package's own, read from its metadata when first asked

    manager = ours(manager)
    manager.load_all()
    infos = []
    for name, plugin in sorted(manager.list_name_plugin(), key=lambda item: item[0]):
        point = manager.entry_points.get(name)
        declared = tuple(manager.task_types[type_name]
                         for type_name, owner in manager.owners.items() if owner is plugin)
        distribution, version = (point.distribution if point  # its metadata, read once
                                 else ("podtemplate (built in)", str(__version__)))
        infos.append(PluginInfo(name=name, distribution=distribution, version=version,
                                task_types=declared))
    return infos



def require_task_type(manager: pluggy.PluginManager, task: Task) -> TaskType:
    """The task's type; an error naming the distribution to install when it is absent, or
    the config class to pass when the task's config is not the type's."""
    task_type = ours(manager).task_type(task.task_type)
    if task_type is None:
        raise MissingPluginError(
            f"task type {task.task_type!r} is not installed",
            fix=f"pip install podtemplate-{task.task_type}",
            task=task.name)
    if task_type.config is not None and task.task_config is not None:
        config_of(task, task_type.config)
    return task_type


def define_roles(task: Task, context: RenderContext) -> list[RoleSpec]:
    require_task_type(context.plugin_manager, task)
    hook = ours(context.plugin_manager).hook_for("podtemplate_define_roles", task.task_type)
    roles = hook(task=task, context=context)
    if not roles:
        raise PluginError(f"no plugin declared the roles of task type {task.task_type!r}",
                          task=task.name, fix="reinstall the plugin of this task type")
    return list(roles)


def build_manifests(task: Task, roles: Sequence[RoleSpec], pods: Mapping[str, dict[str, Any]],
                    context: RenderContext) -> list[dict[str, Any]]:
    hook = ours(context.plugin_manager).hook_for("podtemplate_build_manifests",
                                                 task.task_type)
    manifests = hook(task=task, roles=roles, pods=pods, context=context)
    if manifests is None:
        raise PluginError(f"no plugin built the manifests of task type {task.task_type!r}",
                          task=task.name, fix="reinstall the plugin of this task type")
    return list(manifests)


def check_manifest(task: Task, manifest: Mapping[str, Any],
                   pods: Mapping[str, Mapping[str, Any]], context: RenderContext) -> list[str]:
    hook = ours(context.plugin_manager).hook_for("podtemplate_check_manifest", task.task_type)
    results = hook(task=task, manifest=manifest, pods=pods, context=context)
    return [problem for problems in results if problems for problem in problems]


def make_sample_task(manager: pluggy.PluginManager, task_type: str, *,
                     pod_template: PodTemplate | None = None,
                     pod_template_name: str | None = None,
                     role_templates: Mapping[str, PodTemplate] | None = None) -> Task:
    """The sample task of ``task_type``, made by its plugin (for the conformance kit and
    ``podtemplate coverage``)."""
    manager = ours(manager)
    if manager.task_type(task_type) is None:
        raise MissingPluginError(f"task type {task_type!r} is not installed",
                                 fix=f"pip install podtemplate-{task_type}")
    hook = manager.hook_for("podtemplate_make_sample_task", task_type)
    task: Task | None = hook(task_type=task_type, pod_template=pod_template,
                             pod_template_name=pod_template_name,
                             role_templates=dict(role_templates or {}))
    if task is None:
        raise PluginError(f"no plugin makes a sample task of type {task_type!r}",
                          fix="implement the podtemplate_make_sample_task hook")
    return task

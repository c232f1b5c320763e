"""Each task is dispatched to the plugin that declared its type: per-task hooks reach that
plugin alone, manifest checks reach it and the plugins that declare no task type, and a
wrong ``task_config`` gets the one error of core whatever the type."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import pytest
from podtemplate import (
    ConfigModel,
    DefinitionError,
    Platform,
    PodTemplate,
    RenderContext,
    RoleSpec,
    Task,
    TaskType,
    hookimpl,
    pod_manifest,
    render,
)
from podtemplate.dispatch import (
    BUILTIN_PLUGINS,
    build_plugin_manager,
    make_sample_task,
    plugin_infos,
    task_types,
)
from podtemplate.plugin import TaskTypePlugin as PluginClass
from podtemplate.plugin import config_of


class Knobs(ConfigModel):
    task_type: ClassVar[str] = "alpha"
    level: int = 1


class Needy(ConfigModel):
    task_type: ClassVar[str] = "beta"
    required: str


class TaskTypePlugin:
    """A task-type plugin whose hooks answer for any task they are handed (no guard) and
    record every call, so a call for another type's task shows."""

    def __init__(self, name: str, config: type[Any] | None) -> None:
        self.task_type = TaskType(name=name, distribution=f"test-{name}", config=config)
        self.calls: list[tuple[str, str]] = []

    @hookimpl
    def podtemplate_add_task_types(self) -> Sequence[TaskType]:
        return [self.task_type]

    @hookimpl
    def podtemplate_define_roles(self, task: Task, context: RenderContext) -> list[RoleSpec]:
        self.calls.append(("define_roles", task.name))
        return [RoleSpec(name="pod", template_path="")]

    @hookimpl
    def podtemplate_build_manifests(self, task: Task, roles: Sequence[RoleSpec],
                                    pods: Mapping[str, dict[str, Any]],
                                    context: RenderContext) -> list[dict[str, Any]]:
        self.calls.append(("build_manifests", task.name))
        return [pod_manifest(task, pods["pod"], context)]

    @hookimpl
    def podtemplate_check_manifest(self, task: Task, manifest: Mapping[str, Any],
                                   pods: Mapping[str, Mapping[str, Any]],
                                   context: RenderContext) -> Sequence[str] | None:
        self.calls.append(("check_manifest", task.name))
        return None

    @hookimpl
    def podtemplate_make_sample_task(self, task_type: str, pod_template: PodTemplate | None,
                                     pod_template_name: str | None,
                                     role_templates: Mapping[str, PodTemplate]) -> Task:
        self.calls.append(("make_sample_task", task_type))
        return Task(name=f"sample-{task_type}", task_type=task_type, image="busybox:1.36")


class Policy:
    """A plugin that declares no task type: it checks every task's manifests."""

    def __init__(self) -> None:
        self.checked: list[str] = []

    @hookimpl
    def podtemplate_check_manifest(self, task: Task, manifest: Mapping[str, Any],
                                   pods: Mapping[str, Mapping[str, Any]],
                                   context: RenderContext) -> Sequence[str] | None:
        self.checked.append(task.name)
        return None


@pytest.fixture
def plugins() -> tuple[TaskTypePlugin, TaskTypePlugin, Policy]:
    return TaskTypePlugin("alpha", Knobs), TaskTypePlugin("beta", Needy), Policy()


def render_two(plugins: Sequence[object]) -> None:
    manager = build_plugin_manager(plugins, load_entry_points=False)
    tasks = [Task(name="a", task_type="alpha", image="busybox:1.36", task_config=Knobs()),
             Task(name="b", task_type="beta", image="busybox:1.36",
                  task_config=Needy(required="x"))]
    render(tasks, platform=Platform(), plugin_manager=manager)


def test_per_task_hooks_reach_only_the_plugin_of_the_task_type(
        plugins: tuple[TaskTypePlugin, TaskTypePlugin, Policy]) -> None:
    alpha, beta, _ = plugins
    render_two(plugins)
    assert alpha.calls == [("define_roles", "a"), ("build_manifests", "a"),
                           ("check_manifest", "a")]
    assert beta.calls == [("define_roles", "b"), ("build_manifests", "b"),
                          ("check_manifest", "b")]


def test_a_plugin_without_task_types_checks_every_manifest(
        plugins: tuple[TaskTypePlugin, TaskTypePlugin, Policy]) -> None:
    render_two(plugins)
    assert plugins[2].checked == ["a", "b"]


def test_the_sample_task_is_made_by_its_own_plugin(
        plugins: tuple[TaskTypePlugin, TaskTypePlugin, Policy]) -> None:
    alpha, beta, _ = plugins
    manager = build_plugin_manager(plugins, load_entry_points=False)
    assert make_sample_task(manager, "beta").name == "sample-beta"
    assert (alpha.calls, beta.calls) == ([], [("make_sample_task", "beta")])


def test_plugin_infos_name_each_plugins_own_task_types(
        plugins: tuple[TaskTypePlugin, TaskTypePlugin, Policy]) -> None:
    manager = build_plugin_manager(plugins, load_entry_points=False)
    declared = {info.name: [t.name for t in info.task_types] for info in plugin_infos(manager)}
    # the built-in folder and cluster stores and policy checks declare no task type; the
    # built-in python type is there without entry points
    assert sorted(declared.values()) == [[], [], [], [], ["alpha"], ["beta"], ["python"]]


def test_a_wrong_config_fails_in_core_before_the_plugin_is_called(
        plugins: tuple[TaskTypePlugin, TaskTypePlugin, Policy]) -> None:
    alpha = plugins[0]
    manager = build_plugin_manager(plugins, load_entry_points=False)
    wrong = Task(name="a", task_type="alpha", image="busybox:1.36",
                 task_config=Needy(required="x"))
    with pytest.raises(DefinitionError) as caught:
        render(wrong, platform=Platform(), plugin_manager=manager)
    assert str(caught.value) == (
        "task 'a', task_config: task_config of a alpha task must be Knobs(...), not Needy "
        "(fix: pass task_config=Knobs(...))")
    assert alpha.calls == []


def test_config_of_defaults_a_missing_config_or_says_it_is_needed() -> None:
    bare = Task(name="a", task_type="alpha", image="busybox:1.36")
    assert config_of(bare, Knobs) == Knobs()
    with pytest.raises(DefinitionError, match=r"a alpha task needs a task_config .*Needy"):
        config_of(bare, Needy)


def test_a_task_type_declares_its_config_and_crds() -> None:
    declared = TaskType(name="alpha", distribution="test-alpha", config=Knobs,
                        crds=("test_alpha:crds/alpha.yaml",))
    assert declared.config is Knobs and declared.crds == ("test_alpha:crds/alpha.yaml",)
    assert TaskType(name="plain", distribution="test-plain").crds == ()


class WrappingPolicy:
    """A check that wraps the others (a pluggy wrapper): dispatch hands it to pluggy."""

    def __init__(self) -> None:
        self.seen: list[list[str]] = []

    @hookimpl(wrapper=True)
    def podtemplate_check_manifest(self, task: Task, manifest: Mapping[str, Any],
                                   pods: Mapping[str, Mapping[str, Any]],
                                   context: RenderContext) -> Any:
        results = yield
        self.seen.append([task.name, *(problem for found in results if found
                                       for problem in found)])
        return results


def test_a_wrapper_around_the_manifest_checks_sees_their_results(
        plugins: tuple[TaskTypePlugin, TaskTypePlugin, Policy]) -> None:
    wrapping = WrappingPolicy()
    render_two((*plugins, wrapping))
    assert wrapping.seen == [["a"], ["b"]]
    assert plugins[2].checked == ["a", "b"]


def test_built_ins_load_by_one_path_without_entry_points() -> None:
    manager = build_plugin_manager(load_entry_points=False)
    assert list(task_types(manager)) == ["python"]
    assert [name for name, _ in manager.list_name_plugin()] == [
        value.partition(":")[0] for value in BUILTIN_PLUGINS]
    python = make_sample_task(manager, "python")
    assert render(python, platform=Platform(), plugin_manager=manager)[0]["kind"] == "Pod"


def test_pluggy_monitoring_sees_every_hook_call_of_a_render(
        plugins: tuple[TaskTypePlugin, TaskTypePlugin, Policy]) -> None:
    manager = build_plugin_manager(plugins, load_entry_points=False)
    called: list[str] = []
    traced: list[tuple[str, ...]] = []
    manager.trace.root.setwriter(lambda message: traced.append(message))
    undo_tracing = manager.enable_tracing()
    undo = manager.add_hookcall_monitoring(
        lambda name, impls, kwargs: called.append(name), lambda *_: None)
    tasks = [Task(name="a", task_type="alpha", image="busybox:1.36", task_config=Knobs()),
             Task(name="b", task_type="beta", image="busybox:1.36",
                  task_config=Needy(required="x")),
             make_sample_task(manager, "python")]
    called.clear()
    try:
        render(tasks, platform=Platform(), plugin_manager=manager)
    finally:
        undo()
        undo_tracing()
    counts = {name: called.count(name) for name in sorted(set(called))}
    assert counts == {"podtemplate_build_manifests": 3, "podtemplate_check_manifest": 3,
                      "podtemplate_define_roles": 3}
    alpha, beta, _ = plugins
    assert len(alpha.calls) + len(beta.calls) == 6  # each call reached its own plugin
    assert sum("podtemplate_define_roles" in str(line) for line in traced) >= 3


def test_a_manager_not_built_by_podtemplate_is_refused_with_the_fix() -> None:
    import pluggy
    from podtemplate import PluginError

    with pytest.raises(PluginError, match="build_plugin_manager"):
        render(Task(name="c", task_type="alpha", image="busybox:1.36"),
               platform=Platform(), plugin_manager=pluggy.PluginManager("podtemplate"))


class Gamma(PluginClass):
    """A task type written as a subclass of the plugin class: a TaskType and three
    methods; the hooks are the base class's."""

    task_type = TaskType(name="gamma", distribution="test-gamma")

    def define_roles(self, task: Task, context: RenderContext) -> list[RoleSpec]:
        return [RoleSpec(name="pod", template_path="")]

    def build(self, task: Task, roles: Sequence[RoleSpec], pods: Mapping[str, dict[str, Any]],
              context: RenderContext) -> list[dict[str, Any]]:
        return [pod_manifest(task, pods["pod"], context)]

    def sample(self, pod_template: PodTemplate | None, pod_template_name: str | None,
               role_templates: Mapping[str, PodTemplate]) -> Task:
        return Task(name="sample-gamma", task_type="gamma", image="busybox:1.36",
                    pod_template=pod_template)


def test_a_plugin_class_is_called_through_pluggy_for_its_own_tasks() -> None:
    manager = build_plugin_manager([Gamma()], load_entry_points=False)
    called: list[str] = []
    undo = manager.add_hookcall_monitoring(
        lambda name, impls, kwargs: called.append(name), lambda *_: None)
    try:
        sample = make_sample_task(manager, "gamma",
                                  pod_template=PodTemplate(pod_spec={"hostNetwork": True}))
        [pod] = render(sample, platform=Platform(), plugin_manager=manager)
    finally:
        undo()
    assert pod["kind"] == "Pod" and pod["spec"]["hostNetwork"] is True
    assert called == ["podtemplate_make_sample_task", "podtemplate_define_roles",
                      "podtemplate_build_manifests", "podtemplate_check_manifest"]
    assert task_types(manager)["gamma"] is Gamma.task_type


def test_a_plugin_named_by_its_class_is_registered_as_one_instance() -> None:
    manager = build_plugin_manager(load_entry_points=False)
    manager.load("gamma", f"{__name__}:Gamma")
    assert isinstance(manager.get_plugin("gamma"), Gamma)


class Misnamed(Gamma):
    task_type = TaskType(name="epsilon", distribution="test-epsilon")


def test_an_entry_point_is_imported_on_first_use_and_must_name_its_task_type() -> None:
    from podtemplate import PluginError
    from podtemplate.files.entrypoints import InstalledEntryPoint

    manager = build_plugin_manager(load_entry_points=False)
    manager.installed["gamma"] = InstalledEntryPoint("gamma", f"{__name__}:Gamma", "podtemplate",
                                                     None)
    manager.installed["delta"] = InstalledEntryPoint("delta", f"{__name__}:Misnamed",
                                                     "podtemplate", None)
    assert manager.installed_names() == {"python", "gamma", "delta"}
    assert manager.get_plugin("gamma") is None
    assert manager.task_type("gamma") is Gamma.task_type
    assert isinstance(manager.get_plugin("gamma"), Gamma)
    with pytest.raises(PluginError, match=r"names .*:Misnamed, which declares no task type 'delta'"):
        manager.task_type("delta")

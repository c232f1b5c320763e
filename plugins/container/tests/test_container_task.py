"""ContainerTask: definition checks and rendering through every template layer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from podtemplate import (
    Platform,
    PodTemplate,
    Resources,
    Task,
    build_plugin_manager,
    render,
)
from podtemplate.testing import (
    assert_definition_error,
    assert_valid_pod,
    container,
    env_of,
    pod_template_yaml,
    task_types,
)
from podtemplate_container import ContainerTask

PLATFORM = Platform()
TemplatesDir = Callable[[dict[str, str]], Path]


def render_pods(task: Task, platform: Platform = PLATFORM, **kwargs: Any) -> list[dict[str, Any]]:
    manifests = render(task, platform=platform, **kwargs)
    for manifest in manifests:
        assert_valid_pod(manifest)
    return manifests


def primary(task: Task, **kwargs: Any) -> dict[str, Any]:
    [pod] = render_pods(task, **kwargs)
    assert pod["spec"]["containers"][0]["name"] == "primary"
    return pod["spec"]["containers"][0]


def test_registered_through_the_entry_point() -> None:
    declared = task_types(build_plugin_manager())["container"]
    assert declared.distribution == "podtemplate-container"
    assert (declared.kind, declared.api_version) == ("Pod", "v1")


def test_is_a_task_of_type_container_without_a_function() -> None:
    task = ContainerTask(name="tool", image="busybox:1.36", command=["true"])
    assert isinstance(task, Task)
    assert (task.task_type, task.fn, task.task_config) == ("container", None, None)
    with pytest.raises(TypeError, match="container task"):
        task()


def test_primary_runs_exactly_the_image_command_and_args() -> None:
    task = ContainerTask(name="migrate", image="registry.acme.io/migrate:4", command=["/migrate"],
                         args=["-path", "/m", "up"], env={"LEVEL": 3, "DRY": False})
    [pod] = render_pods(task)
    assert pod["metadata"]["name"] == "migrate"
    assert pod["metadata"]["labels"]["podtemplate.io/task-type"] == "container"
    assert pod["spec"]["restartPolicy"] == "Never"
    main = pod["spec"]["containers"][0]
    assert main["image"] == "registry.acme.io/migrate:4"
    assert (main["command"], main["args"]) == (["/migrate"], ["-path", "/m", "up"])
    assert env_of(main) == {"LEVEL": "3", "DRY": "false"}
    assert "python" not in repr(pod)  # nothing of the Python executor leaks in


def test_no_command_keeps_the_image_entrypoint() -> None:
    main = primary(ContainerTask(name="report", image="acme/report:2", args=["--daily"]))
    assert "command" not in main
    assert main["args"] == ["--daily"]
    bare = primary(ContainerTask(name="bare", image="acme/report:2"))
    assert "command" not in bare and "args" not in bare


def test_templates_cannot_replace_command_or_args(templates_dir: TemplatesDir) -> None:
    cluster = pod_template_yaml("sneaky", {"containers": [
        {"name": "primary", "command": ["evil"], "args": ["--evil"]}]})
    inline = PodTemplate({"containers": [{"name": "primary", "command": ["x"], "args": ["y"]}]})
    task = ContainerTask(name="tool", image="busybox:1.36", command=["echo"],
                         pod_template=inline, pod_template_name="sneaky")
    with_args = primary(task, templates=templates_dir({"sneaky.yaml": cluster}))
    # command alone means "exactly this": the template's args must not sneak in.
    assert (with_args["command"], with_args["args"]) == (["echo"], [])


def test_run_override_replaces_command_and_args() -> None:
    task = ContainerTask(name="tool", image="busybox:1.36", command=["echo"], args=["hi"])
    override = PodTemplate({"containers": [{"name": "primary", "command": ["sh", "-c"],
                                            "args": ["debug"]}]})
    for main in (primary(task, override=override),
                 primary(task.with_overrides(pod_template=override))):
        assert (main["command"], main["args"]) == (["sh", "-c"], ["debug"])
        assert main["image"] == "busybox:1.36"


def test_every_layer_reaches_the_pod(templates_dir: TemplatesDir) -> None:
    cluster = pod_template_yaml("gpu", {
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
        "containers": [{"name": "primary", "env": [{"name": "FROM_CLUSTER", "value": "1"}]}],
    }, labels={"pool": "gpu"})
    inline = PodTemplate(
        {"runtimeClassName": "nvidia",
         "containers": [{"name": "main", "env": [{"name": "FROM_INLINE", "value": "1"}]},
                        {"name": "metrics", "image": "prom/statsd-exporter:v0.26"}],
         "initContainers": [{"name": "warmup", "image": "busybox:1.36"}]},
        primary_container_name="main")
    task = ContainerTask(name="infer", image="acme/infer:1", command=["/serve"],
                         env={"FROM_TASK": "1"}, pod_template=inline, pod_template_name="gpu",
                         requests=Resources(cpu="2", gpu=1), interruptible=True)
    platform = Platform(interruptible={"nodeSelector": {"pool": "spot"}},
                        defaultResources={"requests": {"memory": "1Gi"}})
    override = PodTemplate({"priorityClassName": "urgent"})
    [pod] = render_pods(task, platform=platform, override=override,
                        templates=templates_dir({"gpu.yaml": cluster}))
    spec = pod["spec"]
    assert [c["name"] for c in spec["containers"]] == ["main", "metrics"]
    assert spec["initContainers"][0]["name"] == "warmup"
    assert env_of(container(pod, "main")) == {"FROM_CLUSTER": "1", "FROM_INLINE": "1",
                                              "FROM_TASK": "1"}
    assert spec["tolerations"][0]["key"] == "nvidia.com/gpu"
    assert (spec["runtimeClassName"], spec["priorityClassName"]) == ("nvidia", "urgent")
    assert spec["nodeSelector"] == {"pool": "spot"}
    resources = container(pod, "main")["resources"]
    # the default request, and each unset limit is the request, as on Flyte
    assert resources["requests"] == {"cpu": "2", "nvidia.com/gpu": "1", "memory": "1Gi"}
    assert resources["limits"] == {"nvidia.com/gpu": "1", "cpu": "2", "memory": "1Gi"}
    assert pod["metadata"]["labels"]["pool"] == "gpu"
    assert pod["metadata"]["annotations"]["kubectl.kubernetes.io/default-container"] == "main"


def test_inputs_are_not_mutated_and_copied_outputs_share_nothing() -> None:
    env = [{"name": "A", "value": "1"}]
    inline = PodTemplate({"containers": [{"name": "primary", "env": env}]})
    before = repr(inline.pod_spec)
    task = ContainerTask(name="tool", image="busybox:1.36", command=["true"], pod_template=inline)
    # Rendered manifests are read only (copy-on-write); copy=True gives independent ones.
    first, second = render_pods(task, copy=True)[0], render_pods(task, copy=True)[0]
    assert first == second == render_pods(task)[0]
    first["spec"]["containers"][0]["env"].append({"name": "B", "value": "2"})
    assert repr(inline.pod_spec) == before
    assert len(second["spec"]["containers"][0]["env"]) == 1


@pytest.mark.parametrize(("kwargs", "field", "message"), [
    ({"image": ""}, "image", "image is empty"),
    ({"image": "   "}, "image", "image is empty"),
    ({"command": "echo hi"}, "command", "must be a list of strings, not str"),
    ({"args": "--daily"}, "args", "must be a list of strings, not str"),
    ({"command": ["echo", 3]}, "command[1]", "must be a string, not int"),
    ({"args": ["a\x00b"]}, "args[0]", "NUL"),
    ({"command": []}, "command", "empty list"),
    ({"command": ["", "x"]}, "command[0]", "command[0] is empty"),
    ({"env": {"A=B": "x"}}, "env.A=B", "not a valid environment variable name"),
    ({"name": "bad name"}, "name", "task name 'bad name' is not valid"),
    ({"name": "tool\n"}, "name", "is not valid"),
])
def test_bad_definitions_fail_at_definition_time(kwargs: dict[str, Any], field: str,
                                                 message: str) -> None:
    arguments = {"name": "tool", "image": "busybox:1.36", **kwargs}
    assert_definition_error(lambda: ContainerTask(**arguments), message=message, field=field,
                            task=arguments["name"])

"""Rendering ShellTasks: the Pod, its ConfigMap, inputs and every template layer."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from kubernetes.client import V1ConfigMap
from podtemplate import InputError, Platform, PodTemplate, Resources, Task, render
from podtemplate.testing import assert_valid_pod, container, env_of, pod_template_yaml
from podtemplate_shell import (
    SCRIPT_DIGEST_ANNOTATION,
    SCRIPT_DIR,
    SCRIPT_KEY,
    SCRIPT_PATH,
    SCRIPT_VOLUME,
    ShellTask,
)

PLATFORM = Platform(defaultImage="busybox:1.36", namespace="jobs")


def render_shell(task: Task, platform: Platform = PLATFORM, **kwargs: Any
                 ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The task's Pod and ConfigMap, each validated strictly."""
    pod, configmap = render(task, platform=platform, **kwargs)
    assert_valid_pod(pod)
    assert configmap["kind"] == "ConfigMap"
    V1ConfigMap.model_validate(configmap)
    return pod, configmap


def test_pod_runs_the_script_from_its_configmap() -> None:
    script = "set -eu\necho \"hello $WHO\"\n"
    pod, configmap = render_shell(ShellTask(name="greet", script=script, inputs={"WHO": "x"}))
    assert configmap["metadata"] == {
        "name": "greet-script", "namespace": "jobs",
        "labels": {"podtemplate.io/task": "greet", "podtemplate.io/task-type": "shell"}}
    assert configmap["data"] == {SCRIPT_KEY: script}
    spec = pod["spec"]
    assert spec["volumes"] == [{"name": SCRIPT_VOLUME, "configMap": {"name": "greet-script"}}]
    main = spec["containers"][0]
    assert main["image"] == "busybox:1.36"
    assert (main["command"], main["args"]) == (["/bin/sh", SCRIPT_PATH], [])
    assert main["volumeMounts"] == [{"name": SCRIPT_VOLUME, "mountPath": SCRIPT_DIR,
                                     "readOnly": True}]
    assert f"{SCRIPT_DIR}/{SCRIPT_KEY}" == SCRIPT_PATH
    digest = hashlib.sha256(script.encode()).hexdigest()
    assert pod["metadata"]["annotations"][SCRIPT_DIGEST_ANNOTATION] == digest
    assert pod["metadata"]["labels"]["podtemplate.io/task-type"] == "shell"


def test_a_script_beyond_the_argv_limit_arrives_intact() -> None:
    # Linux refuses one argv string over 128 KiB (MAX_ARG_STRLEN): `sh -c <script>`
    # would fail at exec. The ConfigMap carries it whole.
    script = "".join(f"echo line {n} 'quoted' \"$X\" \\\\ ✓\t  \n" for n in range(8000))
    assert len(script.encode()) > 128 * 1024
    pod, configmap = render_shell(ShellTask(name="long", script=script))
    assert configmap["data"][SCRIPT_KEY] == script
    assert script not in repr(pod)  # the pod only points at it


def test_inputs_are_env_vars_from_defaults_and_render_time_values() -> None:
    task = ShellTask(name="export", script="echo", env={"FIXED": "1"},
                     inputs={"DAY": "2026-01-01", "TABLE": "events", "LIMIT": 10})
    pod, _ = render_shell(task, inputs={"DAY": "2026-03-01"})
    assert env_of(pod["spec"]["containers"][0]) == {
        "FIXED": "1", "DAY": "2026-03-01", "TABLE": "events", "LIMIT": "10"}


def test_an_input_without_default_needs_a_value() -> None:
    task = ShellTask(name="export", script="echo", inputs=["DAY"])
    with pytest.raises(InputError) as caught:
        render(task, platform=PLATFORM)
    assert caught.value.field == "inputs.DAY"
    assert "--input DAY=VALUE" in str(caught.value)
    pod, _ = render_shell(task, inputs={"DAY": "today"})
    assert env_of(pod["spec"]["containers"][0]) == {"DAY": "today"}


def test_an_unknown_input_is_refused() -> None:
    task = ShellTask(name="export", script="echo", inputs={"DAY": "x"})
    with pytest.raises(InputError, match=r"not a parameter of any selected task.*DAY"):
        render(task, platform=PLATFORM, inputs={"DYA": "1"})


def test_an_input_wins_over_a_template_env_of_the_same_name() -> None:
    template = PodTemplate({"containers": [{"name": "primary",
                                            "env": [{"name": "DAY", "value": "template"}]}]})
    pod, _ = render_shell(ShellTask(name="t", script="echo", inputs={"DAY": "input"},
                                    pod_template=template))
    assert env_of(pod["spec"]["containers"][0]) == {"DAY": "input"}


def test_template_items_cannot_break_the_script_volume_or_mount() -> None:
    template = PodTemplate({
        "volumes": [{"name": SCRIPT_VOLUME, "emptyDir": {}}],
        "containers": [{"name": "primary", "volumeMounts": [
            {"name": "other", "mountPath": SCRIPT_DIR, "subPath": "x"}]}],
    })
    pod, _ = render_shell(ShellTask(name="t", script="echo", pod_template=template))
    assert pod["spec"]["volumes"] == [{"name": SCRIPT_VOLUME, "configMap": {"name": "t-script"}}]
    assert pod["spec"]["containers"][0]["volumeMounts"] == [
        {"name": SCRIPT_VOLUME, "mountPath": SCRIPT_DIR, "readOnly": True}]


def test_templates_cannot_replace_the_command_but_the_run_override_can(tmp_path: Path) -> None:
    (tmp_path / "tpl.yaml").write_text(pod_template_yaml("sneaky", {"containers": [
        {"name": "primary", "command": ["evil"], "args": ["--evil"]}]}))
    inline = PodTemplate({"containers": [{"name": "primary", "command": ["x"], "args": ["y"]}]})
    task = ShellTask(name="t", script="echo", shell="/bin/bash", pod_template=inline,
                     pod_template_name="sneaky")
    pod, _ = render_shell(task, templates=tmp_path)
    main = pod["spec"]["containers"][0]
    assert (main["command"], main["args"]) == (["/bin/bash", SCRIPT_PATH], [])
    debug = PodTemplate({"containers": [{"name": "primary", "command": ["sleep"],
                                         "args": ["infinity"]}]})
    pod, _ = render_shell(task, templates=tmp_path, override=debug)
    main = pod["spec"]["containers"][0]
    assert (main["command"], main["args"]) == (["sleep"], ["infinity"])
    assert main["volumeMounts"][0]["mountPath"] == SCRIPT_DIR  # the script is still there


def test_every_layer_reaches_the_pod_and_sidecars_are_kept(tmp_path: Path) -> None:
    (tmp_path / "tpl.yaml").write_text(pod_template_yaml("base", {
        "serviceAccountName": "runner",
        "containers": [{"name": "primary", "env": [{"name": "FROM_CLUSTER", "value": "1"}]}],
    }, labels={"team": "data"}))
    inline = PodTemplate(
        {"volumes": [{"name": "out", "emptyDir": {}}],
         "initContainers": [{"name": "uploader", "image": "acme/up:1", "restartPolicy": "Always"}],
         "containers": [{"name": "sh", "volumeMounts": [{"name": "out", "mountPath": "/out"}]},
                        {"name": "logs", "image": "fluent/fluent-bit:3.0"}]},
        primary_container_name="sh")
    task = ShellTask(name="t", script="echo", image="alpine:3.20", env={"FROM_TASK": "1"},
                     requests=Resources(cpu="1"), pod_template=inline,
                     pod_template_name="base", interruptible=True)
    platform = Platform(templates=tmp_path, interruptible={"nodeSelector": {"pool": "spot"}})
    pod, configmap = render_shell(task, platform=platform,
                                  override=PodTemplate({"priorityClassName": "urgent"}))
    spec = pod["spec"]
    assert [c["name"] for c in spec["containers"]] == ["sh", "logs"]
    assert [c["name"] for c in spec["initContainers"]] == ["uploader"]
    assert [v["name"] for v in spec["volumes"]] == ["out", SCRIPT_VOLUME]
    main = container(pod, "sh")
    assert [m["mountPath"] for m in main["volumeMounts"]] == ["/out", SCRIPT_DIR]
    assert env_of(main) == {"FROM_CLUSTER": "1", "FROM_TASK": "1"}
    assert main["resources"]["requests"] == {"cpu": "1"}
    assert (spec["serviceAccountName"], spec["priorityClassName"]) == ("runner", "urgent")
    assert spec["nodeSelector"] == {"pool": "spot"}
    assert pod["metadata"]["labels"]["team"] == "data"
    assert "namespace" not in configmap["metadata"]


def test_no_image_anywhere_is_a_clear_error() -> None:
    from podtemplate import DefinitionError

    with pytest.raises(DefinitionError, match="no image"):
        render(ShellTask(name="t", script="echo"), platform=Platform())


def test_render_is_deterministic_and_inputs_unmutated() -> None:
    template = PodTemplate({"containers": [{"name": "primary", "env": [{"name": "A",
                                                                         "value": "1"}]}]})
    before = repr(template.pod_spec)
    task = ShellTask(name="t", script="echo", inputs={"X": "1"}, pod_template=template)
    first, second = render(task, platform=PLATFORM), render(task, platform=PLATFORM)
    assert first == second
    first[0]["spec"]["containers"][0]["env"].clear()
    first[0]["spec"]["volumes"].clear()
    assert render(task, platform=PLATFORM) == second
    assert repr(template.pod_spec) == before

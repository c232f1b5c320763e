"""Rich, valid pod templates render on every installed task type without a false alarm
from the API-server rules, and every role pod they produce passes those rules."""

from __future__ import annotations

import copy

import pytest
from podtemplate import (
    ApiRuleError,
    Platform,
    PodTemplate,
    check_pod,
    check_pod_template,
    render,
    task,
)
from podtemplate.dispatch import build_plugin_manager, define_roles, task_types
from podtemplate.manifest import get_path
from podtemplate.render import make_context
from podtemplate.testing.apiserver_rich import RICH, rich_spec, rich_volumes


def rich_template(modern: bool = True) -> PodTemplate:
    return PodTemplate(rich_spec(modern), labels=RICH["labels"],
                       annotations=RICH["annotations"])


def test_the_rich_template_is_valid_on_its_own() -> None:
    pod = {"metadata": RICH, "spec": copy.deepcopy(rich_spec())}
    pod["spec"]["containers"][0]["image"] = "python:3.11"
    assert check_pod_template(pod) == []


def test_rich_python_pod_renders_and_passes() -> None:
    @task(name="train", image="python:3.11", pod_template=rich_template())
    def train() -> None: ...

    (pod,) = render(train, platform=Platform(), plugin_manager=build_plugin_manager())
    assert check_pod(pod) == []
    assert pod["spec"]["volumes"] == rich_volumes()  # nothing was dropped to pass


TYPES = sorted(task_types(build_plugin_manager()))


@pytest.mark.parametrize("task_type", TYPES)
def test_rich_template_renders_on_every_role_of_every_task_type(task_type: str) -> None:
    manager = build_plugin_manager()
    sample = manager.hook.podtemplate_make_sample_task(
        task_type=task_type, pod_template=rich_template(modern=task_type != "dask"),
        pod_template_name=None, role_templates={})
    assert sample is not None
    manifests = render(sample, platform=Platform(defaultImage="python:3.11"),
                       plugin_manager=manager)
    roles = define_roles(sample, make_context(plugin_manager=manager))
    checked = 0
    for role in roles:
        for manifest in manifests:
            pod = get_path(manifest, role.template_path)
            if isinstance(pod, dict) and isinstance(pod.get("spec"), dict):
                problems = check_pod(pod) if pod.get("kind") == "Pod" else check_pod_template(
                    {"metadata": pod.get("metadata", {}), "spec": pod["spec"]})
                assert problems == [], (role.name, problems)
                checked += 1
    assert checked >= len(roles)


@pytest.mark.parametrize("task_type", TYPES)
def test_an_invalid_pod_is_refused_on_every_task_type(task_type: str) -> None:
    manager = build_plugin_manager()
    bad = PodTemplate({"containers": [{"name": "primary", "volumeMounts": [
        {"name": "ghost", "mountPath": "/ghost"}]}]})
    sample = manager.hook.podtemplate_make_sample_task(
        task_type=task_type, pod_template=bad, pod_template_name=None, role_templates={})
    with pytest.raises(ApiRuleError) as caught:
        render(sample, platform=Platform(defaultImage="python:3.11"), plugin_manager=manager)
    error = caught.value
    assert error.task == sample.name and error.role is not None
    assert error.field is not None and error.field.startswith("spec.containers[")
    assert error.field.endswith("].volumeMounts[ghost].name")
    assert "a volumeMount names a volume of the pod" in error.message

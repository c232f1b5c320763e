"""Rendered manifests are copy-on-write: they share unchanged subtrees with the templates
they were folded from and are read only; ``render(..., copy=True)`` gives independent
dicts, equal to the shared ones, whose changes never reach a template or a later render."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from podtemplate import Platform, PodTemplate, Resources, Task, build_plugin_manager, render
from podtemplate.dispatch import make_sample_task, task_types
from podtemplate.plugin import copy_path
from podtemplate.testing import assert_valid_custom_resource, assert_valid_pod

MANAGER = build_plugin_manager()
TYPES = sorted(task_types(MANAGER))


def rich_template(tag: str) -> PodTemplate:
    """A template as teams write them: a sidecar, volumes, tolerations, affinity."""
    return PodTemplate({
        "volumes": [{"name": "data", "emptyDir": {"sizeLimit": "1Gi"}},
                    {"name": "config", "configMap": {"name": f"{tag}-config"}}],
        "containers": [
            {"name": "primary", "env": [{"name": "TEAM", "value": tag}],
             "volumeMounts": [{"name": "data", "mountPath": "/data"}]},
            {"name": "log-shipper", "image": "fluent/fluent-bit:3.0",
             "volumeMounts": [{"name": "data", "mountPath": "/data", "readOnly": True}]},
        ],
        "tolerations": [{"key": f"team/{tag}", "operator": "Exists", "effect": "NoSchedule"}],
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
                {"key": "zone", "operator": "In", "values": ["a"]}]}]}}},
    }, labels={"team": tag}, annotations={"owner": f"{tag}@example.com"})


def tasks() -> tuple[list[Task], list[PodTemplate]]:
    made: list[Task] = []
    templates: list[PodTemplate] = []
    for task_type in TYPES:
        own = rich_template(task_type)
        roles = {role: rich_template(f"{task_type}-{role}")
                 for role in ("master", "worker", "scheduler", "driver", "executor", "head")}
        made.append(make_sample_task(MANAGER, task_type, pod_template=own,
                                     role_templates=roles))
        templates += [own, *roles.values()]
    return made, templates


def containers_in(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from containers_in(item)
    elif isinstance(value, list):
        yield value
        for item in value:
            yield from containers_in(item)


def assert_valid(manifests: list[dict[str, Any]]) -> None:
    types = task_types(MANAGER)
    for manifest in manifests:
        if manifest["apiVersion"] == "v1":
            if manifest["kind"] == "Pod":
                assert_valid_pod(manifest)
            continue
        task_type = manifest["metadata"]["labels"]["podtemplate.io/task-type"]
        assert_valid_custom_resource(manifest, types[task_type])


def test_manifests_share_the_templates_unchanged_subtrees() -> None:
    made, templates = tasks()
    manifests = render(made, platform=Platform(), plugin_manager=MANAGER)
    assert_valid(manifests)
    ids = {id(obj) for template in templates for obj in containers_in(template.pod_spec)}
    assert any(id(obj) in ids for obj in containers_in(manifests))


def test_the_default_result_equals_the_copied_one_which_shares_nothing() -> None:
    made, templates = tasks()
    shared = render(made, platform=Platform(), plugin_manager=MANAGER)
    copied = render(made, platform=Platform(), plugin_manager=MANAGER, copy=True)
    assert_valid(copied)
    assert json.dumps(shared) == json.dumps(copied)  # key order and types too
    mutable = [id(obj) for obj in containers_in(copied)]
    assert len(mutable) == len(set(mutable))  # not even within itself
    ids = {id(obj) for template in templates for obj in containers_in(template.pod_spec)}
    assert not ids & set(mutable)


def test_changing_a_copied_result_never_reaches_a_template_or_a_later_render() -> None:
    made, templates = tasks()
    before = [copy.deepcopy((t.pod_spec, t.labels, t.annotations)) for t in templates]
    first = render(made, platform=Platform(), plugin_manager=MANAGER)
    expected = json.dumps(first)
    copied = render(made, platform=Platform(), plugin_manager=MANAGER, copy=True)
    for obj in containers_in(copied):
        if isinstance(obj, dict):
            obj["changed"] = True
        else:
            obj.append("changed")
    assert [(t.pod_spec, t.labels, t.annotations) for t in templates] == before
    assert json.dumps(first) == expected
    assert json.dumps(render(made, platform=Platform(), plugin_manager=MANAGER)) == expected


def test_rendering_changes_no_template() -> None:
    made, templates = tasks()
    before = [copy.deepcopy((t.pod_spec, t.labels, t.annotations)) for t in templates]
    render(made, platform=Platform(), plugin_manager=MANAGER)
    assert [(t.pod_spec, t.labels, t.annotations) for t in templates] == before


@pytest.mark.parametrize("path", [("spec", "containers", 0), ("spec", "volumes")])
def test_copy_path_copies_each_object_on_the_way(path: tuple[Any, ...]) -> None:
    inner = {"name": "a", "env": []}
    shared = {"containers": [inner], "volumes": [{"name": "v"}]}
    pod = {"spec": shared}
    target = copy_path(pod, *path)
    assert pod["spec"] is not shared and pod["spec"] == shared
    assert target is not (inner if path[-1] == 0 else shared["volumes"])
    if isinstance(target, dict):
        target["env"] = ["x"]
    else:
        target.append({"name": "w"})
    assert shared == {"containers": [{"name": "a", "env": []}], "volumes": [{"name": "v"}]}
    with pytest.raises(TypeError):
        copy_path(pod, "spec", "containers", 0, "name")


def limited_template(tag: str) -> PodTemplate:
    """:func:`rich_template` whose primary container also has limits (below the task's
    requests: the render raises them), a port and a securityContext, for the layers
    above to merge into."""
    spec = copy.deepcopy(rich_template(tag).pod_spec)
    primary = spec["containers"][0]
    primary.update(resources={"limits": {"cpu": "1", "memory": "1Gi"}},
                   ports=[{"containerPort": 9000}], securityContext={"runAsUser": 1000})
    return PodTemplate(spec, labels={"team": tag})


PLATFORMS = [
    Platform(defaultImage="python:3.11"),
    Platform.model_validate({
        "defaultImage": "python:3.11",
        "defaultResources": {"requests": {"ephemeral-storage": "1Gi"},
                             "limits": {"ephemeral-storage": "2Gi"}},
        "resourceTolerations": {"memory": [{"key": "mem", "operator": "Exists"}]},
        "policy": {"enforce": {"containers": [{
            "name": "default", "securityContext": {"allowPrivilegeEscalation": False},
            "env": [{"name": "POLICY", "value": "1"}]}]}}}),
]


def test_renders_again_under_other_platforms_and_changed_copies_change_nothing() -> None:
    """Every task type, its task's requests above its template's limits: later renders
    (which fold the task's own layers composed, from a pod kept for them) under
    platforms that fill defaultResources, add tolerations and enforce a policy, and
    changes to copied results, reach no template and no other render."""
    made: list[Task] = []
    templates: list[PodTemplate] = []
    for task_type in TYPES:
        own = limited_template(task_type)
        roles = {role: rich_template(f"{task_type}-{role}")
                 for role in ("master", "worker", "scheduler", "driver", "executor", "head")}
        sample = make_sample_task(MANAGER, task_type, pod_template=own, role_templates=roles)
        made.append(sample.with_overrides(requests=Resources(cpu="2", memory="2Gi"),
                                          name=sample.name))
        templates += [own, *roles.values()]
    before = [copy.deepcopy((t.pod_spec, t.labels, t.annotations)) for t in templates]
    expected = []
    for platform in PLATFORMS:
        first = render(made, platform=platform, plugin_manager=MANAGER, copy=True)
        assert_valid(first)
        expected.append(json.dumps(first))
    for _ in range(3):
        for platform, text in zip(PLATFORMS, expected, strict=True):
            assert json.dumps(render(made, platform=platform, plugin_manager=MANAGER)) == text
            copied = render(made, platform=platform, plugin_manager=MANAGER, copy=True)
            for obj in containers_in(copied):
                if isinstance(obj, dict):
                    obj["changed"] = True
                else:
                    obj.append("changed")
    assert [(t.pod_spec, t.labels, t.annotations) for t in templates] == before

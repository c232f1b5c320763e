"""An operator layer removes a field it owns with ``REMOVE``: gone from the role's pod
whatever a lower layer set, and the kit checks the declaration holds. An empty list is a
value and stays; a plain None removes too, but the kit takes it for a drop by mistake."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from podtemplate import Platform, PodTemplate, RenderContext, RoleSpec, Task, TaskType, render
from podtemplate.conformance.declarations import declaration_findings
from podtemplate.dispatch import build_plugin_manager
from podtemplate.model.roles import removals_as_null
from podtemplate.plugin import (
    REMOVE,
    FieldDecl,
    TaskTypePlugin,
    pod_manifest,
    sample_function_task,
    single_pod_role,
)
from podtemplate.testing import Kit

OWNED = (FieldDecl("spec.containers[primary].args", "the operator's entrypoint takes none"),
         FieldDecl("spec.hostNetwork", "the operator's pods never share the node's network"))


class Removing(TaskTypePlugin):
    """A one-pod task type whose operator layer removes ``args`` and ``hostNetwork`` (or
    sets ``args`` to ``value`` and ``hostNetwork`` to false); ``readd`` makes its build
    put ``args`` back."""

    task_type = TaskType(name="removing", distribution="test-removing")

    def __init__(self, value: Any = REMOVE, *, readd: bool = False) -> None:
        self.value = value
        self.readd = readd

    def define_roles(self, task: Task, context: RenderContext) -> list[RoleSpec]:
        network = REMOVE if self.value is REMOVE else False
        layer = {"spec": {"hostNetwork": network,
                          "containers": [{"name": "primary", "args": self.value}]}}
        return [single_pod_role("removing", operator_layer=layer, owned=OWNED)]

    def build(self, task: Task, roles: Sequence[RoleSpec], pods: Mapping[str, dict[str, Any]],
              context: RenderContext) -> list[dict[str, Any]]:
        pod = pods["pod"]
        if self.readd:
            pod["spec"]["containers"][0]["args"] = ["--again"]
        return [pod_manifest(task, pod, context)]

    def sample(self, pod_template: PodTemplate | None, pod_template_name: str | None,
               role_templates: Mapping[str, PodTemplate]) -> Task:
        return sample_function_task("removing", image="python:3.11-slim",
                                    pod_template=pod_template,
                                    pod_template_name=pod_template_name)


HOST = PodTemplate(pod_spec={"hostNetwork": True,
                             "containers": [{"name": "primary", "args": ["--from-template"]}]})
TASK = Task(name="t", task_type="removing", image="busybox:1.36", args=["--from-task"],
            pod_template=HOST)


def _spec(plugin: Removing) -> dict[str, Any]:
    manager = build_plugin_manager([plugin], load_entry_points=False)
    [pod] = render(TASK, platform=Platform(), plugin_manager=manager)
    spec: dict[str, Any] = pod["spec"]
    return spec


def test_remove_takes_the_field_out_whatever_a_lower_layer_set() -> None:
    spec = _spec(Removing())
    assert "hostNetwork" not in spec
    assert "args" not in spec["containers"][0]
    assert spec["containers"][0]["image"] == "busybox:1.36"


def test_an_empty_list_is_a_value_and_stays() -> None:
    assert _spec(Removing([]))["containers"][0]["args"] == []


def test_the_kit_accepts_the_declaration_and_the_probe_passes() -> None:
    kit = Kit("removing", extra_plugins=[Removing()])
    assert declaration_findings(kit) == []
    for layer in ("cluster", "task"):
        assert kit.probe_layer(layer)[1] == []


def test_the_kit_fails_a_removed_field_the_build_puts_back() -> None:
    kit = Kit("removing", extra_plugins=[Removing(readd=True)])
    [finding] = declaration_findings(kit)
    assert finding.field == "spec.containers[primary].args"
    assert "removed by the operator layer (REMOVE), but the role's pod holds ['--again']" \
        in finding.message


def test_the_kit_takes_a_plain_none_on_an_owned_field_for_a_drop() -> None:
    assert "args" not in _spec(Removing(None))["containers"][0]
    kit = Kit("removing", extra_plugins=[Removing(None)])
    findings = declaration_findings(kit)
    assert {f.field for f in findings} == {"spec.containers[primary].args"}
    assert "removes it with None: write REMOVE" in findings[0].message


def test_a_layer_without_remove_is_folded_as_it_is() -> None:
    layer = {"spec": {"containers": [{"name": "primary", "args": ["a"]}]}}
    assert removals_as_null(layer) is layer
    assert removals_as_null({"spec": {"x": [REMOVE]}}) == {"spec": {"x": [None]}}
    assert repr(REMOVE) == "REMOVE"

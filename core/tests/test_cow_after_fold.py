"""What the render writes after the fold of layers 1-6 - the limits raised to a higher
layer's request (``reconcile_limits``), ``defaultResources``, resource tolerations, the
operator layer, the policy - never reaches a template, a task's compiled layers, the pod
kept on a layer for later renders (``resolve._fast.started_pod``) or the layers composed
once (``resolve._fast.composed_runs``): the same tasks rendered again, under the same or
another platform, give what a plain fold (explain's) gives."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from podtemplate import (
    Platform,
    PodTemplate,
    Resources,
    Role,
    RoleSpec,
    make_context,
    resolve_pod,
    task,
)
from podtemplate.testing import assert_valid_pod_template

# A template whose primary container sets a limit that the task's own, higher layer
# (its settings) requests more than: reconcile_limits raises the limit (issue 21). The
# task's own layers (template, settings) are then folded as one composed layer, which
# is the first the role folds when the platform has no cluster template.
TEMPLATE = {
    "containers": [{
        "name": "primary",
        "env": [{"name": "TEAM", "value": "ml"}],
        "ports": [{"containerPort": 8080}],
        "securityContext": {"runAsUser": 1000},
        "resources": {"limits": {"cpu": "1"}},
    }],
}
OPERATOR = {"spec": {"containers": [{
    "name": "trainer",
    "env": [{"name": "MASTER_PORT", "value": "23456"}],
    "ports": [{"containerPort": 23456, "name": "pytorchjob-port"}],
}]}}
PLATFORMS = {
    "plain": {"defaultImage": "python:3.11"},
    "defaults": {"defaultImage": "python:3.11",
                 "defaultResources": {"requests": {"memory": "1Gi"},
                                      "limits": {"memory": "2Gi"}}},
    "policy": {"defaultImage": "python:3.11", "policy": {"enforce": {"containers": [
        {"name": "default", "securityContext": {"allowPrivilegeEscalation": False}}]}}},
}


def _case() -> tuple[Any, PodTemplate, RoleSpec]:
    def job() -> None: ...

    template = PodTemplate(copy.deepcopy(TEMPLATE))
    made = task(name="t", pod_template=template, requests=Resources(cpu="2"),
                env={"RUN": "1"})(job)
    role_spec = RoleSpec(name="worker", template_path="", container_name="trainer",
                         operator_layer=OPERATOR)
    return made, template, role_spec


def _render(made: Any, role_spec: RoleSpec, platform: str, *, plain: bool = False) -> str:
    pod = resolve_pod(made, role_spec,
                      make_context(platform=Platform.model_validate(PLATFORMS[platform])),
                      provenance={} if plain else None)
    assert_valid_pod_template(pod)
    return json.dumps(pod)


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
def test_rendering_again_changes_no_template_and_no_later_render(platform: str) -> None:
    made, template, role_spec = _case()
    expected = _render(made, role_spec, platform, plain=True)
    # The first render folds layer by layer, the second composes the task's layers, the
    # third starts from the pod kept on the composition.
    renders = [_render(made, role_spec, platform) for _ in range(4)]
    assert renders == [expected] * 4
    assert template.pod_spec == TEMPLATE
    assert _render(made, role_spec, platform, plain=True) == expected


def test_one_platform_s_render_does_not_reach_another_s() -> None:
    made, template, role_spec = _case()
    expected = {name: _render(made, role_spec, name, plain=True) for name in PLATFORMS}
    for _ in range(3):
        for name in sorted(PLATFORMS):
            assert _render(made, role_spec, name) == expected[name], name
    assert template.pod_spec == TEMPLATE
    assert json.loads(expected["plain"])["spec"]["containers"][0]["resources"] == {
        "limits": {"cpu": "2"}, "requests": {"cpu": "2"}}


def test_a_container_list_taken_whole_is_copied_before_its_primary_changes() -> None:
    """A layer that leaves the pod without containers (here the platform's interruptible
    fragment, ``$patch: replace`` with nothing) lets the next clean layer's container list
    be taken by reference; the settings and defaultResources folded into its primary
    container (the shortcut that merges at that container, ``primary_only``) copy it
    first. Else they change the task's template, or the role's settings layer kept on
    the role, which another platform's render then shows."""
    def job() -> None: ...

    template = PodTemplate({"containers": [{"name": "primary", "image": "x"}]})
    made = task(name="t", pod_template=template, env={"A": "1"}, interruptible=True)(job)
    role_made = task(name="u", interruptible=True)(job)
    worker = RoleSpec(name="worker", template_path="", role=Role(image="img:2"))
    emptied = {"defaultImage": "python:3.11",
               "interruptible": {"containers": [{"$patch": "replace"}]}}
    plain = Platform.model_validate(emptied)
    filled = Platform.model_validate({**emptied,
                                      "defaultResources": {"requests": {"memory": "1Gi"}}})
    pod = RoleSpec(name="pod", template_path="")
    for _ in range(2):
        resolve_pod(made, pod, make_context(platform=plain))
    assert template.pod_spec == {"containers": [{"name": "primary", "image": "x"}]}
    expected = json.dumps(resolve_pod(role_made, worker, make_context(platform=plain),
                                      provenance={}))
    resolve_pod(role_made, worker, make_context(platform=filled))
    assert json.dumps(resolve_pod(role_made, worker, make_context(platform=plain))) == expected


def _change_everything(value: Any) -> None:
    if isinstance(value, dict):
        for item in list(value.values()):
            _change_everything(item)
        value["changed"] = True
    elif isinstance(value, list):
        for item in list(value):
            _change_everything(item)
        value.append("changed")


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
def test_a_caller_changing_every_value_resolve_pod_returns_changes_nothing_else(
        platform: str) -> None:
    """``podtemplate.resolve_pod`` hands its caller a pod of its own, as ``render`` does:
    changed everywhere, over four resolutions (the first fold, the composition, the pod
    kept on it), it reaches no template and no later resolution."""
    made, template, role_spec = _case()
    expected = _render(made, role_spec, platform, plain=True)
    context = make_context(platform=Platform.model_validate(PLATFORMS[platform]))
    for _ in range(4):
        pod = resolve_pod(made, role_spec, context)
        assert json.dumps(pod) == expected
        _change_everything(pod)
    assert template.pod_spec == TEMPLATE
    assert _render(made, role_spec, platform) == expected

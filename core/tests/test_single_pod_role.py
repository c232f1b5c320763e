"""The task types whose task is one pod share one way to say so: ``single_pod_role``."""

from __future__ import annotations

import pytest
from podtemplate.dispatch import build_plugin_manager, define_roles, make_sample_task
from podtemplate.plugin import POD_ROLE, FieldDecl, single_pod_role
from podtemplate.render import make_context


def test_the_role_is_the_manifest_and_says_why_it_takes_no_role_config() -> None:
    owned = (FieldDecl("spec.containers[primary].command", "runs the script"),)
    layer = {"spec": {"containers": [{"name": "primary", "command": ["sh"]}]}}
    role = single_pod_role("shell", operator_layer=layer, owned=owned)
    assert (role.name, role.template_path, role.role, role.owned) == ("pod", "", None, owned)
    assert role.operator_layer == layer and role.operator_layer is not layer
    assert role.no_role_config == ("a shell task is one pod: the task's own template and "
                                   "settings are its pod's")
    assert single_pod_role("container").operator_layer == {}


@pytest.mark.parametrize(("task_type", "kind"), [
    ("python", "Python"), ("container", "container"), ("shell", "shell")])
def test_each_one_pod_task_type_uses_it(task_type: str, kind: str) -> None:
    manager = build_plugin_manager()
    context = make_context(plugin_manager=manager)
    (role,) = define_roles(make_sample_task(manager, task_type), context)
    assert role.name == POD_ROLE and role.template_path == "" and role.role is None
    assert role.no_role_config == single_pod_role(kind).no_role_config

"""``primary_container(pod, role)``: the container of a role's pod that runs the task, for
every installed task type and role, and for a task whose template names its own primary
behind a sidecar."""

from __future__ import annotations

import pytest
from podtemplate import Platform, PodTemplate, render, task
from podtemplate.dispatch import build_plugin_manager, task_types
from podtemplate.plugin import PluginError, RoleSpec, primary_container
from podtemplate.testing import Kit

TYPES = sorted(task_types(build_plugin_manager()))
# The operator's container name where the task type has one (facts of each operator).
KNOWN = {("pytorch", "master"): "pytorch", ("pytorch", "worker"): "pytorch",
         ("dask", "scheduler"): "scheduler", ("spark", "driver"): "spark-kubernetes-driver",
         ("ray", "head"): "ray-head", ("python", "pod"): "primary"}


@pytest.mark.parametrize("task_type", TYPES)
def test_every_role_of_every_task_type(task_type: str) -> None:
    baseline = Kit(task_type).baseline
    assert baseline.error is None and baseline.roles
    for role in baseline.roles:
        located = baseline.pods[role.name]
        assert located is not None, role.name
        found = primary_container(located.pod, role)
        assert found["name"] == located.primary, (task_type, role.name)
        assert found is next(c for c in located.pod["spec"]["containers"]
                             if c["name"] == located.primary)
        if (task_type, role.name) in KNOWN:
            assert found["name"] == KNOWN[task_type, role.name]


SIDECAR_FIRST = PodTemplate(pod_spec={"containers": [
    {"name": "proxy", "image": "envoy:1"}, {"name": "main"}]}, primary_container_name="main")


@task(image="ghcr.io/acme/etl:1", pod_template=SIDECAR_FIRST)
def etl() -> None: ...


def test_without_an_operator_name_the_default_container_annotation_decides() -> None:
    [pod] = render(etl, platform=Platform())
    assert pod["spec"]["containers"][0]["name"] == "main"
    pod["spec"]["containers"].reverse()  # a pod whose primary is not first
    assert primary_container(pod)["image"] == "ghcr.io/acme/etl:1"
    assert primary_container(pod, RoleSpec(name="pod", template_path=""))["name"] == "main"
    del pod["metadata"]["annotations"]
    assert primary_container(pod)["name"] == "proxy"  # no annotation: the first


def test_a_pod_without_that_container_is_a_plugin_error() -> None:
    role = RoleSpec(name="worker", template_path="spec", container_name="pytorch")
    with pytest.raises(PluginError, match="no primary container 'pytorch'") as caught:
        primary_container({"spec": {"containers": [{"name": "main"}]}}, role)
    assert caught.value.role == "worker"
    with pytest.raises(PluginError, match="no container"):
        primary_container({"spec": {}})

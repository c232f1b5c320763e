"""Bad input fails with one clear error naming the field and the fix; the CLI exits 2
and writes nothing."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Any

import pytest
from podtemplate import DefinitionError, Platform, PodTemplate, Role, render, task
from podtemplate.testing import render_cli
from podtemplate_dask import Dask

IMAGE = "ghcr.io/dask/dask:2024.12.1"


@pytest.mark.parametrize("replicas", [0, -1])
def test_zero_or_negative_workers(replicas: int) -> None:
    with pytest.raises(DefinitionError, match=f"replicas must be at least 1, got {replicas}"):
        Dask(workers=Role(replicas=replicas))


def test_scheduler_is_one_pod() -> None:
    with pytest.raises(DefinitionError) as error:
        Dask(scheduler=Role(replicas=2))
    assert error.value.field == "task_config.scheduler.replicas"
    assert "workers=Role(replicas=N)" in str(error.value)


def test_job_runner_is_one_pod() -> None:
    with pytest.raises(DefinitionError, match="job runner is one pod"):
        Dask(job_runner=Role(replicas=3))


@pytest.mark.parametrize("value", [-1, True, "60", 1.5])
def test_idle_timeout_must_be_a_non_negative_int(value: Any) -> None:
    with pytest.raises(DefinitionError, match="idle_timeout"):
        Dask(idle_timeout=value)


def test_unknown_argument() -> None:
    with pytest.raises(DefinitionError, match="unknown argument 'worker'"):
        Dask(worker=Role(replicas=2))  # type: ignore[call-arg]


@pytest.mark.parametrize(("attribute", "operator_name"), [
    ("scheduler", "scheduler"), ("workers", "worker"), ("job_runner", "job")])
def test_role_template_renaming_the_operator_container(attribute: str,
                                                       operator_name: str) -> None:
    template = PodTemplate({"containers": [{"name": "main", "workingDir": "/w"}]},
                           primary_container_name="main")
    with pytest.raises(DefinitionError) as error:
        Dask(**{attribute: Role(pod_template=template)})
    assert error.value.field == f"task_config.{attribute}.pod_template.primary_container_name"
    assert f"'{operator_name}'" in str(error.value)


def test_role_template_with_primary_and_operator_container_both() -> None:
    template = PodTemplate({"containers": [{"name": "primary", "workingDir": "/a"},
                                           {"name": "worker", "workingDir": "/b"}]})
    with pytest.raises(DefinitionError) as error:
        Dask(workers=Role(pod_template=template))
    assert error.value.field == "task_config.workers.pod_template.containers[worker]"


@pytest.mark.parametrize(("port", "field"), [
    ({"containerPort": 8786}, "containers[primary].ports[0].containerPort"),
    ({"containerPort": 8787, "protocol": "TCP"}, "containers[primary].ports[0].containerPort"),
    ({"containerPort": 9000, "name": "tcp-comm"}, "containers[primary].ports[0].name"),
])
def test_scheduler_role_template_port_collision(port: dict[str, Any], field: str) -> None:
    template = PodTemplate({"containers": [{"name": "primary", "ports": [port]}]})
    with pytest.raises(DefinitionError) as error:
        Dask(scheduler=Role(pod_template=template))
    assert error.value.field == f"task_config.scheduler.pod_template.{field}"
    assert "8786" in str(error.value) and "8787" in str(error.value)


def test_sidecar_port_collision_in_scheduler_template() -> None:
    template = PodTemplate({"containers": [
        {"name": "proxy", "image": "envoy:1", "ports": [{"containerPort": 8787}]}]})
    with pytest.raises(DefinitionError, match="containers\\[proxy\\]"):
        Dask(scheduler=Role(pod_template=template))


def test_worker_template_may_use_the_scheduler_ports() -> None:
    """Workers are other pods: their ports do not collide with the scheduler's."""
    template = PodTemplate({"containers": [{"name": "primary",
                                            "ports": [{"containerPort": 8787}]}]})
    Dask(workers=Role(pod_template=template))


def test_other_scheduler_ports_are_kept(render_dask: Any) -> None:
    metrics = {"name": "metrics", "containerPort": 9100, "protocol": "TCP"}
    template = PodTemplate({"containers": [{"name": "primary", "ports": [metrics]}]})

    @task(image=IMAGE, task_config=Dask(scheduler=Role(pod_template=template)))
    def metered() -> None: ...

    job = render_dask(metered)
    ports = job["spec"]["cluster"]["spec"]["scheduler"]["spec"]["containers"][0]["ports"]
    assert [p["containerPort"] for p in ports] == [9100, 8786, 8787]


def test_task_template_port_collision_fails_at_render(plugin_manager: Any,
                                                      platform: Platform) -> None:
    template = PodTemplate({"containers": [{"name": "primary",
                                            "ports": [{"containerPort": 8787}]}]})

    @task(image=IMAGE, pod_template=template, task_config=Dask())
    def clash() -> None: ...

    with pytest.raises(DefinitionError) as error:
        render(clash, platform=platform, plugin_manager=plugin_manager)
    assert (error.value.task, error.value.role) == ("clash", "scheduler")
    assert error.value.field == "spec.containers[primary].ports[0].containerPort"
    assert "task template" in str(error.value)


def test_cluster_template_port_collision_fails_at_render(plugin_manager: Any,
                                                         platform: Platform,
                                                         templates_dir: Any) -> None:
    folder = templates_dir({"clash.yaml": """
        apiVersion: v1
        kind: PodTemplate
        metadata: {name: clash}
        template:
          spec:
            containers:
              - name: exporter
                image: exporter:1
                ports: [{containerPort: 8786}]
        """})

    @task(image=IMAGE, pod_template_name="clash", task_config=Dask())
    def clash() -> None: ...

    with pytest.raises(DefinitionError, match=r"cluster template .*clash.*8786") as error:
        render(clash, platform=platform, templates=folder, plugin_manager=plugin_manager)
    assert error.value.field == "spec.containers[exporter].ports[0].containerPort"


def test_command_is_rejected(plugin_manager: Any, platform: Platform) -> None:
    @task(image=IMAGE, command=["python", "main.py"], task_config=Dask())
    def commanded() -> None: ...

    with pytest.raises(DefinitionError, match="command is not used") as error:
        render(commanded, platform=platform, plugin_manager=plugin_manager)
    assert error.value.field == "command"


# dask-kubernetes 2025.4.3, dask_kubernetes/operator/controller/controller.py:
# daskjob_create_components names the DaskCluster after the DaskJob, and
# build_scheduler_service_spec names its Service "<cluster>-scheduler"; a Service name is a
# DNS-1035 label. Checked when the task is defined.
def test_task_name_the_scheduler_service_cannot_carry() -> None:
    with pytest.raises(DefinitionError, match="is not a DNS-1035 label") as error:
        @task(name="2024-backfill", image=IMAGE, task_config=Dask())
        def long() -> None: ...
    assert error.value.task == "2024-backfill" and error.value.field == "name"
    assert "a DNS-1035 label" in str(error.value)


def test_a_long_name_is_cut_so_the_scheduler_service_name_fits() -> None:
    # Dask.object_name_limit is 63 - len("-scheduler"): the object name rule cuts to it.
    assert task(name="a" * 53, image=IMAGE, task_config=Dask())(lambda: None).object_name \
        == "a" * 53
    cut = task(name="a" * 54, image=IMAGE, task_config=Dask())(lambda: None).object_name
    assert len(cut) == 53 and cut.startswith("a" * 40)
    assert len(f"{cut}-scheduler") == 63


BAD_MODULES = {
    "zero_workers": """
        from podtemplate import Role, task
        from podtemplate_dask import Dask

        @task(image="dask:1", task_config=Dask(workers=Role(replicas=0)))
        def crunch() -> None: ...
    """,
    "renamed": """
        from podtemplate import PodTemplate, Role, task
        from podtemplate_dask import Dask

        sched = PodTemplate({"containers": [{"name": "sched"}]}, primary_container_name="sched")

        @task(image="dask:1", task_config=Dask(scheduler=Role(pod_template=sched)))
        def crunch() -> None: ...
    """,
    "ports": """
        from podtemplate import PodTemplate, task
        from podtemplate_dask import Dask

        @task(image="dask:1", task_config=Dask(),
              pod_template=PodTemplate({"containers": [
                  {"name": "primary", "ports": [{"containerPort": 8786}]}]}))
        def crunch() -> None: ...

        @task(image="dask:1", task_config=Dask())
        def fine() -> None: ...
    """,
}


@pytest.mark.parametrize("name", sorted(BAD_MODULES))
def test_cli_exit_2_and_nothing_written(name: str, tmp_path: Path) -> None:
    module = f"bad_dask_{name}"
    (tmp_path / f"{module}.py").write_text(textwrap.dedent(BAD_MODULES[name]))
    out = tmp_path / "out"
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = render_cli(f"{module}.py", "--output", str(out))
    finally:
        os.chdir(old)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr
    assert "fix:" in lines[0]
    assert not out.exists() or not any(out.iterdir())

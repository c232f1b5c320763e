"""Pod fields newer than the DaskJob CRD's pod schema are reported, never dropped silently."""

from __future__ import annotations

import copy
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from podtemplate import ManifestValidationError, PodTemplate, Role, make_context, render_task, task
from podtemplate.testing import render_cli
from podtemplate_dask import ROLE_PATHS, Dask, define_roles, strip_unknown_fields
from podtemplate_dask.crd_schema import newer_fields

IMAGE = "ghcr.io/dask/dask:2024.12.1"


def test_the_newer_fields_are_the_newcomers_not_the_classics() -> None:
    for role in ROLE_PATHS:
        newer = newer_fields(role)
        assert {"spec.os", "spec.schedulingGates", "spec.containers[*].resizePolicy",
                "spec.initContainers[*].restartPolicy"} <= set(newer)
        assert not {"spec.tolerations", "spec.containers[*].image", "metadata.labels",
                    "spec.nodeSelector", "spec.volumes[*].emptyDir"} & set(newer)


# The newer fields, each with where it lands in a template and where it is reported.
NEWER = {
    "spec.os": {"os": {"name": "linux"}},
    "spec.hostUsers": {"hostUsers": False},
    "spec.schedulingGates": {"schedulingGates": [{"name": "wait"}]},
    "spec.securityContext.appArmorProfile": {
        "securityContext": {"runAsNonRoot": True,
                            "appArmorProfile": {"type": "RuntimeDefault"}}},
    "spec.topologySpreadConstraints[0].minDomains": {"topologySpreadConstraints": [{
        "maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
        "minDomains": 2, "labelSelector": {"matchLabels": {"app": "x"}}}]},
}


@pytest.mark.parametrize("field", sorted(NEWER))
def test_newer_pod_field_is_reported_and_left_out(field: str, plugin_manager: Any,
                                                  platform: Any, check_daskjob: Any) -> None:
    @task(image=IMAGE, pod_template=PodTemplate(NEWER[field]), task_config=Dask())
    def modern() -> None: ...

    context = make_context(platform=platform, plugin_manager=plugin_manager)
    (job,) = render_task(modern, context)
    check_daskjob(job)
    reported = {(w.role, w.field) for w in context.warnings}
    assert reported == {(role, field) for role in ROLE_PATHS}
    assert all("CRD" in w.message and "prune" in w.message for w in context.warnings)
    top = field.split(".")[1].split("[")[0]
    for role, path in ROLE_PATHS.items():
        spec = _at(job, path)["spec"]
        if field.count(".") == 1:
            assert top not in spec, role
        else:  # the known parts of the object stay
            assert spec[top], role


@pytest.mark.parametrize("source", ["cluster template", "run override"])
def test_newer_field_from_a_shared_layer_is_reported_for_every_task(
        source: str, plugin_manager: Any, tmp_path: Path, check_daskjob: Any) -> None:
    """A template shared by many tasks is checked once per render: its verdict holds for
    each task that folds it in."""
    import yaml
    from podtemplate import Platform

    spec = {"os": {"name": "linux"}}
    override = None
    if source == "cluster template":
        (tmp_path / "default.yaml").write_text(yaml.safe_dump(
            {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "default"},
             "template": {"spec": spec}}))
        platform = Platform(templates=tmp_path, defaultTemplate="default", defaultImage=IMAGE)
    else:
        platform = Platform(defaultImage=IMAGE)
        override = PodTemplate(spec)

    @task(image=IMAGE, task_config=Dask())
    def first() -> None: ...

    @task(image=IMAGE, task_config=Dask())
    def second() -> None: ...

    context = make_context(platform=platform, plugin_manager=plugin_manager, override=override)
    for each in (first, second):
        (job,) = render_task(each, context)
        check_daskjob(job)
        assert all("os" not in _at(job, path)["spec"] for path in ROLE_PATHS.values())
    reported = {(w.task, w.role, w.field) for w in context.warnings}
    assert reported == {(name, role, "spec.os") for name in ("first", "second")
                        for role in ROLE_PATHS}


def test_newer_container_field_names_role_and_container(plugin_manager: Any, platform: Any,
                                                        check_daskjob: Any) -> None:
    resize = [{"resourceName": "cpu", "restartPolicy": "NotRequired"}]
    worker_template = PodTemplate({"containers": [{"name": "primary", "resizePolicy": resize},
                                                  {"name": "side", "image": "busybox:1.36",
                                                   "restartPolicy": "Always"}]})

    @task(image=IMAGE, task_config=Dask(workers=Role(pod_template=worker_template)))
    def resized() -> None: ...

    context = make_context(platform=platform, plugin_manager=plugin_manager)
    (job,) = render_task(resized, context)
    check_daskjob(job)
    assert {(w.role, w.field) for w in context.warnings} == {
        ("worker", "spec.containers[worker].resizePolicy"),
        ("worker", "spec.containers[side].restartPolicy"),
    }
    containers = job["spec"]["cluster"]["spec"]["worker"]["spec"]["containers"]
    assert [c["name"] for c in containers] == ["worker", "side"]
    assert all("resizePolicy" not in c and "restartPolicy" not in c for c in containers)


def test_known_fields_are_not_reported(plugin_manager: Any, platform: Any) -> None:
    template = PodTemplate({
        "nodeSelector": {"any/key.example.com": "v"},
        "securityContext": {"runAsUser": 1000, "seccompProfile": {"type": "RuntimeDefault"}},
        "volumes": [{"name": "scratch", "emptyDir": {"sizeLimit": "1Gi"}},
                    {"name": "cfg", "configMap": {"name": "cfg", "items": [
                        {"key": "a", "path": "a"}]}}],
        "containers": [{"name": "primary",
                        "resources": {"limits": {"example.com/anything": "1"}},
                        "ports": [{"name": "http", "containerPort": 8080}],
                        "livenessProbe": {"httpGet": {"path": "/", "port": "http"}},
                        "volumeMounts": [{"name": "scratch", "mountPath": "/scratch"}]}],
    })

    @task(image=IMAGE, pod_template=template, task_config=Dask())
    def classic() -> None: ...

    context = make_context(platform=platform, plugin_manager=plugin_manager)
    render_task(classic, context)
    assert context.warnings == []


def test_a_numeric_probe_port_is_refused_as_the_crd_types_it(plugin_manager: Any,
                                                              platform: Any) -> None:
    """The DaskJob CRD types int-or-string fields as strings (dask/dask-kubernetes#778):
    the API server rejects a number there, so the render does."""
    probe = {"livenessProbe": {"httpGet": {"path": "/", "port": 8080}}}
    template = PodTemplate({"containers": [{"name": "primary", **probe}]})

    @task(image=IMAGE, pod_template=template, task_config=Dask())
    def numeric() -> None: ...

    with pytest.raises(ManifestValidationError) as caught:
        render_task(numeric, make_context(platform=platform, plugin_manager=plugin_manager))
    text = str(caught.value)
    for part in ("task 'numeric'", "role 'job-runner'",
                 "spec.containers[primary].livenessProbe.httpGet.port", "must be a string",
                 "DaskJob CRD of dask-kubernetes operator 2025.4.3", "use the name"):
        assert part in text, text


def test_strip_reports_paths_and_leaves_known_parts() -> None:
    pod: dict[str, Any] = {
        "metadata": {"labels": {"a": "b"}},
        "spec": {"os": {"name": "linux"}, "containers": [
            {"name": "job", "image": "x", "lifecycle": {"preStop": {
                "sleep": {"seconds": 1}, "exec": {"command": ["true"]}}}},
            {"image": "y", "resources": {"claims": [{"name": "gpu"}], "limits": {"cpu": "1"}}},
        ]},
    }
    stripped = strip_unknown_fields(pod, "job-runner")
    assert stripped == ["spec.os", "spec.containers[job].lifecycle.preStop.sleep",
                        "spec.containers[1].resources.claims"]
    assert pod == {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [
        {"name": "job", "image": "x", "lifecycle": {"preStop": {"exec": {"command": ["true"]}}}},
        {"image": "y", "resources": {"limits": {"cpu": "1"}}},
    ]}}


def test_the_crd_check_itself_catches_a_newer_field(render_dask: Callable[..., Any],
                                                    check_daskjob: Any) -> None:
    """Without the stripping, the CRD validation of these tests would fail: the check is
    strict about unknown fields, as the API server's strict field validation is."""
    @task(image=IMAGE, task_config=Dask())
    def plain() -> None: ...

    job = render_dask(plain)
    for path in ROLE_PATHS.values():
        broken = copy.deepcopy(job)
        _at(broken, path)["spec"]["os"] = {"name": "linux"}
        with pytest.raises(AssertionError, match="os: unknown field"):
            check_daskjob(broken)
        broken = copy.deepcopy(job)
        _at(broken, path)["spec"]["containers"][0]["resizePolicy"] = []
        with pytest.raises(AssertionError, match="resizePolicy"):
            check_daskjob(broken)


def test_newer_fields_are_declared_unsupported_for_coverage(plugin_manager: Any,
                                                            platform: Any) -> None:
    @task(image=IMAGE, task_config=Dask())
    def plain() -> None: ...

    roles = define_roles(plain, make_context(platform=platform, plugin_manager=plugin_manager))
    for role in roles:
        declared = role.declared("spec.os")
        assert declared is not None and declared.reason == "CRD schema", role.name
        for container in ("primary", "log-shipper"):
            resize = role.declared(f"spec.containers[{container}].resizePolicy")
            assert resize is not None and resize.reason == "CRD schema"
        assert role.declared("spec.initContainers[fetch].restartPolicy") is not None
        assert role.declared("spec.tolerations") is None
        assert role.declared("spec.containers[primary].image") is None


def test_cli_prints_the_warning_and_renders(tmp_path: Path) -> None:
    (tmp_path / "modern_dask.py").write_text(
        "from podtemplate import PodTemplate, task\n"
        "from podtemplate_dask import Dask\n"
        f"@task(image={IMAGE!r}, pod_template=PodTemplate({{'hostUsers': False}}),\n"
        "      task_config=Dask())\n"
        "def modern() -> None: ...\n")
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = render_cli("modern_dask.py")
    finally:
        os.chdir(old)
    assert result.exit_code == 0, result.output
    assert "kind: DaskJob" in result.stdout
    assert "hostUsers" not in result.stdout
    for role in ROLE_PATHS:
        assert f"role '{role}', spec.hostUsers:" in result.stderr


def _at(manifest: Mapping[str, Any], path: str) -> dict[str, Any]:
    node: Any = manifest
    for part in path.split("."):
        node = node[part]
    return node  # type: ignore[no-any-return]

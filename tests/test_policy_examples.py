"""The bundled examples under the restricted example platform, compliant sample tasks of
every task type under restricted, and the policy applied to existing manifests."""

from __future__ import annotations

from pathlib import Path

import pytest
from podtemplate.dispatch import build_plugin_manager, task_types
from podtemplate.platform import load_platform
from podtemplate.policy import pod_security
from podtemplate.policy.manifests import check_manifests, pods_in
from podtemplate.testing import render_cli, rendered_documents
from podtemplate.testing.policy_kit import (
    assert_valid_manifest,
    make_platform,
    role_names,
    sample,
    violations_of,
    write_templates,
)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
RESTRICTED = EXAMPLES / "platform-restricted.yaml"
MANAGER = build_plugin_manager()


def test_every_example_renders_under_the_restricted_platform() -> None:
    result = render_cli(str(EXAMPLES), "--platform", str(RESTRICTED))
    assert result.exit_code == 0, result.output
    assert "warning" not in result.stderr
    manifests = rendered_documents(result.stdout)
    kinds = {m["kind"] for m in manifests}
    assert {"Pod", "PyTorchJob", "DaskJob", "SparkApplication", "RayJob"} <= kinds
    policy = load_platform(RESTRICTED).policy
    pods = 0
    for manifest in manifests:
        assert_valid_manifest(manifest, MANAGER)
        for _, pod in pods_in(manifest):
            pods += 1
            assert pod_security(pod, "restricted") == []
            for c in pod["spec"]["containers"] + pod["spec"].get("initContainers", []):
                assert c["image"].startswith(policy.allowed_registries or ())
    assert pods >= 20
    # the same manifests, judged again as existing files, pass too
    assert check_manifests([("out.yaml", m) for m in manifests], load_platform(RESTRICTED),
                           MANAGER) == []


def test_the_examples_would_not_pass_restricted_without_the_policy() -> None:
    result = render_cli(str(EXAMPLES), "--platform", str(EXAMPLES / "platform.yaml"))
    manifests = rendered_documents(result.stdout)
    violations = check_manifests([("plain.yaml", m) for m in manifests],
                                 load_platform(RESTRICTED), MANAGER)
    rules = {v.rule for v in violations}
    assert {"restricted: runAsNonRoot", "restricted: seccompProfile", "enforce"} <= rules
    assert all(v.origin is not None and v.origin.file == "plain.yaml" for v in violations
               if v.rule != "enforce" and "not set" not in str(v))


def test_a_hostile_override_fails_every_example_task(tmp_path: Path) -> None:
    override = tmp_path / "override.yaml"
    override.write_text("apiVersion: v1\nkind: PodTemplate\ntemplate:\n  spec:\n    hostPID: true\n",
                        encoding="utf-8")
    out = tmp_path / "out"
    result = render_cli(str(EXAMPLES), "--platform", str(RESTRICTED),
                        "--override", str(override), "--output", str(out))
    assert result.exit_code == 2 and result.stdout == ""
    assert not out.exists() or not any(out.iterdir())
    lines = result.stderr.strip().splitlines()
    assert all(line.startswith("error: task '") for line in lines)
    passing = rendered_documents(render_cli(str(EXAMPLES), "--platform", str(RESTRICTED)).stdout)
    # errors name a task as written: the task-name annotation, else the object name
    tasks = {m["metadata"].get("annotations", {}).get(
        "podtemplate.io/task-name", m["metadata"]["labels"]["podtemplate.io/task"])
        for m in passing}
    assert {line.split("'")[1] for line in lines} == tasks
    assert all("spec.hostPID: restricted: hostNamespaces: value true, set by run override ("
               f"{override})" in line for line in lines)
    assert "Traceback" not in result.output


@pytest.mark.parametrize("task_type", sorted(task_types(MANAGER)))
def test_operator_fields_of_every_task_type_pass_restricted_under_a_compliant_template(
        task_type: str, tmp_path: Path) -> None:
    templates = write_templates(tmp_path / "templates")
    platform = make_platform(templates, "restricted")
    assert violations_of(MANAGER, sample(MANAGER, task_type), platform) == []
    assert len(role_names(MANAGER, task_type)) >= 1


def test_validate_names_the_manifest_file_and_the_pod_inside_it() -> None:
    job = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
           "metadata": {"name": "train"},
           "spec": {"pytorchReplicaSpecs": {"Worker": {"template": {"spec": {
               "hostNetwork": True,
               "containers": [{"name": "pytorch", "image": "docker.io/x:1"}]}}}}}}
    platform = load_platform(RESTRICTED)
    violations = check_manifests([("job.yaml", job)], platform, MANAGER)
    hosts = [v for v in violations if v.path == "spec.hostNetwork"]
    assert [(v.task, v.role, v.rule) for v in hosts] == [
        ("train", "spec.pytorchReplicaSpecs.Worker.template", "restricted: hostNamespaces")]
    assert str(hosts[0]).endswith("value true, set by manifest (job.yaml) (fix: remove "
                                  "hostNetwork or set it to false)")
    assert any(v.rule == "allowedRegistries" for v in violations)

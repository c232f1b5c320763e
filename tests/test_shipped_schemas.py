"""The repository stands alone: every task type that renders custom resources ships the
CRD of the operator version it targets, with its source, version and licence beside it,
and ``podtemplate crd slim`` makes such files from an upstream CRD."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result
from podtemplate.cli.main import main
from podtemplate.dispatch import build_plugin_manager, task_types
from podtemplate.schemas import shipped_crd
from podtemplate.schemas.slim import dumps, slim

REPO = Path(__file__).resolve().parents[1]
TARGETS = {  # task type -> {kind: (operator, licence)}; the first kind is the type's own
    "pytorch": {"PyTorchJob": ("Kubeflow Training Operator v1.9.4", "Apache-2.0"),
                # taskTypes.pytorch.operator: trainer renders these two
                "TrainingRuntime": ("Kubeflow Trainer v2.3.0", "Apache-2.0"),
                "TrainJob": ("Kubeflow Trainer v2.3.0", "Apache-2.0")},
    "dask": {"DaskJob": ("dask-kubernetes operator 2025.4.3", "BSD-3-Clause")},
    "spark": {"SparkApplication": ("Kubeflow Spark Operator v2.5.2", "Apache-2.0")},
    "ray": {"RayJob": ("KubeRay v1.7.0", "Apache-2.0")},
}


def crd_slim(*args: str) -> Result:
    return CliRunner().invoke(main, ["crd", "slim", *args], catch_exceptions=False)


@pytest.mark.parametrize("type_name", sorted(TARGETS))
def test_each_custom_resource_type_ships_its_operators_crd(type_name: str) -> None:
    task_type = task_types(build_plugin_manager())[type_name]
    crds = {shipped_crd(location).kind: location for location in task_type.crds}
    assert list(crds) == list(TARGETS[type_name])
    assert next(iter(crds)) == task_type.kind
    for kind, location in crds.items():
        crd = shipped_crd(location)
        operator, licence = TARGETS[type_name][kind]
        if kind == task_type.kind:
            assert task_type.api_version in crd.api_versions()
        assert (crd.operator, crd.source["license"]) == (operator, licence)
        upstream = crd.source["upstream"]
        assert upstream["repository"] and upstream["path"].endswith(".yaml")
        assert len(upstream["commit"]) == 40 and len(upstream["sha256"]) == 64
        package, _, resource = location.partition(":")
        text = resources.files(package).joinpath(resource).read_text(encoding="utf-8")
        # Made by the command, not edited: slimming the shipped file gives it back.
        assert dumps(slim(json.loads(text))) == text
        assert crd.source["generated_by"] == "podtemplate crd slim"


def test_a_crd_that_cannot_be_read_is_a_plugin_error() -> None:
    from podtemplate import PluginError

    for location in ("podtemplate_pytorch:crds/missing.json", "no_such_package:crds/x.json"):
        with pytest.raises(PluginError, match="cannot be read"):
            shipped_crd(location)


def upstream_crd(description: str = "a job") -> dict[str, Any]:
    schema = {"type": "object", "description": description, "properties": {
        "spec": {"type": "object", "description": "the spec", "properties": {
            "description": {"type": "string", "description": "a field named description"},
            "replicas": {"type": "integer", "minimum": 1}}}}}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "jobs.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                     "names": {"kind": "Job", "plural": "jobs", "singular": "job"},
                     "versions": [{"name": "v1beta1", "served": True, "storage": False,
                                   "schema": {"openAPIV3Schema": schema}},
                                  {"name": "v1", "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": schema}}]}}


PROVENANCE = ["--repository", "example/operator", "--path", "crds/jobs.yaml", "--ref", "v1.0.0",
              "--commit", "0" * 40, "--license", "Apache-2.0", "--operator", "Example v1.0.0"]


def test_the_command_slims_and_records_the_source(tmp_path: Path) -> None:
    upstream = tmp_path / "jobs.yaml"
    upstream.write_text("---\n" + yaml.safe_dump(upstream_crd()), encoding="utf-8")
    into = tmp_path / "crds"
    result = crd_slim(str(upstream), "--into", str(into), *PROVENANCE)
    assert result.exit_code == 0, result.output
    assert f"wrote {into / 'example.com_jobs.json'}" in result.output
    shipped = json.loads((into / "example.com_jobs.json").read_text(encoding="utf-8"))
    [version] = shipped["spec"]["versions"]
    assert version["name"] == "v1"
    schema = version["schema"]["openAPIV3Schema"]
    assert "description" not in schema and "description" not in schema["properties"]["spec"]
    assert schema["properties"]["spec"]["properties"]["description"] == {"type": "string"}
    source = json.loads((into / "example.com_jobs.source.json").read_text(encoding="utf-8"))
    assert source["operator"] == "Example v1.0.0" and source["upstream"]["ref"] == "v1.0.0"
    assert "served but not shipped: v1beta1" in source["slimmed"]
    # The same upstream again: no options needed, nothing changes, --check agrees.
    before = {p.name: p.read_text() for p in into.iterdir()}
    assert crd_slim(str(upstream), "--into", str(into)).exit_code == 0
    assert {p.name: p.read_text() for p in into.iterdir()} == before
    assert crd_slim(str(upstream), "--into", str(into), "--check").exit_code == 0
    # Without --into: the slimmed CRD on stdout, as shipped.
    printed = crd_slim(str(upstream))
    assert printed.exit_code == 0 and printed.stdout == before["example.com_jobs.json"]
    # A different upstream file: refused without its ref and commit; --check says stale.
    upstream.write_text(yaml.safe_dump(upstream_crd("a newer job")), encoding="utf-8")
    stale = crd_slim(str(upstream), "--into", str(into), "--check")
    assert stale.exit_code == 1 and "stale: " in stale.output
    refused = crd_slim(str(upstream), "--into", str(into))
    assert refused.exit_code == 2
    assert refused.output.splitlines() == [
        f"error: {upstream}: this upstream file is not the one recorded (fix: give --ref "
        "and --commit (and the other provenance options that changed))"]
    assert {p.name: p.read_text() for p in into.iterdir()} == before


def test_the_command_refuses_what_is_not_one_crd(tmp_path: Path) -> None:
    upstream = tmp_path / "two.yaml"
    upstream.write_text(yaml.safe_dump(upstream_crd()) + "---\n"
                        + yaml.safe_dump(upstream_crd()), encoding="utf-8")
    result = crd_slim(str(upstream), "--into", str(tmp_path / "out"), *PROVENANCE)
    assert result.exit_code == 2
    assert "expected one CustomResourceDefinition, found 2" in result.output
    assert not (tmp_path / "out").exists()
    fresh = tmp_path / "fresh.yaml"
    fresh.write_text(yaml.safe_dump(upstream_crd()), encoding="utf-8")
    result = crd_slim(str(fresh), "--into", str(tmp_path / "out"), "--ref", "v1",
                      "--commit", "0" * 40)
    assert result.exit_code == 2
    assert "provenance unknown (fix: give --repository, --path" in result.output
    for text in ("{not: [yaml", "kind: CustomResourceDefinition\nspec: {}\n"):
        fresh.write_text(text, encoding="utf-8")
        result = crd_slim(str(fresh))
        assert result.exit_code == 2 and len(result.output.splitlines()) == 1, result.output
        assert "Traceback" not in result.output
    assert crd_slim(str(tmp_path / "missing.yaml")).exit_code == 2

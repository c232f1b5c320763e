"""The repository stands alone: every task type that renders custom resources ships the
CRD of the operator version it targets, with its source, version and licence beside it,
and scripts/gen_crd.py makes such files from an upstream CRD."""

from __future__ import annotations

import importlib.util
import json
import sys
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from podtemplate.dispatch import build_plugin_manager, task_types
from podtemplate.schemas import shipped_crd

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


def script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def gen() -> ModuleType:
    return script("gen_crd")


@pytest.mark.parametrize("type_name", sorted(TARGETS))
def test_each_custom_resource_type_ships_its_operators_crd(type_name: str,
                                                           gen: ModuleType) -> None:
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
        # Made by the script, not edited: slimming the shipped file gives it back.
        assert gen.dumps(gen.slim(json.loads(text))) == text


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


def test_the_script_slims_and_records_the_source(gen: ModuleType, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    upstream = tmp_path / "jobs.yaml"
    upstream.write_text("---\n" + yaml.safe_dump(upstream_crd()), encoding="utf-8")
    into = tmp_path / "crds"
    assert gen.main([str(upstream), "--into", str(into), *PROVENANCE]) == 0
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
    assert gen.main([str(upstream), "--into", str(into)]) == 0
    assert {p.name: p.read_text() for p in into.iterdir()} == before
    assert gen.main([str(upstream), "--into", str(into), "--check"]) == 0
    # A different upstream file: refused without its ref and commit; --check says stale.
    upstream.write_text(yaml.safe_dump(upstream_crd("a newer job")), encoding="utf-8")
    assert gen.main([str(upstream), "--into", str(into), "--check"]) == 1
    assert gen.main([str(upstream), "--into", str(into)]) == 2
    assert "give --ref and --commit" in capsys.readouterr().err
    assert {p.name: p.read_text() for p in into.iterdir()} == before


def test_the_script_refuses_what_is_not_one_crd(gen: ModuleType, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    upstream = tmp_path / "two.yaml"
    upstream.write_text(yaml.safe_dump(upstream_crd()) + "---\n"
                        + yaml.safe_dump(upstream_crd()), encoding="utf-8")
    assert gen.main([str(upstream), "--into", str(tmp_path / "out"), *PROVENANCE]) == 2
    assert "expected one CustomResourceDefinition, found 2" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
    fresh = tmp_path / "fresh.yaml"
    fresh.write_text(yaml.safe_dump(upstream_crd()), encoding="utf-8")
    assert gen.main([str(fresh), "--into", str(tmp_path / "out"), "--ref", "v1",
                     "--commit", "0" * 40]) == 2
    assert "provenance unknown, give --repository" in capsys.readouterr().err

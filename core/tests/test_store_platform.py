"""The folder template store and platform.yaml: load-time errors name the file and fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from podtemplate import PlatformConfigError, TemplateFileError, load_platform
from podtemplate.errors import InvalidQuantityError
from podtemplate.files.store import FolderTemplateStore, find_template


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


def test_store_reads_multi_document_files_and_namespaces(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", "apiVersion: v1\nkind: PodTemplate\nmetadata: {name: a}\ntemplate: {spec: {}}\n"
          "---\napiVersion: v1\nkind: PodTemplate\nmetadata: {name: b, namespace: team}\ntemplate: {spec: {}}\n")
    write(tmp_path / "nested", "c.yml", "apiVersion: v1\nkind: PodTemplate\nmetadata: {name: c}\n"
          "template: {spec: {}}\n")
    store = FolderTemplateStore(tmp_path, home_namespace="platform")
    assert store.names() == [("platform", "a"), ("platform", "c"), ("team", "b")]
    assert find_template(store, "b", ["team", "platform"], required=True)[0] == "team"
    assert find_template(store, "zz", ["team"], required=False) is None


def test_store_rejects_wrong_kind_with_file(tmp_path: Path) -> None:
    path = write(tmp_path, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    with pytest.raises(TemplateFileError) as error:
        FolderTemplateStore(tmp_path, home_namespace="platform")
    assert str(path) in str(error.value) and "ConfigMap" in str(error.value)


def test_store_rejects_duplicates_and_bad_specs(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", "apiVersion: v1\nkind: PodTemplate\nmetadata: {name: a}\ntemplate: {spec: {}}\n"
          "---\napiVersion: v1\nkind: PodTemplate\nmetadata: {name: a}\ntemplate: {spec: {}}\n")
    with pytest.raises(TemplateFileError, match="defined twice"):
        FolderTemplateStore(tmp_path, home_namespace="platform")
    other = tmp_path / "other"
    path = write(other, "q.yaml", "apiVersion: v1\nkind: PodTemplate\nmetadata: {name: q}\ntemplate:\n"
                 "  spec: {containers: [{name: primary, resources: {limits: {cpu: 4 cores}}}]}\n")
    with pytest.raises(InvalidQuantityError) as error:
        FolderTemplateStore(other, home_namespace="platform")
    assert str(path) in str(error.value)
    assert "spec.containers[primary].resources.limits.cpu" in str(error.value)


def test_platform_resolves_templates_relative_to_file(tmp_path: Path) -> None:
    path = write(tmp_path, "platform.yaml", "namespace: team\ntemplates: ./t\n"
                 "fallbackNamespace: platform\ndefaultResources: {requests: {cpu: 1}}\n")
    platform = load_platform(path)
    assert platform.templates == tmp_path / "t"
    assert platform.lookup_namespaces == ["team", "platform"]
    assert platform.default_resources.requests == {"cpu": "1"}
    assert load_platform(path, namespace="other").namespace == "other"


@pytest.mark.parametrize(("text", "expected"), [
    ("colour: blue\n", "unknown key 'colour'"),
    ("namespace: Not_Valid\n", "DNS-1123"),
    ("defaultResources: {requests: {cpu: lots}}\n", "quantity"),
    ("interruptible: {tolerationz: []}\n", "unknown field"),
    ("- a\n- b\n", "one mapping"),
    # A key no container can request would never match: refused, naming the real name.
    ("resourceTolerations: {gpu: [{key: g, operator: Exists}]}\n", "nvidia.com/gpu"),
    ("resourceTolerations: {'bad name!': []}\n", "not a resource name pods request"),
    ("resourceTolerations: {fpga: []}\n", "example.com/fpga"),
])
def test_invalid_platform_is_an_error_naming_the_file(tmp_path: Path, text: str,
                                                      expected: str) -> None:
    path = write(tmp_path, "platform.yaml", text)
    with pytest.raises(PlatformConfigError) as error:
        load_platform(path)
    assert expected in str(error.value) and str(path) in str(error.value)

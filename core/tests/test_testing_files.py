"""The files a plugin's tests write (``podtemplate.testing.files``): a template document
the folder store reads as the admin wrote it, and task modules with names of their own."""

from __future__ import annotations

from pathlib import Path

import yaml
from podtemplate import Platform, PodTemplate, render, task
from podtemplate.testing import pod_template_yaml, write_task_module


def test_a_template_document_is_what_the_store_reads(tmp_path: Path) -> None:
    text = pod_template_yaml("gpu", {"nodeSelector": {"pool": "gpu"}}, labels={"team": "ml"})
    assert yaml.safe_load(text) == {
        "apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "gpu"},
        "template": {"spec": {"nodeSelector": {"pool": "gpu"}},
                     "metadata": {"labels": {"team": "ml"}}}}
    (tmp_path / "gpu.yaml").write_text(text)

    @task(image="python:3.12", pod_template=PodTemplate({}), pod_template_name="gpu")
    def train() -> None: ...

    (pod,) = render(train, platform=Platform(templates=tmp_path))
    assert pod["spec"]["nodeSelector"] == {"pool": "gpu"}
    assert pod["metadata"]["labels"]["team"] == "ml"
    assert "metadata" not in yaml.safe_load(pod_template_yaml("x", {}))["template"]


def test_each_folder_gets_a_module_of_its_own(tmp_path: Path) -> None:
    first, second = tmp_path / "test-a0", tmp_path / "test-a1"
    first.mkdir()
    second.mkdir()
    paths = [write_task_module(folder, "jobs", "\n    x = 1\n") for folder in (first, second)]
    assert [path.name for path in paths] == ["jobs_test_a0.py", "jobs_test_a1.py"]
    assert paths[0].read_text() == "\nx = 1\n"

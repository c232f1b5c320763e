"""Every label the renderer emits is one the API server accepts.

Kubernetes refuses an object whose label key or value breaks the label syntax (a value of
at most 63 characters from ``[A-Za-z0-9._-]``, alphanumeric at both ends; a key an optional
DNS subdomain prefix and such a name). Operators copy a role's template labels onto the
pods they create, so a bad value in a role pod fails only in the cluster, after submission
(a Ray ``worker:cpu`` role label did). Checked over every example and every installed task
type's conformance sample, on every object and every pod template inside it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from podtemplate.conformance.pod_checks import label_syntax_problems
from podtemplate.dispatch import build_plugin_manager, task_types
from podtemplate.testing import Kit, render_cli, rendered_documents

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
EXAMPLE_FILES = sorted(EXAMPLES.glob("*_tasks.py"))


def labelled(node: Any, path: str = "") -> Iterator[tuple[str, Mapping[str, Any]]]:
    """``(path, labels)`` of every ``metadata.labels`` map anywhere in ``node``."""
    if isinstance(node, Mapping):
        metadata = node.get("metadata")
        if isinstance(metadata, Mapping) and isinstance(metadata.get("labels"), Mapping):
            yield f"{path}.metadata.labels", metadata["labels"]
        for key, value in node.items():
            yield from labelled(value, f"{path}.{key}")
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from labelled(item, f"{path}[{index}]")


def problems_of(manifests: list[dict[str, Any]]) -> list[str]:
    found = []
    for manifest in manifests:
        name = f"{manifest.get('kind')}/{manifest.get('metadata', {}).get('name')}"
        for path, labels in labelled(manifest):
            found += [f"{name} {path}[{key}]: {problem}"
                      for key, problem in label_syntax_problems(labels)]
    return found


def sees_role_pods(manifests: list[dict[str, Any]]) -> bool:
    """Whether the walk saw every object's labels and, among custom resources, role pods'
    labels too (a walk that saw nothing would pass everything)."""
    seen = [sum(1 for _ in labelled(manifest)) for manifest in manifests]
    plain = all(manifest["kind"] in ("Pod", "ConfigMap") for manifest in manifests)
    return bool(manifests) and min(seen) >= 1 and (plain or sum(seen) > len(manifests))


RENDERS = [(str(path), "platform.yaml") for path in EXAMPLE_FILES] + [
    (f"{EXAMPLES / 'pytorch_tasks.py'}:train_vit", "platform-trainer.yaml")]


@pytest.mark.parametrize(("target", "platform"), RENDERS,
                         ids=[f"{Path(t).stem}-{p}" for t, p in RENDERS])
def test_every_label_of_every_example_is_valid(target: str, platform: str) -> None:
    result = render_cli(target, "--platform", str(EXAMPLES / platform))
    assert result.exit_code == 0, result.output
    manifests = rendered_documents(result.stdout)
    assert sees_role_pods(manifests)
    assert problems_of(manifests) == []


TARGETS = [(name, variant) for name, info in sorted(task_types(build_plugin_manager()).items())
           for variant in (None, *info.variants)]


@pytest.mark.parametrize(("task_type", "variant"), TARGETS,
                         ids=[f"{t}[{v}]" if v else t for t, v in TARGETS])
@pytest.mark.parametrize("layer", ["baseline", "task", "role"])
def test_every_label_of_every_conformance_sample_is_valid(task_type: str, variant: str | None,
                                                         layer: str) -> None:
    kit = Kit(task_type, variant=variant)
    rendered = kit.baseline if layer == "baseline" else kit.layer_render(layer, 0)
    assert rendered.error is None
    assert sees_role_pods(rendered.manifests)
    assert problems_of(rendered.manifests) == []


def test_the_check_finds_a_colon_in_a_role_pod_label() -> None:
    manifest = {"kind": "RayJob", "metadata": {"name": "x", "labels": {"a": "b"}},
                "spec": {"workerGroupSpecs": [{"template": {"metadata": {
                    "labels": {"podtemplate.io/role": "worker:cpu"}}}}]}}
    (problem,) = problems_of([manifest])
    assert "spec.workerGroupSpecs[0].template.metadata.labels[podtemplate.io/role]" in problem
    assert "'worker:cpu'" in problem

"""Every label the renderer emits is one the API server accepts.

Kubernetes refuses an object whose label key or value breaks the label syntax (a value of
at most 63 characters from ``[A-Za-z0-9._-]``, alphanumeric at both ends: apimachinery
IsValidLabelValue; a key an optional DNS subdomain prefix and such a name). Operators copy
a role's template labels onto the pods they create, so a bad value in a role pod fails
only in the cluster, after submission: KubeRay copies a worker group's pod labels onto the
pods it creates, and a ``:`` there (the role ``worker:cpu``) kept every Ray worker pod from
being created. Checked over every example and every installed task type's conformance
sample, on every object, every pod template inside it and every other label map a task
type writes (the SparkApplication's ``spec.driver.labels``), with the product's own check
and, for values, with the syntax written out here as a second opinion.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from podtemplate.conformance.pod_checks import label_syntax_problems
from podtemplate.dispatch import build_plugin_manager, task_types
from podtemplate.testing import Kit, render_cli, rendered_documents

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
EXAMPLE_FILES = sorted(EXAMPLES.glob("*_tasks.py"))
ROLE_LABEL = "podtemplate.io/role"
# IsValidLabelValue, written from the Kubernetes documentation (not the product's code).
LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")


def labelled(node: Any, path: str = "") -> Iterator[tuple[str, Mapping[str, Any]]]:
    """``(path, labels)`` of every map under a ``labels`` key anywhere in ``node``: each
    ``metadata.labels`` and the label maps a custom resource carries for its pods."""
    if isinstance(node, Mapping):
        for key, value in node.items():
            if key == "labels" and isinstance(value, Mapping):
                yield f"{path}.labels", value
            else:
                yield from labelled(value, f"{path}.{key}")
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from labelled(item, f"{path}[{index}]")


def value_problem(value: Any) -> str | None:
    """Why the API server would refuse ``value`` as a label value, by the syntax above."""
    if not isinstance(value, str):
        return f"{value!r} is not a string"
    if len(value) > 63 or not LABEL_VALUE.fullmatch(value):
        return f"{value!r} is not a valid label value"
    return None


def problems_of(manifests: list[dict[str, Any]]) -> list[str]:
    found = []
    for manifest in manifests:
        name = f"{manifest.get('kind')}/{manifest.get('metadata', {}).get('name')}"
        for path, labels in labelled(manifest):
            found += [f"{name} {path}[{key}]: {problem}"
                      for key, problem in label_syntax_problems(labels)]
            found += [f"{name} {path}[{key}]: {problem} (second opinion)"
                      for key, value in labels.items()
                      if (problem := value_problem(value)) is not None]
    return found


def sees_role_pods(manifests: list[dict[str, Any]]) -> bool:
    """Whether the walk saw every object's labels and, among custom resources, role pods'
    labels too (a walk that saw nothing would pass everything)."""
    seen = [sum(1 for _ in labelled(manifest)) for manifest in manifests]
    plain = all(manifest["kind"] in ("Pod", "ConfigMap") for manifest in manifests)
    return bool(manifests) and min(seen) >= 1 and (plain or sum(seen) > len(manifests))


def role_labels(manifests: list[dict[str, Any]]) -> set[Any]:
    return {labels[ROLE_LABEL] for manifest in manifests
            for _, labels in labelled(manifest) if ROLE_LABEL in labels}


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


def test_ray_worker_groups_are_labelled_with_a_valid_role_value() -> None:
    """The Ray example's worker groups ``cpu`` and ``gpu`` (roles ``worker:cpu`` and
    ``worker:gpu``) label their pods ``worker-cpu`` and ``worker-gpu``."""
    result = render_cli(str(EXAMPLES / "ray_tasks.py"), "--platform",
                        str(EXAMPLES / "platform.yaml"))
    assert result.exit_code == 0, result.output
    assert {"head", "worker-cpu", "worker-gpu", "submitter"} <= \
        role_labels(rendered_documents(result.stdout))


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
                    "labels": {ROLE_LABEL: "worker:cpu"}}}}]}}
    problem, second = problems_of([manifest])
    assert "spec.workerGroupSpecs[0].template.metadata.labels[podtemplate.io/role]" in problem
    assert "'worker:cpu'" in problem
    assert second.endswith("'worker:cpu' is not a valid label value (second opinion)")


def test_the_check_reads_the_label_maps_a_custom_resource_keeps_outside_metadata() -> None:
    """The Spark Operator puts ``spec.driver.labels`` on the driver pod: a bad value there
    is found as well as one in a ``metadata.labels``."""
    manifest = {"kind": "SparkApplication", "metadata": {"name": "x"},
                "spec": {"driver": {"labels": {ROLE_LABEL: "x" * 64}}}}
    found = problems_of([manifest])
    assert found and all(".spec.driver.labels[podtemplate.io/role]" in f for f in found)
    assert any(f.endswith("(second opinion)") for f in found)


@pytest.mark.parametrize("value", ["", "a", "a.b_c-d", "A1", "x" * 63])
def test_the_second_opinion_accepts_valid_values(value: str) -> None:
    assert value_problem(value) is None


@pytest.mark.parametrize("value", ["a:b", "-a", "a-", "x" * 64, "a b", 3])
def test_the_second_opinion_refuses_invalid_values(value: Any) -> None:
    assert value_problem(value) is not None

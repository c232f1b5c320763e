"""``with_overrides(pod_template=...)`` replaces the task's own template's pod spec, as on
Flyte (issue 30): flytekit serializes the override with the task's container and
propeller's ApplyPodTemplateOverride takes it as the task's pod spec; the labels and
annotations of both are merged, and the task's settings and the cluster template still
apply."""

from __future__ import annotations

import podtemplate
from podtemplate import Platform, PodTemplate, Resources, task
from podtemplate.testing import assert_valid_pod

PLATFORM = Platform(defaultImage="python:3.11")


def test_the_override_replaces_the_tasks_template_spec_and_merges_its_metadata() -> None:
    own = PodTemplate({"nodeSelector": {"pool": "cpu"}, "tolerations": [
        {"key": "cpu-only", "operator": "Exists"}]}, labels={"team": "ml"},
        annotations={"a": "1"})

    @task(image="train:1", requests=Resources(cpu=2), pod_template=own)
    def train() -> None: ...

    moved = train.with_overrides(pod_template=PodTemplate(
        {"nodeSelector": {"pool": "gpu"}}, labels={"size": "big"}))
    (pod,) = podtemplate.render(moved, platform=PLATFORM)
    assert_valid_pod(pod)
    spec = pod["spec"]
    assert spec["nodeSelector"] == {"pool": "gpu"}
    assert "tolerations" not in spec  # the task template's: replaced with its spec
    assert spec["containers"][0]["image"] == "train:1"
    assert spec["containers"][0]["resources"]["requests"] == {"cpu": "2"}
    labels = pod["metadata"]["labels"]
    assert (labels["team"], labels["size"]) == ("ml", "big")
    assert pod["metadata"]["annotations"]["a"] == "1"
    # the original keeps its own template
    (original,) = podtemplate.render(train, platform=PLATFORM)
    assert original["spec"]["nodeSelector"] == {"pool": "cpu"}


def test_overrides_without_a_template_keep_the_tasks_template() -> None:
    @task(image="train:1", pod_template=PodTemplate({"nodeSelector": {"pool": "cpu"}}))
    def train() -> None: ...

    (pod,) = podtemplate.render(train.with_overrides(image="train:2"), platform=PLATFORM)
    assert pod["spec"]["nodeSelector"] == {"pool": "cpu"}
    assert pod["spec"]["containers"][0]["image"] == "train:2"

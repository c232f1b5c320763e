"""``accelerator=`` as Flyte's ApplyGPUNodeSelectors (flyteplugins flytek8s/pod_helper.go)
gives it (issue 30): on a pod that asks for the GPU resource, the toleration
``<acceleratorLabel>=<device>:NoSchedule`` and the required node affinity
``<acceleratorLabel> In [<device>]``, ANDed into every term a template already has; a
pod without a GPU gets none of it."""

from __future__ import annotations

from typing import Any

import podtemplate
from podtemplate import Platform, PodTemplate, Resources, task
from podtemplate.testing import assert_valid_pod

LABEL = "cloud.example.com/gpu-type"
PLATFORM = Platform(defaultImage="python:3.11", acceleratorLabel=LABEL)


def _spec(*tasks: Any) -> list[dict[str, Any]]:
    pods = podtemplate.render(list(tasks), platform=PLATFORM)
    for pod in pods:
        assert_valid_pod(pod)
    return [pod["spec"] for pod in pods]


def _required(spec: dict[str, Any]) -> list[dict[str, Any]]:
    terms: list[dict[str, Any]] = spec["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    return terms


def test_a_gpu_pod_gets_the_devices_toleration_affinity_and_node_selector() -> None:
    @task(limits=Resources(gpu=2), accelerator="nvidia-l4")
    def train() -> None: ...

    (spec,) = _spec(train)
    assert spec["tolerations"] == [{"key": LABEL, "operator": "Equal", "value": "nvidia-l4",
                                    "effect": "NoSchedule"}]
    assert _required(spec) == [{"matchExpressions": [
        {"key": LABEL, "operator": "In", "values": ["nvidia-l4"]}]}]
    assert spec["nodeSelector"] == {LABEL: "nvidia-l4"}


def test_the_requirement_is_added_to_every_term_a_template_has() -> None:
    zone = {"key": "zone", "operator": "In", "values": ["a"]}
    arch = {"key": "arch", "operator": "In", "values": ["amd64"]}
    template = PodTemplate({"affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [zone]}, {"matchExpressions": [arch]}]}}},
        "tolerations": [{"key": "spot", "operator": "Exists"}]})

    @task(requests=Resources(gpu=1), accelerator="nvidia-l4", pod_template=template)
    def train() -> None: ...

    (spec,) = _spec(train)
    device = {"key": LABEL, "operator": "In", "values": ["nvidia-l4"]}
    assert _required(spec) == [{"matchExpressions": [zone, device]},
                               {"matchExpressions": [arch, device]}]
    assert {"key": "spot", "operator": "Exists"} in spec["tolerations"]
    assert len(spec["tolerations"]) == 2


def test_a_pod_without_a_gpu_gets_nothing_for_the_accelerator() -> None:
    @task(requests=Resources(cpu=1), accelerator="nvidia-l4")
    def prepare() -> None: ...

    (spec,) = _spec(prepare)
    assert "nodeSelector" not in spec and "affinity" not in spec
    assert "tolerations" not in spec

"""Issue 21, resources: flytekit's spellings (``mem``, ``ephemeral_storage``, ``gpu``),
numbers as quantities (also in templates), domain-qualified extended resources, and a
limit below a higher layer's request raised with a warning."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import podtemplate
import pytest
from podtemplate import DefinitionError, PodTemplate, PodTemplateError, Resources, task
from podtemplate.render import iter_render, make_context
from podtemplate.testing import assert_valid_pod


def _pods(tasks: Any, **options: Any) -> tuple[list[dict[str, Any]], list[str]]:
    context = make_context(**options)
    pods = list(iter_render(tasks if isinstance(tasks, list) else [tasks], context))
    for pod in pods:
        assert_valid_pod(pod)
    return pods, [str(warning) for warning in context.warnings]


def _resources(pod: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = pod["spec"]["containers"][0]["resources"]
    return found


def test_flytekit_spellings_and_numbers_render_as_kubernetes_resources() -> None:
    @task(image="python:3.11",
          requests=Resources(cpu=2, mem="1G", gpu=1, ephemeral_storage="10Gi"),
          limits=Resources(cpu=2.5, mem="1G", gpu=1))
    def train() -> None: ...

    (pod,), _ = _pods(train)
    assert _resources(pod) == {
        "requests": {"cpu": "2", "memory": "1G", "ephemeral-storage": "10Gi",
                     "nvidia.com/gpu": "1"},
        # an unset limit is the request, as on Flyte (resolve/resources.py)
        "limits": {"cpu": "2.5", "memory": "1G", "nvidia.com/gpu": "1",
                   "ephemeral-storage": "10Gi"}}


def test_numbers_are_quantities_in_templates_and_template_files(tmp_path: Path) -> None:
    file = tmp_path / "numbers.yaml"
    file.write_text("apiVersion: v1\nkind: PodTemplate\nmetadata: {name: numbers}\n"
                    "template:\n  spec:\n    containers:\n    - name: primary\n"
                    "      resources: {requests: {cpu: 2, memory: 1073741824}}\n")

    @task(image="python:3.11", pod_template=PodTemplate.from_yaml(file))
    def inline() -> None: ...

    @task(image="python:3.11", pod_template_name="numbers")
    def named() -> None: ...

    pods, _ = _pods([inline, named], templates=str(tmp_path))
    for pod in pods:
        assert _resources(pod)["requests"] == {"cpu": "2", "memory": "1073741824"}


def test_mem_and_memory_together_are_refused() -> None:
    with pytest.raises(DefinitionError, match="mem and memory both given"):
        Resources(mem="1Gi", memory="1Gi")


@pytest.mark.parametrize("name", ["mem", "fpga", "gpu_count", "nvidia.com/"])
def test_an_unqualified_extended_resource_names_the_qualified_form(name: str) -> None:
    with pytest.raises(DefinitionError) as raised:
        Resources(extra={name: "1"})
    message = str(raised.value)
    assert "nvidia.com/gpu" in message or "memory=" in message, message


def test_a_known_resource_given_as_extended_points_to_its_field() -> None:
    with pytest.raises(DefinitionError, match=r"write memory=\.\.\. instead"):
        Resources(extra={"memory": "1Gi"})


def test_qualified_extended_resources_and_hugepages_are_kept() -> None:
    resources = Resources(extra={"example.com/fpga": 1, "hugepages-2Mi": "512Mi"})
    assert resources.to_k8s() == {"example.com/fpga": "1", "hugepages-2Mi": "512Mi"}


def test_a_flytekit_request_limit_pair_gives_the_exact_replacement() -> None:
    with pytest.raises(DefinitionError) as raised:
        Resources(cpu=("1", "2"))
    assert "requests=Resources(cpu='1'), limits=Resources(cpu='2')" in str(raised.value)


def test_a_template_limit_below_the_task_request_is_raised_with_a_warning() -> None:
    # flytesnacks' multi-container example: the task requests more than the template's
    # limit; on Flyte the limit ends up at the request.
    template = PodTemplate({"containers": [{"name": "primary", "resources": {
        "limits": {"cpu": "1", "memory": "500Mi"}}}]})

    @task(image="python:3.11", pod_template=template, requests=Resources(cpu=2, mem="1Gi"))
    def heavy() -> None: ...

    (pod,), warnings = _pods(heavy)
    assert _resources(pod)["limits"] == {"cpu": "2", "memory": "1Gi"}
    assert any("cpu limit 1 of task template is raised to the request 2 of task settings"
               in w for w in warnings), warnings


def test_a_request_above_a_limit_of_the_same_layer_stays_an_error() -> None:
    @task(image="python:3.11", requests=Resources(cpu=2), limits=Resources(cpu=1))
    def wrong() -> None: ...

    with pytest.raises(PodTemplateError) as raised:
        podtemplate.render(wrong)
    assert raised.value.field == "spec.containers[primary].resources.requests.cpu"
    assert "request is <= its limit" in str(raised.value)


def test_a_request_above_a_limit_of_a_higher_layer_stays_an_error() -> None:
    @task(image="python:3.11", requests=Resources(cpu=2))
    def capped() -> None: ...

    override = PodTemplate({"containers": [{"name": "primary", "resources": {
        "limits": {"cpu": "1"}}}]})
    with pytest.raises(PodTemplateError) as raised:
        podtemplate.render(capped, override=override)
    assert raised.value.field == "spec.containers[primary].resources.requests.cpu"
    assert "request '2' is above the limit '1'" in str(raised.value)


class _FlytekitGPUAccelerator:
    """Shaped like flytekit.extras.accelerators.GPUAccelerator (A100 = GPUAccelerator(
    "nvidia-tesla-a100")): the device name is held in ``_device``."""

    def __init__(self, device: str) -> None:
        self._device = device


def test_a_flytekit_accelerator_object_is_refused_naming_its_device() -> None:
    with pytest.raises(DefinitionError, match=r"fix: write accelerator='nvidia-tesla-a100'"):
        @task(image="python:3.11", accelerator=_FlytekitGPUAccelerator("nvidia-tesla-a100"))
        def train() -> None: ...

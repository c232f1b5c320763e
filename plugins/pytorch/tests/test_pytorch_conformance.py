"""The conformance kit: every pod field at every layer reaches the master and the workers,
or is declared operator-owned with its reason. The elastic variant (workers only, started
by torchrun) is held to the same standard."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from podtemplate import PodTemplate, Role, Task
from podtemplate.testing import ConformanceSuite, SampleTaskFactory
from podtemplate_pytorch import Elastic, PyTorch

pytest_plugins = ["podtemplate.testing"]  # the one line that enables the kit


class TestPyTorchConformance(ConformanceSuite):
    task_type = "pytorch"


class TestPyTorchTrainerConformance(ConformanceSuite):
    """The same sample task for Kubeflow Trainer v2 (taskTypes.pytorch.operator: trainer):
    every field reaches the node pod of the TrainingRuntime, both objects valid against
    the Trainer CRDs."""

    task_type = "pytorch"
    variant = "trainer"


def _train() -> None:
    """The elastic sample's function; it does nothing."""


def elastic_sample(pod_template: PodTemplate | None, pod_template_name: str | None,
                   role_templates: Mapping[str, PodTemplate]) -> Task:
    config = PyTorch(worker=Role(pod_template=role_templates.get("worker"), replicas=3),
                     elastic=Elastic(min_replicas=2, max_replicas=4, nproc_per_node="gpu"),
                     shm_size="2Gi")
    return Task(name="sample-elastic", task_type="pytorch", fn=_train, image="train:1",
                pod_template=pod_template, pod_template_name=pod_template_name,
                task_config=config, module=__name__, attribute="_train")


class TestPyTorchElasticConformance(ConformanceSuite):
    task_type = "pytorch"

    @pytest.fixture(scope="class")
    @classmethod
    def make_sample_task(cls) -> SampleTaskFactory | None:
        return elastic_sample

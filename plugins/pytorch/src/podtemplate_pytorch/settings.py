"""``taskTypes.pytorch`` of platform.yaml: which operator runs PyTorch tasks."""

from __future__ import annotations

from typing import Literal

from podtemplate import RenderContext
from pydantic import BaseModel, ConfigDict

__all__ = ["OPERATORS", "PyTorchSettings", "TRAINER", "TRAINING_OPERATOR", "operator_of"]

TRAINING_OPERATOR = "training-operator"
TRAINER = "trainer"
OPERATORS = (TRAINING_OPERATOR, TRAINER)


class PyTorchSettings(BaseModel):
    """The platform's settings of the ``pytorch`` task type (unknown keys are errors).

    ``operator``: ``training-operator`` (the default) renders a Kubeflow Training Operator
    v1 ``PyTorchJob``; ``trainer`` renders a Kubeflow Trainer v2 ``TrainingRuntime`` and
    the ``TrainJob`` that runs it. Task code is the same for both.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    operator: Literal["training-operator", "trainer"] = "training-operator"


def operator_of(context: RenderContext) -> str:
    """The operator the platform renders PyTorch tasks for."""
    settings = context.task_type_settings("pytorch")
    return settings.operator if isinstance(settings, PyTorchSettings) else TRAINING_OPERATOR

"""``taskTypes.spark`` of platform.yaml: what the platform's Spark Operator runs."""

from __future__ import annotations

from podtemplate import RenderContext
from pydantic import BaseModel, ConfigDict

__all__ = ["SparkSettings", "WEBHOOK_ONLY", "webhook_on"]

# Spark Operator v2.5.2, internal/webhook/sparkpod_defaulter.go: mutateSparkPod applies
# these fields of the driver/executor spec (addGPU, addMemoryLimit) when a Spark pod is
# created; the controller itself never reads them. Without the webhook they do nothing.
WEBHOOK_ONLY = ("gpu", "memoryLimit")


class SparkSettings(BaseModel):
    """The platform's settings of the ``spark`` task type (unknown keys are errors).

    ``webhook``: whether the cluster's Spark Operator runs its mutating admission webhook
    (the Helm chart's ``webhook.enable``, true by default). The native ``gpu`` and
    ``memoryLimit`` fields take effect only through it; with ``false``, a render that
    writes them warns.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    webhook: bool = True


def webhook_on(context: RenderContext) -> bool:
    settings = context.task_type_settings("spark")
    return not isinstance(settings, SparkSettings) or settings.webhook

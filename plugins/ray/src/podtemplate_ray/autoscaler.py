"""``AutoscalerOptions``: KubeRay's ``rayClusterSpec.autoscalerOptions``, the options of
the in-tree autoscaler flytekit's Ray plugin exposes (idle timeout, upscaling mode,
image, env, resources)."""

from __future__ import annotations

from typing import Any, Literal

from podtemplate import ConfigModel, DefinitionError, Resources
from podtemplate.plugin import EnvValue, Int32, normalize_env
from pydantic import field_validator, model_validator

__all__ = ["AutoscalerOptions"]


class AutoscalerOptions(ConfigModel):
    """The autoscaler sidecar KubeRay adds to the head pod (KubeRay v1 RayCluster
    ``autoscalerOptions``): ``idle_timeout_seconds`` before an idle worker is removed,
    ``upscaling_mode`` (``Default``, ``Aggressive``, ``Conservative``), ``version``
    (``v1``/``v2``), and the sidecar's ``image``, ``env``, ``requests``/``limits``."""

    idle_timeout_seconds: Int32 | None = None
    upscaling_mode: Literal["Default", "Aggressive", "Conservative"] | None = None
    version: Literal["v1", "v2"] | None = None
    image: str | None = None
    env: dict[str, EnvValue] | None = None
    requests: Resources | None = None
    limits: Resources | None = None

    @field_validator("env", mode="before")
    @classmethod
    def _env(cls, value: Any) -> Any:
        normalize_env(value, field="task_config.autoscaler_options.env")
        return value

    @model_validator(mode="after")
    def _check(self) -> AutoscalerOptions:
        if self.idle_timeout_seconds is not None and self.idle_timeout_seconds < 0:
            raise DefinitionError(
                f"idle_timeout_seconds must not be negative, got {self.idle_timeout_seconds}",
                field="task_config.autoscaler_options.idle_timeout_seconds",
                fix="give the seconds an idle worker is kept, e.g. 60")
        if self.image is not None and not self.image.strip():
            raise DefinitionError("image is empty", field="task_config.autoscaler_options.image",
                                  fix="give the autoscaler image or leave image unset")
        return self

    def to_k8s(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.upscaling_mode is not None:
            out["upscalingMode"] = self.upscaling_mode
        if self.idle_timeout_seconds is not None:
            out["idleTimeoutSeconds"] = self.idle_timeout_seconds
        if self.version is not None:
            out["version"] = self.version
        if self.image is not None:
            out["image"] = self.image
        if self.env:
            out["env"] = normalize_env(self.env)
        resources = {kind: value.to_k8s() for kind, value in
                     (("requests", self.requests), ("limits", self.limits)) if value}
        if resources:
            out["resources"] = resources
        return out

"""The ``policy:`` section of platform.yaml."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..errors import MergeError
from ..model.names import check_quantity
from ..model.podspec import validate_pod_spec
from .paths import PathSyntaxError, unknown_field

__all__ = ["Policy", "PodSecurityLevel"]

PodSecurityLevel = Literal["privileged", "baseline", "restricted"]


# The entries of enforce's containers that reach the task's own container.
_TASKS_CONTAINER = ("primary", "default")


class Policy(BaseModel):
    """Guardrails judged on every role's final pod. Unknown keys are errors.

    - ``podSecurity``: the Kubernetes Pod Security Standard every pod must meet.
    - ``enforce``: a PodSpec fragment merged last, above the operator-owned fields (the
      layer named ``policy``); ``default``/``default-init``/``primary`` container
      entries apply to every container, every init container, the primary container.
    - ``locked``: field paths only cluster templates and platform.yaml may set.
    - ``allowedRegistries``: prefixes every container image must start with.
    - ``maxResources``: a ceiling on each container's requests and limits.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True,
                              defer_build=True)

    pod_security: PodSecurityLevel = Field(default="privileged", alias="podSecurity")
    enforce: dict[str, Any] = Field(default_factory=dict)
    locked: tuple[str, ...] = ()
    allowed_registries: tuple[str, ...] | None = Field(default=None,
                                                       alias="allowedRegistries")
    max_resources: dict[str, str] = Field(default_factory=dict, alias="maxResources")

    @field_validator("enforce")
    @classmethod
    def _enforce(cls, value: dict[str, Any]) -> dict[str, Any]:
        if value.get("$patch") in ("delete", "replace"):
            raise MergeError(f"`$patch: {value['$patch']}` on the whole enforced pod spec: "
                             "enforce is merged over every role's pod, it cannot delete or "
                             "replace it", field="policy.enforce.$patch",
                             fix="drop `$patch` here and enforce single fields")
        for key in ("containers", "initContainers"):  # above the operator's layer
            for item in value.get(key) or ():
                patch = item.get("$patch") if isinstance(item, dict) else None
                name = item.get("name") if isinstance(item, dict) else None
                deletes_task = key == "containers" and name in _TASKS_CONTAINER
                if patch == "replace" or (patch == "delete" and deletes_task):
                    what, at = (f"the container {name!r}", f"{key}[{name}]") if name else (
                        f"the {key} list", key)
                    raise MergeError(f"`$patch: {patch}` on {what} of the enforced pod spec: "
                                     "it would drop the task's own container or what the task "
                                     "and its operator set there (the command that runs the "
                                     "task)", field=f"policy.enforce.{at}.$patch",
                                     fix="drop `$patch` here and enforce single fields")
        validate_pod_spec(value, root="policy.enforce")
        return value

    @field_validator("locked")
    @classmethod
    def _locked(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for path in value:
            try:
                unknown = unknown_field(path)
            except PathSyntaxError as error:
                raise ValueError(str(error)) from None
            if unknown is not None:
                raise ValueError(f"{path!r}: {unknown} is not a field of a pod template "
                                 "(paths start at spec. or metadata., as in a manifest)")
        return value

    @field_validator("allowed_registries")
    @classmethod
    def _registries(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if value is not None and not value:
            raise ValueError("name at least one registry prefix, or leave the key out")
        if value is not None and any(not prefix.strip() for prefix in value):
            raise ValueError("a registry prefix is empty")
        return value

    @field_validator("max_resources", mode="before")
    @classmethod
    def _quantities(cls, value: Any) -> dict[str, str]:
        if not isinstance(value, dict):
            raise ValueError("must be a map of resource name to quantity")
        return {str(k): check_quantity(v, field=f"policy.maxResources.{k}")
                for k, v in value.items()}

    @property
    def active(self) -> bool:
        """Whether the policy asks for anything at all."""
        return bool(self.pod_security != "privileged" or self.enforce or self.locked
                    or self.allowed_registries is not None or self.max_resources)

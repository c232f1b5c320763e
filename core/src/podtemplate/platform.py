"""platform.yaml: what a platform admin sets for every task (the keys: README.md)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from .errors import PlatformConfigError, PodTemplateError, did_you_mean
from .files.yamlio import load_path
from .guard import guarded
from .images import check_image_reference
from .model.compiled import CompiledModel
from .model.names import check_dns1123_label, check_label_key, check_quantity
from .model.podspec import validate_pod_spec
from .model.templates import check_extended_resource_name
from .policy.model import Policy

__all__ = ["CLUSTER", "Platform", "DefaultResources", "load_platform"]

T = TypeVar("T")
# ``templates: cluster``: v1 PodTemplate objects read from the cluster, as Flyte does.
CLUSTER = "cluster"


class DefaultResources(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    requests: dict[str, str] = Field(default_factory=dict)
    limits: dict[str, str] = Field(default_factory=dict)

    @field_validator("requests", "limits", mode="before")
    @classmethod
    def _quantities(cls, value: Any, info: ValidationInfo) -> dict[str, str]:
        if not isinstance(value, dict):
            raise ValueError("must be a map of resource name to quantity")
        where = f"defaultResources.{info.field_name}"
        for name in value:
            _check_resource_name(str(name), f"{where}.{name}")
        return {str(k): check_quantity(v, field=f"{where}.{k}") for k, v in value.items()}


class Platform(CompiledModel):
    """The admin's configuration. Unknown keys are errors; CLI flags override fields."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True,
                              defer_build=True)

    @guarded
    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except (ValidationError, PodTemplateError) as error:
            raise _config_error(error, None) from None

    namespace: str | None = None
    templates: Literal["cluster"] | Path | None = None
    # The cluster of ``templates: cluster`` (and the default of ``apply``): a kubeconfig
    # (relative to platform.yaml) and one of its contexts; neither given: $KUBECONFIG,
    # ~/.kube/config, else the pod's own service account when run inside a pod.
    kubeconfig: Path | None = None
    context: str | None = None
    fallback_namespace: str | None = Field(default=None, alias="fallbackNamespace")
    default_template: str | None = Field(default=None, alias="defaultTemplate")
    gpu_resource_name: str = Field(default="nvidia.com/gpu", alias="gpuResourceName")
    default_resources: DefaultResources = Field(default_factory=DefaultResources,
                                                alias="defaultResources")
    interruptible: dict[str, Any] = Field(default_factory=dict)
    # Flyte's gpu-device-node-label (flyteplugins k8s config, default
    # k8s.amazonaws.com/accelerator): the node label @task(accelerator=...) selects on.
    accelerator_label: str = Field(default="k8s.amazonaws.com/accelerator",
                                   alias="acceleratorLabel")
    # Flyte's resource-tolerations: resource name -> tolerations added to every pod whose
    # containers request or limit that resource.
    resource_tolerations: dict[str, list[dict[str, Any]]] = Field(
        default_factory=dict, alias="resourceTolerations")
    default_image: str | None = Field(default=None, alias="defaultImage")
    # Flyte's image config: name -> full image reference, for flytekit's placeholders
    # ``{{.image.NAME.fqn}}:{{.image.NAME.version}}`` and ``{{.image.NAME}}`` (images.py).
    images: dict[str, str] = Field(default_factory=dict)
    policy: Policy = Field(default_factory=Policy)
    # Each task type's own settings, validated by that type's model when a render starts
    # (see podtemplate.task_settings): here only their shape is checked.
    task_types: dict[str, dict[str, Any]] = Field(default_factory=dict, alias="taskTypes")
    _source: str | None = PrivateAttr(default=None)
    @property
    def source(self) -> str | None:
        """The platform.yaml this was loaded from, if any (named where its values end up:
        policy violations, explain)."""
        return self._source

    @field_validator("images", mode="before")
    @classmethod
    def _images(cls, value: Any) -> Any:
        if isinstance(value, dict):
            for name, reference in value.items():
                check_image_reference(str(name), reference)
        return value

    @field_validator("namespace", "fallback_namespace")
    @classmethod
    def _namespace(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        with _naming(info):
            return check_dns1123_label(value, what="namespace")

    @field_validator("gpu_resource_name")
    @classmethod
    def _gpu_resource_name(cls, value: str, info: ValidationInfo) -> str:
        with _naming(info):
            if "/" not in value:
                raise PlatformConfigError(
                    f"{value!r} is not a resource name pods request",
                    fix="give the GPU's domain-qualified extended resource name, such as "
                    "nvidia.com/gpu or amd.com/gpu")
            return check_label_key(value, field="gpuResourceName")

    @field_validator("task_types", mode="before")
    @classmethod
    def _task_types(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            raise ValueError("must map task type names to their settings")
        for name, settings in value.items():
            if not isinstance(settings, dict):
                raise ValueError(f"taskTypes.{name} must be a mapping of the {name!r} task "
                                 "type's settings")
        return value

    @field_validator("policy")
    @classmethod
    def _policy(cls, value: Policy) -> Policy:
        for name in value.max_resources:
            _check_resource_name(name, f"policy.maxResources.{name}")
        return value

    @field_validator("interruptible")
    @classmethod
    def _interruptible(cls, value: dict[str, Any]) -> dict[str, Any]:
        validate_pod_spec(value, root="interruptible")
        return value

    @field_validator("accelerator_label")
    @classmethod
    def _accelerator_label(cls, value: str) -> str:
        return check_label_key(value, field="acceleratorLabel")

    @field_validator("resource_tolerations", mode="before")
    @classmethod
    def _resource_tolerations(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            raise ValueError("must be a map of resource name to a list of tolerations")
        for name, tolerations in value.items():
            if not isinstance(name, str) or not name:
                raise ValueError(f"resource name {name!r} is not a string")
            _check_resource_name(name, f"resourceTolerations.{name}")
            validate_pod_spec({"tolerations": tolerations},
                              root=f"resourceTolerations.{name}")
        return value

    @property
    def cluster_templates(self) -> bool:
        """Whether templates are read from the cluster (``templates: cluster``)."""
        return self.templates == CLUSTER

    @property
    def template_folder(self) -> Path | None:
        """The template folder (``templates: DIR``), or None."""
        return self.templates if isinstance(self.templates, Path) else None

    @property
    def lookup_namespaces(self) -> list[str]:
        """Namespaces searched for a template, in order (task namespace, then fallback)."""
        first = self.namespace or self.fallback_namespace or "default"
        second = self.fallback_namespace or first
        return [first] if first == second else [first, second]

    @property
    def home_namespace(self) -> str:
        """Where a template file without ``metadata.namespace`` lives."""
        return self.fallback_namespace or self.namespace or "default"


@guarded
def load_platform(path: str | Path | None = None, **overrides: Any) -> Platform:
    """Load platform.yaml (``templates`` resolved relative to it) and apply CLI overrides
    (keyword names as the model's Python fields; None means not given)."""
    data: dict[str, Any] = {}
    source = str(path) if path else None
    if path is not None:
        documents = load_path(path)
        if len(documents) > 1 or (documents and not isinstance(documents[0], dict)):
            raise PlatformConfigError("platform.yaml must hold one mapping", file=source,
                                      fix="write one YAML mapping of platform settings")
        data = dict(documents[0]) if documents else {}
        base = Path(path).parent
        if data.get("templates") and data["templates"] != CLUSTER:
            data["templates"] = base / str(data["templates"])
        if data.get("kubeconfig"):
            data["kubeconfig"] = base / Path(str(data["kubeconfig"])).expanduser()
    aliases = {name: (f.alias or name) for name, f in Platform.model_fields.items()}
    for key, value in overrides.items():
        if value is not None:
            data.pop(key, None)
            data[aliases[key]] = value
    if not data:
        platform = default_platform()
    else:
        try:
            platform = Platform.model_validate(data)
        except (ValidationError, PodTemplateError) as error:
            raise _config_error(error, source) from None
    platform._source = source
    return platform


def default_platform() -> Platform:
    """The platform of no platform.yaml: every field its default, which are valid as
    written, so no validator is built for it (a one-task render builds none at all;
    ``Platform()`` gives an equal object, the tests compare the two)."""
    return Platform.model_construct(set(), default_resources=DefaultResources.model_construct(),
                                    policy=Policy.model_construct())  # no field given


def _config_error(error: ValidationError | PodTemplateError, source: str | None
                  ) -> PlatformConfigError:
    if isinstance(error, PodTemplateError):
        return PlatformConfigError(error.message, file=source, field=error.field,
                                   fix=error.fix)
    first = error.errors()[0]
    field = ".".join(str(part) for part in first["loc"])
    message = first["msg"].removeprefix("Value error, ")
    fix = "see the platform.yaml keys in README.md"
    if first["type"] == "extra_forbidden":
        key = str(first["loc"][-1])
        message = f"unknown key '{key}'"
        meant = did_you_mean(key, _keys_at(first["loc"][:-1]))
        if meant:
            message += f"; did you mean '{meant}'?"
            fix = f"write '{meant}'"
    return PlatformConfigError(message, file=source, field=field, fix=fix)


@contextlib.contextmanager
def _naming(info: ValidationInfo) -> Iterator[None]:
    """An error of a value's own check names the platform.yaml key it was given under
    (``fallbackNamespace``, not only the value)."""
    try:
        yield
    except PodTemplateError as error:
        name = info.field_name or ""
        field = Platform.model_fields[name].alias or name if name else None
        raise PlatformConfigError(error.message, field=field, fix=error.fix) from None


def _keys_at(location: tuple[int | str, ...]) -> list[str]:
    """The keys platform.yaml takes at ``location`` (a path of keys from the top)."""
    model: Any = Platform
    for step in location:
        fields = getattr(model, "model_fields", None)
        if fields is None:
            return []
        found = next((f for name, f in fields.items() if step in (name, f.alias)), None)
        model = getattr(found, "annotation", None)
    fields = getattr(model, "model_fields", None) or {}
    return [f.alias or name for name, f in fields.items()]


# What a container can request besides the domain-qualified extended resources.
_NATIVE_RESOURCES = ("cpu", "memory", "ephemeral-storage")


def _check_resource_name(name: str, field: str) -> None:
    """A key of platform.yaml that names a resource (``resourceTolerations``,
    ``defaultResources``, ``policy.maxResources``) names it as pods request it: a key no
    container can request (``gpu``, ``cpus``) would silently never match."""
    if name in _NATIVE_RESOURCES or name.startswith("hugepages-"):
        return
    if name.lower() == "gpu":
        raise PlatformConfigError(f"{name!r} is not a resource name pods request", field=field,
                                  fix="use the GPU's resource name, gpuResourceName "
                                  "(nvidia.com/gpu by default)")
    try:
        check_extended_resource_name(name)
    except PodTemplateError:
        meant = did_you_mean(name, _NATIVE_RESOURCES)
        raise PlatformConfigError(
            f"{name!r} is not a resource name pods request"
            + (f"; did you mean {meant!r}?" if meant else ""), field=field,
            fix=f"write {meant!r}" if meant else "use cpu, memory, ephemeral-storage or a "
            "domain-qualified extended resource such as nvidia.com/gpu or example.com/fpga"
        ) from None

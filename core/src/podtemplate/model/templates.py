"""The shared concepts, spelled once: Resources, PodTemplate and Role."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Hashable, Mapping
from pathlib import Path
from typing import Annotated, Any, ClassVar, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from ..errors import (
    DefinitionError,
    DefinitionErrors,
    InvalidNameError,
    PodTemplateError,
    TemplateFileError,
    brief,
    did_you_mean,
)
from ..files.yamlio import load_all
from ..guard import guarded
from ..merge.aliases import PRIMARY_CONTAINER
from ..stash import StashKey
from .compiled import ENV, CompiledModel, compiled_value
from .names import (
    MAX_OBJECT_NAME,
    check_dns1123_label,
    check_dns1123_subdomain,
    check_env_name,
    check_label_key,
    check_label_value,
    check_quantity,
    env_name_ok,
)
from .podspec import normalize_pod_spec, validate_pod_spec
from .sites import DefinitionSite, definition_site
from .template_file import template_parts

__all__ = ["ConfigModel", "Resources", "PodTemplate", "Role", "EnvValue", "Int32",
           "check_extended_resource_name", "normalize_env", "env_text", "scalar_text",
           "check_one_primary"]

T = TypeVar("T")
EnvValue = str | int | float | bool
INT32_MAX = 2**31 - 1
# A count Kubernetes stores as int32 (replicas): True is not 1, and 2**31 does not wrap.
Int32 = Annotated[int, Field(strict=True, ge=-INT32_MAX - 1, le=INT32_MAX)]


class Resources(BaseModel):
    """Requests or limits of a container. ``gpu`` maps to the platform's GPU resource name
    (``nvidia.com/gpu`` by default); any extended resource goes in ``extra`` under its
    domain-qualified name. Quantities are strings or numbers (``cpu=2``, ``memory=1.5e9``);
    flytekit's spelling ``mem=`` is taken for ``memory=``::

        Resources(cpu="4", memory="16Gi", gpu=1, extra={"example.com/fpga": "1"})
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    cpu: str | None = None
    memory: str | None = None
    gpu: str | None = None
    ephemeral_storage: str | None = None
    extra: dict[str, str] = Field(default_factory=dict)

    @guarded
    def __init__(self, cpu: Any = None, memory: Any = None, gpu: Any = None,
                 ephemeral_storage: Any = None, extra: Mapping[str, Any] | None = None,
                 *, mem: Any = None, **extended: Any) -> None:
        if extra is not None and not isinstance(extra, Mapping):
            raise DefinitionError(f"Resources: extra must be a mapping of resource name to "
                                  f"quantity, not {type(extra).__name__}", field="extra",
                                  fix="write extra={'example.com/fpga': '1'}")
        if mem is not None and memory is not None:
            raise DefinitionError("Resources: mem and memory both given", field="memory",
                                  fix="give the memory once: memory='4Gi' (mem= is "
                                  "flytekit's spelling of the same)")
        memory = memory if mem is None else mem
        for name, value in (("cpu", cpu), ("memory", memory), ("gpu", gpu),
                            ("ephemeral_storage", ephemeral_storage)):
            _refuse_pair(name, value)
        merged = {**dict(extra or {}), **{k.replace("__", "/"): v for k, v in extended.items()}}
        super().__init__(cpu=cpu, memory=memory, gpu=gpu,
                         ephemeral_storage=ephemeral_storage, extra=merged)

    @field_validator("cpu", "memory", "gpu", "ephemeral_storage", mode="before")
    @classmethod
    def _quantity(cls, value: Any, info: ValidationInfo) -> str | None:
        return None if value is None else check_quantity(value, field=info.field_name)

    @field_validator("extra", mode="before")
    @classmethod
    def _extra(cls, value: Any) -> dict[str, str]:
        for key in value:
            check_extended_resource_name(key)
        return {k: check_quantity(v, field=f"resources.{k}") for k, v in value.items()}

    def to_k8s(self, gpu_resource_name: str = "nvidia.com/gpu") -> dict[str, str]:
        """The resource map as it appears in ``resources.requests``/``limits`` (a new dict)."""
        # Spelled out field by field: it runs for every task of every render.
        out: dict[str, str] = {}
        if self.cpu is not None:
            out["cpu"] = self.cpu
        if self.memory is not None:
            out["memory"] = self.memory
        if self.ephemeral_storage is not None:
            out["ephemeral-storage"] = self.ephemeral_storage
        if self.gpu is not None:
            out[gpu_resource_name] = self.gpu
        if self.extra:
            out.update(self.extra)
        return out


_NAMED_FIELDS = {"cpu": "cpu", "memory": "memory", "mem": "memory", "gpu": "gpu",
                 "ephemeral-storage": "ephemeral_storage", "storage": "ephemeral_storage"}


def check_extended_resource_name(key: object) -> str:
    """An extended resource is named with its domain (``nvidia.com/gpu``,
    ``example.com/fpga``); ``hugepages-<size>`` is the one native name kept in ``extra``."""
    if not isinstance(key, str) or not key:
        raise DefinitionError(f"Resources: resource name {brief(key)} is not a string",
                              field="extra", fix="name the resource, e.g. 'example.com/fpga'")
    if key.startswith("hugepages-"):
        return key
    field_name = _NAMED_FIELDS.get(key.lower().replace("_", "-"))
    if field_name is not None:
        raise DefinitionError(f"Resources: {key!r} is not an extended resource",
                              field=f"extra.{key}", fix=f"write {field_name}=... instead")
    prefix, slash, _ = key.rpartition("/")
    try:
        if not slash:
            raise InvalidNameError(key)
        check_label_key(key)  # a DNS subdomain, '/', a name
        check_dns1123_subdomain(prefix, what="resource domain")
    except InvalidNameError:
        meant = did_you_mean(key, ("cpu", "memory", "gpu", "ephemeral_storage"))
        raise DefinitionError(
            f"Resources: resource name {key!r} is neither cpu, memory (mem), gpu, "
            "ephemeral_storage nor a domain-qualified extended resource"
            + (f"; did you mean {meant!r}?" if meant else ""), field=f"extra.{key}",
            fix=f"write {meant}=..." if meant else "name an extended resource with its "
            "domain, as the device plugin does: 'nvidia.com/gpu', 'amd.com/gpu', "
            "'example.com/fpga'") from None
    return key


def _refuse_pair(name: str, value: Any) -> None:
    """flytekit 1.16's ``Resources(cpu=("1", "2"))`` is a request and a limit in one."""
    if isinstance(value, (tuple, list)):
        request, limit = [*value, None, None][:2]
        raise DefinitionError(
            f"Resources: {name}={brief(value)} is a request/limit pair, which podtemplate "
            "spells as two Resources", field=name,
            fix=f"write requests=Resources({name}={request!r}), "
            f"limits=Resources({name}={limit!r})")


def normalize_env(env: Mapping[str, EnvValue] | None, *,
                  field: str = "env") -> list[dict[str, str]]:
    """``{"A": 1}`` → ``[{"name": "A", "value": "1"}]``; booleans as ``true``/``false``.
    Only strings, integers, finite floats and booleans are values: ``None`` or an object
    would render as ``"None"`` or a memory address."""
    if env is not None and not isinstance(env, Mapping):
        raise DefinitionError(f"{field} must be a mapping of names to values, not "
                              f"{type(env).__name__}", field=field,
                              fix="give a dict such as {'LOG_LEVEL': 'info'}")
    items = []
    for name, value in (env or {}).items():
        if type(name) is not str or not env_name_ok(name):
            check_env_name(name, field=f"{field}.{name}")  # raises, naming the field
        items.append({"name": name, "value": env_text(value, f"{field}.{name}")})
    return items


def env_text(value: Any, field: str) -> str:
    """The string an environment value is written as."""
    if type(value) is str:
        return value
    if isinstance(value, str):  # an enum's or other subclass's own text, not its repr
        return str.__str__(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and abs(value) < 10**200:
        return str(int(value))
    if isinstance(value, float) and math.isfinite(value):
        return repr(float(value))
    raise DefinitionError(f"environment value {brief(value)} is not a string, a boolean or "
                          "a finite number", field=field, fix="give a string (convert it "
                          "with str() if that is what the task should see), or leave the "
                          "variable out")


def scalar_text(value: Any) -> str | None:
    """A string, number or boolean as an operator's map of strings holds it (``spark_conf``,
    ``rayStartParams``): booleans as ``true``/``false``, as Go and YAML write them; None for
    any other value, which the caller refuses in its own words."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    return None


class PodTemplate:
    """A Kubernetes pod template carried by a task or a role.

    ``pod_spec`` is a camelCase dict, a ``kubernetes.client`` V1PodSpec, or None. It is
    validated strictly here, at definition time. ``primary_container_name`` names the
    container in ``pod_spec`` that stands for the task's own container. ``source`` is the
    file it was loaded from, if any; ``defined_at`` where it was made (for ``explain``).

    A template is immutable once defined: its attributes cannot be set, and ``pod_spec``,
    ``labels`` and ``annotations`` (its own copies of what it was given) are read only.
    What is computed from it alone - its layers, their proofs and checks - is computed
    once and kept on it (:meth:`compiled`); rendered manifests may share its objects.
    """

    __slots__ = ("_compiled", "_frozen", "annotations", "defined_at", "labels", "pod_spec",
                 "primary_container_name", "source")

    @guarded
    def __init__(self, pod_spec: Any = None, primary_container_name: str = PRIMARY_CONTAINER,
                 labels: Mapping[str, str] | None = None,
                 annotations: Mapping[str, str] | None = None, *,
                 source: str | None = None) -> None:
        self.source = source
        self.defined_at: DefinitionSite | None = definition_site()
        try:
            if not primary_container_name:
                raise DefinitionError(
                    "primary_container_name is empty",
                    fix="name the primary container, e.g. primary_container_name='primary'",
                    field="primary_container_name")
            check_dns1123_label(primary_container_name, what="primary_container_name",
                                field="primary_container_name")
            spec = normalize_pod_spec(pod_spec)
            validate_pod_spec(spec)
            self.labels = _check_metadata_map(labels, "metadata.labels", values=True)
            self.annotations = _check_metadata_map(annotations, "metadata.annotations")
        except PodTemplateError as error:
            raise error.located(file=source) from None
        self.pod_spec: dict[str, Any] = spec
        self.primary_container_name = primary_container_name
        self._compiled: dict[Hashable, Any] = {}
        self._frozen = True

    def __setattr__(self, name: str, value: Any) -> None:
        if getattr(self, "_frozen", False) and name != "_frozen":
            raise AttributeError(f"a PodTemplate is immutable once defined: cannot set "
                                 f"{name!r} (make a new PodTemplate)")
        object.__setattr__(self, name, value)

    def __reduce__(self) -> tuple[Any, ...]:
        """Copied and pickled as what it was made of; what was compiled is made again."""
        return (_restore, (self.pod_spec, self.primary_container_name, self.labels,
                           self.annotations, self.source, self.defined_at))

    def compiled(self, key: StashKey[T], make: Callable[[], T], *parts: Hashable) -> T:
        """``make()`` the first time ``key`` (with ``parts``) is asked, the same value
        afterwards: what core computes from this template alone, kept with it."""
        return compiled_value(self._compiled, key, make, parts)

    @classmethod
    @guarded
    def from_yaml(cls, path_or_text: str | Path, primary_container_name: str = PRIMARY_CONTAINER
                  ) -> PodTemplate:
        """Load ``kind: PodTemplate``, ``kind: Pod`` or a bare PodSpec from a path or text."""
        path = Path(path_or_text) if _looks_like_path(path_or_text) else None
        if path is not None:
            from ..files.yamlio import load_path

            documents = load_path(path)
        else:
            documents = load_all(str(path_or_text))
        source = str(path) if path else None
        if len(documents) != 1:
            raise TemplateFileError(f"expected one YAML document, found {len(documents)}",
                                    fix="keep one template per string or file", file=source)
        return cls.from_manifest(documents[0], primary_container_name, source=source)

    @classmethod
    @guarded
    def from_manifest(cls, document: Any, primary_container_name: str = PRIMARY_CONTAINER, *,
                      source: str | None = None) -> PodTemplate:
        try:
            parts = template_parts(document, source)
        except PodTemplateError as error:
            raise error.located(file=source) from None
        return cls(parts.spec, primary_container_name, labels=parts.labels,
                   annotations=parts.annotations, source=source)

    def layer(self) -> dict[str, Any]:
        """A fresh PodTemplateSpec-shaped dict of this template, for merging."""
        layer: dict[str, Any] = {"spec": copy.deepcopy(self.pod_spec)}
        if self.labels or self.annotations:
            layer["metadata"] = {"labels": dict(self.labels), "annotations": dict(self.annotations)}
        return layer

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PodTemplate) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self.primary_container_name)

    def _key(self) -> tuple[Any, ...]:
        return (self.pod_spec, self.primary_container_name, self.labels, self.annotations)

    def __repr__(self) -> str:
        return (f"PodTemplate(pod_spec={self.pod_spec!r}, "
                f"primary_container_name={self.primary_container_name!r})")


def _restore(pod_spec: dict[str, Any], primary_container_name: str, labels: dict[str, str],
             annotations: dict[str, str], source: str | None,
             defined_at: DefinitionSite | None) -> PodTemplate:
    """A template with the (already checked) parts of another: see ``__reduce__``."""
    template = object.__new__(PodTemplate)
    for name, value in (("pod_spec", pod_spec), ("labels", labels),
                        ("primary_container_name", primary_container_name),
                        ("annotations", annotations), ("source", source),
                        ("defined_at", defined_at), ("_compiled", {}), ("_frozen", True)):
        object.__setattr__(template, name, value)
    return template


def _looks_like_path(value: str | Path) -> bool:
    if isinstance(value, Path):
        return True
    suffix = Path(value).suffix
    return "\n" not in value and ":" not in value and suffix in {".yaml", ".yml", ".json"}


def _check_metadata_map(mapping: Any, field: str, *, values: bool = False) -> dict[str, str]:
    """Check label/annotation keys (and label values); return a fresh dict of strings."""
    if mapping is not None and not isinstance(mapping, Mapping):
        raise InvalidNameError(f"{field} must be a mapping of strings to strings, not "
                               f"{type(mapping).__name__}", field=field,
                               fix="give a dict such as {'team': 'ml'}")
    out: dict[str, str] = {}
    for key, value in (mapping or {}).items():
        # an annotation key's case does not matter to the API server (labels' does)
        check_label_key(key if values or not isinstance(key, str) else key.lower(),
                        field=f"{field}.{key}")
        if not isinstance(value, str):
            raise InvalidNameError(f"value of {key!r} must be a string, not "
                                   f"{type(value).__name__}", fix="quote the value",
                                   field=f"{field}.{key}")
        if values:
            check_label_value(value, field=f"{field}.{key}")
        out[key] = value
    return out


class ConfigModel(CompiledModel):
    """Base of every task and role config: frozen, unknown keywords rejected, and invalid
    values raised as :class:`DefinitionError` naming the class and field."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True,
                              defer_build=True)

    # The longest object name the operator accepts: a derived name longer than this is
    # cut (with a hash) to fit, so a long task name still renders.
    object_name_limit: ClassVar[int] = MAX_OBJECT_NAME

    # Where the user wrote the config (``Role(...)``), for ``explain``; equal for every
    # site, so it does not change what equals what.
    _defined_at: DefinitionSite | None = PrivateAttr(default=None)

    @guarded
    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as error:  # every problem of the call, one line each
            problems = [self._problem(item) for item in error.errors()]
            if len(problems) == 1:
                raise problems[0] from None
            raise DefinitionErrors(problems) from None
        self._defined_at = definition_site()

    @classmethod
    def _problem(cls, item: Any) -> DefinitionError:
        """One pydantic error of a call as a definition error naming the field and fix."""
        field = ".".join(str(part) for part in item["loc"]) or None
        message = item["msg"].removeprefix("Value error, ")
        fix = f"see help({cls.__name__}) for the accepted arguments"
        if item["type"] == "extra_forbidden":
            given = str(item["loc"][-1])
            message = f"unknown argument '{given}'"
            meant = did_you_mean(given, [*cls.model_fields, *(
                f.alias for f in cls.model_fields.values() if f.alias)])
            if meant:
                message += f"; did you mean '{meant}'?"
                fix = f"write {meant}="
        elif item["type"] != "missing":
            message += f" (got {brief(item.get('input'))})"
        return DefinitionError(f"{cls.__name__}: {message}", fix=fix, field=field)

    @property
    def defined_at(self) -> DefinitionSite | None:
        """The file and line of the call that made this config."""
        return self._defined_at

    def check_task_name(self, name: str) -> None:
        """Check a task's name against the rule of the operator that runs tasks with this
        config. Called when such a task is defined, with a name that is already a DNS-1123
        label; raises :class:`DefinitionError` naming the rule and the fix. A task type
        whose operator asks more of names (a Service named after the object needs a
        DNS-1035 label; a suffix needs room) overrides this; the default accepts the name.
        """


class Role(ConfigModel):
    """One pod role of a distributed task type (PyTorch ``worker``, Dask ``scheduler``...).

    Its templates are layer 5 and its settings layer 6 (docs/design.md, "The layers of a
    pod"), on top of the task's own template and settings: ``pod_template_name`` names a
    cluster template (looked up like the task's; it must exist), ``pod_template`` is
    merged over it. ``interruptible`` None inherits the task's.
    """

    pod_template_name: str | None = None
    pod_template: PodTemplate | None = None
    image: str | None = None
    requests: Resources | None = None
    limits: Resources | None = None
    env: dict[str, EnvValue] | None = None
    replicas: Int32 | None = None
    interruptible: bool | None = None

    @field_validator("image", "pod_template_name")
    @classmethod
    def _not_blank(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None and not value.strip():
            raise ValueError(f"{info.field_name} must not be empty")
        return value

    @field_validator("env", mode="before")
    @classmethod
    def _env(cls, value: Any) -> Any:
        normalize_env(value)  # before pydantic: our message, naming the variable
        return value

    def model_post_init(self, context: Any) -> None:
        # Compiled at definition: every render of every task with this role reads it.
        self._compiled[ENV] = normalize_env(self.env) if self.env else []

    @model_validator(mode="after")
    def _replicas(self) -> Role:
        if self.replicas is not None and self.replicas < 1:
            raise DefinitionError(f"Role: replicas must be at least 1, got {self.replicas}",
                                  field="replicas", fix="set replicas >= 1")
        return self


def check_one_primary(template: PodTemplate, operator_name: str, field: str) -> None:
    """Refuse a role template holding both its primary container (by another name) and a
    container named as the operator names the role's: both would become that one
    container. ``field`` is where the template was given (``task_config.worker.pod_template``)."""
    alias = template.primary_container_name
    names = [container.get("name") for container in template.pod_spec.get("containers") or ()]
    if alias != operator_name and alias in names and operator_name in names:
        raise DefinitionError(
            f"the template's primary container {alias!r} and its container "
            f"{operator_name!r} would both become the operator's {operator_name!r} container",
            field=f"{field}.containers[{operator_name}]",
            fix=f"merge the two into one container named {operator_name!r} "
            f"(primary_container_name={operator_name!r}), or rename the other one")

"""The probe: pod templates that set every PodSpec field and every Container field (of the
primary container, a sidecar and an init container), plus pod labels and annotations,
each with a distinctive valid value.

The field list is read from a Kubernetes schema source (:mod:`podtemplate.schemas.source`),
never written by hand: a field added to the schema is probed the next time the probe is
built. Values are generated from each field's schema (type, format, required members of
objects), with the few hints that prose-only enums and cross references need
(:mod:`podtemplate.testing._probe_values`). Fields that the API server rejects in one pod
go into separate probe templates (*variants*); each variant is a :class:`PodTemplate`, so
the probe passes the same strict validation as any user template.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import count
from typing import Any

from ..model.templates import PodTemplate
from ..schemas.source import CONTAINER, POD_SPEC, Schema, SchemaSource, load_schema_source
from ._probe_values import APART, DEFINITION_HINTS, FIELD_HINTS, NOT_PROBED, Spot
from .polarity import PolarityValue, place, polarity_values
from .polarity import label as polarity_label

__all__ = ["Probe", "ProbeField", "build_probe", "default_probe", "top_path", "PRIMARY",
           "SIDECAR", "INIT", "LABEL", "ANNOTATION"]

PRIMARY = "primary"
SIDECAR = "probe-sidecar"
INIT = "probe-init"
LABEL = ("probe.podtemplate.io/labels", "probe-labels")
ANNOTATION = ("probe.podtemplate.io/annotations", "probe annotation value")
# (list, container name in the probe, scope word used in generated values)
SLOTS = (("containers", PRIMARY, "primary"), ("containers", SIDECAR, "sidecar"),
         ("initContainers", INIT, "init"))
_EXPANDED = {"containers", "initContainers"}  # probed field by field, per container
_DEFAULT_TRUE = re.compile(r"defaults? (to|is) true", re.IGNORECASE)
_DEPRECATED = re.compile(r"deprecated", re.IGNORECASE)
_MAX_DEPTH = 12
# How the schema's prose lists the valid values of a string it has no enum for.
_PROSE_ENUM = re.compile(r"valid values|one of|possible values|possible enum|supported values"
                         r"|must be (an empty string|either)", re.IGNORECASE)


@dataclass(frozen=True)
class ProbeField:
    """One probed field: its path relative to the PodTemplateSpec (the primary container
    named ``[primary]``; a second-polarity field names the leaf it sets,
    ``spec.securityContext.runAsNonRoot``), its value and the probe variant that carries
    it. ``polarity``: one of the values the main probe does not try (:mod:`.polarity`)."""

    path: str
    value: Any
    variant: int
    polarity: bool = False

    @property
    def label(self) -> str:
        """The field as outcomes and findings name it: its path, with the value for a
        second-polarity field (``spec.hostNetwork=false``)."""
        return polarity_label(self.path, self.value) if self.polarity else self.path


@dataclass(frozen=True, eq=False)
class Probe:
    """The probe built from one schema source.

    - ``fields``: every probed field, in schema order.
    - ``templates``: one validated :class:`PodTemplate` per variant (variant 0 holds all
      fields but those moved apart).
    - ``apart``: the moved fields and why they cannot share a pod with the others.
    - ``not_probed``: schema fields no template can carry, and why.
    - ``unhinted_enums``: generated texts whose schema lists valid values in prose (a new
      enum-like field that needs a hint in :mod:`._probe_values`; a test keeps it empty).
    """

    source: str
    fields: tuple[ProbeField, ...]
    templates: tuple[PodTemplate, ...]
    apart: Mapping[str, str]
    not_probed: Mapping[str, str]
    unhinted_enums: tuple[str, ...] = ()

    def field(self, path: str) -> ProbeField:
        return next(f for f in self.fields if f.path == path)

    @property
    def paths(self) -> list[str]:
        """The label of every field (:attr:`ProbeField.label`), in probe order."""
        return [f.label for f in self.fields]


def short(name: str) -> str:
    """``io.k8s.api.core.v1.PodSpec`` -> ``PodSpec``."""
    return name.rsplit(".", 1)[-1]


class _Generator:
    """Values for schema nodes. Objects get their required members, or their first
    optional non-deprecated member when none is required: small values that are valid
    and still carry one distinctive leaf."""

    def __init__(self, source: SchemaSource) -> None:
        self.source = source
        self.numbers = count(11)
        self.unhinted_enums: list[str] = []

    def spot(self, scope: str, top: str) -> Spot:
        return Spot(scope, top, self.numbers)

    def member(self, owner: str, name: str, schema: Schema, spot: Spot, depth: int) -> Any:
        hint = FIELD_HINTS.get(f"{short(owner)}.{name}", _NONE)
        if hint is not _NONE:
            return hint(spot) if callable(hint) else hint
        return self.value(schema, spot, name, depth)

    def value(self, schema: Schema, spot: Spot, name: str, depth: int) -> Any:
        if depth > _MAX_DEPTH:
            raise ValueError(f"schema too deep at {spot.top}.{name}")
        ref = _ref_of(schema)
        if ref is not None:
            return self.named(ref, spot, name, depth)
        kind = schema.get("type")
        if "enum" in schema:
            return schema["enum"][-1]
        if kind == "boolean":
            return not _DEFAULT_TRUE.search(schema.get("description", ""))
        if kind in ("integer", "number") or schema.get("format") == "int-or-string":
            return spot.number()
        if kind == "array":
            return [self.value(schema.get("items", {}), spot, name, depth + 1)]
        if kind == "object" or "properties" in schema:
            extra = schema.get("additionalProperties")
            if isinstance(extra, Mapping) and "properties" not in schema:
                return self.mapping(extra, spot)
            return self.obj(schema, "", spot, depth)
        if _PROSE_ENUM.search(schema.get("description", "")):
            self.unhinted_enums.append(f"{spot.scope or 'pod'}: {spot.top}.{name}")
        return self.text(spot, name)

    def named(self, ref: str, spot: Spot, name: str, depth: int) -> Any:
        hint = DEFINITION_HINTS.get(short(ref), _NONE)
        if hint is not _NONE:
            return hint(spot) if callable(hint) else hint
        if ref.endswith(".Quantity"):
            return f"{spot.number()}Mi"
        if ref.endswith(".IntOrString"):
            return spot.number()
        schema = self.source.definition(ref)
        if "properties" not in schema:
            return self.value(schema, spot, name, depth + 1)
        return self.obj(schema, ref, spot, depth)

    def obj(self, schema: Schema, owner: str, spot: Spot, depth: int) -> dict[str, Any]:
        properties: Mapping[str, Schema] = schema.get("properties", {})
        chosen = list(schema.get("required", ())) or [
            name for name, sub in properties.items()
            if not _DEPRECATED.search(sub.get("description", ""))][:1]
        return {name: self.member(owner, name, properties[name], spot, depth + 1)
                for name in chosen}

    def mapping(self, values: Schema, spot: Spot) -> dict[str, Any]:
        if (_ref_of(values) or "").endswith(".Quantity"):
            return {"cpu": f"{spot.number()}m"}
        return {spot.key(): spot.text()}

    @staticmethod
    def text(spot: Spot, name: str) -> str:
        if name.endswith(("Path", "Dir")):
            return spot.path()
        if name == "key" or name.endswith("Key"):
            return spot.key()
        if name in ("ip", "hostIP", "podIP"):
            return spot.ip()
        return spot.text(name)


_NONE = object()


def _ref_of(schema: Schema) -> str | None:
    if "$ref" in schema:
        return SchemaSource.ref_name(schema["$ref"])
    for part in schema.get("allOf", ()):
        if "$ref" in part:
            return SchemaSource.ref_name(part["$ref"])
    return None


def _raw_fields(gen: _Generator) -> list[tuple[str, Any]]:
    """(path, value) of every field, pod fields first, in schema order."""
    source = gen.source
    pod = source.definition(POD_SPEC).get("properties", {})
    fields: list[tuple[str, Any]] = [("metadata.labels", dict([LABEL])),
                                     ("metadata.annotations", dict([ANNOTATION]))]
    for name, schema in pod.items():
        if name not in _EXPANDED:
            value = gen.member(POD_SPEC, name, schema, gen.spot("", name), 0)
            fields.append((f"spec.{name}", value))
    container = source.definition(CONTAINER).get("properties", {})
    for list_name, container_name, scope in SLOTS:
        for name, schema in container.items():
            if name != "name":  # the container's identity, checked by the shape checks
                value = gen.member(CONTAINER, name, schema, gen.spot(scope, name), 0)
                fields.append((f"spec.{list_name}[{container_name}].{name}", value))
    return fields


def _schema_rejects(path: str, value: Any) -> str | None:
    """Why the shipped pod schema (the one authority on field names) refuses ``value``
    at ``path``, if it does (a field of another Kubernetes release's schema)."""
    from ..model.apiserver import check_keys_only
    from ..schemas.source import shipped_pod_schema_source

    name = path.rsplit(".", 1)[-1]
    if path.startswith("metadata."):
        return None
    spec: dict[str, Any] = ({"containers": [{"name": "probe", name: value}]} if "[" in path
                            else {"containers": [], name: value})
    problems = check_keys_only({"spec": spec})
    if not problems:
        return None
    version = shipped_pod_schema_source()["kubernetes_version"]
    return (f"the shipped Kubernetes {version} pod schema refuses it ({problems[0].message} "
            f"at {problems[0].path})")


def _variant_of(path: str, placed: dict[str, int]) -> int:
    """Variant 0 unless ``path`` is moved apart: then the first later variant holding no
    field it conflicts with."""
    movers = {moved for moved, _, _ in APART}
    if path not in movers:
        return 0
    clashes = {kept for moved, kept, _ in APART if moved == path}
    clashes |= {moved for moved, kept, _ in APART if kept == path}
    variant = 1
    while any(placed.get(other) == variant for other in clashes):
        variant += 1
    return variant


def _assemble(fields: list[ProbeField], variant: int) -> PodTemplate:
    spec: dict[str, Any] = {}
    labels: dict[str, str] = {}
    annotations: dict[str, str] = {}
    containers: dict[tuple[str, str], dict[str, Any]] = {}
    image = {f.path: f.value for f in fields if f.path.endswith("].image")}
    for f in (f for f in fields if f.variant == variant):
        if f.path == "metadata.labels":
            labels.update(f.value)
        elif f.path == "metadata.annotations":
            annotations.update(f.value)
        elif "[" in f.path:
            list_name, rest = f.path.removeprefix("spec.").split("[", 1)
            name, member = rest.split("].", 1)
            slot = containers.setdefault((list_name, name), {"name": name})
            _put(slot, member, f.value)
            if name != PRIMARY:  # every sidecar/init container of a pod needs an image
                slot.setdefault("image", image[f"spec.{list_name}[{name}].image"])
        else:
            _put(spec, f.path.removeprefix("spec."), f.value)
    # The sidecar before the primary container: the primary must still come first in the
    # role's pod (operators read containers[0]).
    for (list_name, _), container in sorted(containers.items(), key=lambda i: i[0][1] == PRIMARY):
        spec.setdefault(list_name, []).append(container)
    return PodTemplate(spec, PRIMARY, labels=labels, annotations=annotations,
                       source=f"probe variant {variant}")


def _put(target: dict[str, Any], dotted: str, value: Any) -> None:
    """``target[a][b] = value`` for ``a.b``, keeping what ``target[a]`` holds."""
    *parents, last = dotted.split(".")
    for key in parents:
        target = target.setdefault(key, {})
    target[last] = value


def top_path(path: str) -> str:
    """The probe field a leaf path lies in: ``spec.securityContext.runAsNonRoot`` ->
    ``spec.securityContext``; ``spec.containers[x].securityContext.privileged`` ->
    ``spec.containers[x].securityContext``."""
    head, bracket, rest = path.partition("]")
    if bracket:
        return head + "]." + rest.lstrip(".").split(".", 1)[0]
    return ".".join(path.split(".")[:2])


def _refused(fields: list[ProbeField]) -> Callable[[int, Sequence[PolarityValue]], str | None]:
    """Why the API server's pod rules refuse variant ``variant`` of the probe with
    ``values`` added, or None."""
    from ..errors import PodTemplateError
    from ..model.apiserver import check_pod_template

    def refused(variant: int, values: Sequence[PolarityValue]) -> str | None:
        trial = [*fields, *(ProbeField(path, value, variant, True) for path, value in values)]
        try:
            template = _assemble(trial, variant)
        except PodTemplateError as error:
            return error.message
        spec = dict(template.pod_spec)
        containers = [dict(c) for c in spec.get("containers") or [{"name": PRIMARY}]]
        for container in containers:  # the primary's image comes from the task
            container.setdefault("image", "probe.example/polarity:1")
        problems = check_pod_template({"spec": {**spec, "containers": containers}})
        return problems[0].message if problems else None
    return refused


def _second_polarity(source: SchemaSource, fields: list[ProbeField], not_probed: dict[str, str]
                     ) -> list[ProbeField]:
    """The second-polarity fields (:mod:`.polarity`): in the variants of the fields kept
    apart (they hold few) where the pod rules allow, else in variants of their own."""
    first = max(f.variant for f in fields) + 1
    values = polarity_values(source, {f.path: f.value for f in fields})
    # A variant of fields kept apart takes no value of a field they are kept apart from
    # (serviceAccountName "" beside serviceAccount: set together they must agree).
    partners = {path: {k for m, k, _ in APART if m == path} | {m for m, k, _ in APART
                                                                 if k == path}
                for path in {f.path for f in fields}}
    apart = {variant: [p for f in fields if f.variant == variant
                       for p in (f.path, *partners[f.path])]
             for variant in range(1, first)}
    groups, refused = place(values, _refused(fields), apart, first)
    not_probed.update(refused)
    return [ProbeField(path, value, variant, True)
            for variant, group in sorted(groups.items()) for path, value in group]


def build_probe(source: SchemaSource) -> Probe:
    """The probe for ``source``; raises if a generated template fails validation."""
    not_probed: dict[str, str] = {}
    fields: list[ProbeField] = []
    placed: dict[str, int] = {}
    gen = _Generator(source)
    for path, value in _raw_fields(gen):
        reason = NOT_PROBED.get(path) or _schema_rejects(path, value)
        if reason:
            not_probed[path] = reason
            continue
        placed[path] = _variant_of(path, placed)
        fields.append(ProbeField(path, value, placed[path]))
    fields += _second_polarity(source, fields, not_probed)
    variants = max(f.variant for f in fields) + 1
    apart: dict[str, str] = {}
    for moved in dict.fromkeys(m for m, _, _ in APART if m in placed):
        partners = [kept for m, kept, _ in APART if m == moved]
        whys = dict.fromkeys(why for m, _, why in APART if m == moved)
        apart[moved] = f"kept apart from {', '.join(partners)}: {'; '.join(whys)}"
    templates = tuple(_assemble(fields, v) for v in range(variants))
    return Probe(source=source.label, fields=tuple(fields), templates=templates,
                 apart=apart, not_probed=not_probed, unhinted_enums=tuple(gen.unhinted_enums))


@functools.lru_cache(maxsize=1)
def default_probe() -> Probe:
    """The probe from the default schema source (see :func:`load_schema_source`)."""
    return build_probe(load_schema_source())

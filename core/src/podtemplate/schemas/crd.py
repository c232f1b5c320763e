"""A small validator for custom resources against their CRD's structural schema.

It checks what the API server checks from the schema alone: types, ``required``, ``enum``,
``x-kubernetes-int-or-string``, ``nullable``, bounds and patterns, and the uniqueness of
``x-kubernetes-list-type: map|set`` items. Unknown fields are reported separately as
*pruned*: the API server silently drops a field its schema does not declare unless
``x-kubernetes-preserve-unknown-fields`` is set there, which is exactly how operators lose
pod fields. CEL rules (``x-kubernetes-validations``) and formats are not evaluated.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from .source import find_crd

__all__ = ["CrdProblem", "Crd", "load_crd", "crd_for", "validate_custom_resource",
           "render_path"]

Segment = str | int
Schema = Mapping[str, Any]
_ROOT_IMPLICIT = ("apiVersion", "kind", "metadata")  # ObjectMeta is the API server's own


@dataclass(frozen=True)
class CrdProblem:
    """One problem at ``segments`` (keys and list indexes from the manifest root).
    ``pruned`` problems are unknown fields the API server would drop."""

    segments: tuple[Segment, ...]
    message: str
    pruned: bool = False

    @property
    def path(self) -> str:
        return render_path(self.segments)

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def render_path(segments: Sequence[Segment]) -> str:
    """``("spec", "containers", 0, "image")`` -> ``spec.containers[0].image``."""
    text = ""
    for segment in segments:
        text += f"[{segment}]" if isinstance(segment, int) else (f".{segment}" if text else segment)
    return text


@dataclass(frozen=True, eq=False)
class Crd:
    """A loaded CRD: its file name, kind, group and schema per version name."""

    file: str
    kind: str
    group: str
    versions: Mapping[str, Schema]


@functools.lru_cache(maxsize=16)
def load_crd(path: str | Path) -> Crd:
    """Parse a CRD file (cached: the operator CRDs are megabytes of YAML)."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(path, encoding="utf-8") as stream:
        document = yaml.load(stream, Loader=loader)
    spec = document["spec"]
    versions = {v["name"]: v.get("schema", {}).get("openAPIV3Schema", {})
                for v in spec["versions"] if v.get("served", True)}
    return Crd(file=Path(path).name, kind=spec["names"]["kind"], group=spec["group"],
               versions=versions)


def crd_for(crd_file: str, folder: Path | None = None) -> Crd | None:
    """The CRD ``crd_file``: a CRD a plugin ships, named as a package resource
    (``"podtemplate_x:crds/example.com_things.yaml"``, see ``TaskType.crds``), or the file
    of that name in the shared schemas; None when it is absent."""
    package, colon, resource = crd_file.partition(":")
    if colon:
        return shipped_crd(package, resource)
    path = find_crd(crd_file, folder)
    return load_crd(str(path)) if path is not None else None


def shipped_crd(package: str, resource: str) -> Crd | None:
    """The CRD file ``resource`` inside the installed package ``package``, or None."""
    try:
        found = resources.files(package).joinpath(resource)
    except ModuleNotFoundError:
        return None
    if not found.is_file():
        return None
    with resources.as_file(found) as path:
        return load_crd(str(path))


def validate_custom_resource(manifest: Mapping[str, Any], crd: Crd) -> list[CrdProblem]:
    """Every problem of ``manifest`` against ``crd`` (empty when it is valid)."""
    group, _, version = str(manifest.get("apiVersion", "")).rpartition("/")
    if group != crd.group or manifest.get("kind") != crd.kind:
        return [CrdProblem((), f"{manifest.get('apiVersion')}/{manifest.get('kind')} is not "
                               f"what {crd.file} defines ({crd.group}, kind {crd.kind})")]
    schema = crd.versions.get(version)
    if schema is None:
        return [CrdProblem(("apiVersion",), f"version {version!r} is not served by "
                                            f"{crd.file} (served: {', '.join(crd.versions)})")]
    out: list[CrdProblem] = []
    _object(manifest, schema, (), out, root=True)
    return out


def _check(value: Any, schema: Schema, at: tuple[Segment, ...], out: list[CrdProblem]) -> None:
    if value is None:
        if not schema.get("nullable"):
            out.append(CrdProblem(at, "null is not allowed here"))
        return
    if schema.get("x-kubernetes-int-or-string"):
        if isinstance(value, bool) or not isinstance(value, int | str):
            out.append(CrdProblem(at, f"must be an integer or a string, got {value!r}"))
        return
    kind = schema.get("type")
    if kind is None and ("properties" in schema or "additionalProperties" in schema):
        kind = "object"
    if not _type_ok(value, kind):
        out.append(CrdProblem(at, f"must be of type {kind}, got {type(value).__name__} "
                                  f"{_short(value)}"))
        return
    if "enum" in schema and value not in schema["enum"]:
        out.append(CrdProblem(at, f"{value!r} is not one of {schema['enum']}"))
    _bounds(value, schema, at, out)
    if kind == "object":
        _object(value, schema, at, out)
    elif kind == "array":
        _array(value, schema, at, out)


_TYPES: dict[str, tuple[type, ...]] = {
    "object": (Mapping,), "array": (list, tuple), "string": (str,), "integer": (int,),
    "number": (int, float), "boolean": (bool,),
}


def _type_ok(value: Any, kind: str | None) -> bool:
    if kind is None:
        return True
    if isinstance(value, bool) and kind in ("integer", "number"):
        return False
    return isinstance(value, _TYPES.get(kind, (object,)))


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _object(value: Mapping[str, Any], schema: Schema, at: tuple[Segment, ...],
            out: list[CrdProblem], *, root: bool = False) -> None:
    properties: Mapping[str, Schema] = schema.get("properties") or {}
    extra = schema.get("additionalProperties")
    preserve = schema.get("x-kubernetes-preserve-unknown-fields") is True
    implicit = _ROOT_IMPLICIT if root or schema.get("x-kubernetes-embedded-resource") else ()
    for name in schema.get("required") or ():
        if name not in value:
            out.append(CrdProblem((*at, name), "required field is missing"))
    for key, sub in value.items():
        if key in implicit:
            continue
        if key in properties:
            _check(sub, properties[key], (*at, key), out)
        elif isinstance(extra, Mapping):
            _check(sub, extra, (*at, key), out)
        elif not (extra is True or preserve):
            out.append(CrdProblem((*at, key), "unknown field: the API server prunes it",
                                  pruned=True))


def _array(value: Sequence[Any], schema: Schema, at: tuple[Segment, ...],
           out: list[CrdProblem]) -> None:
    items = schema.get("items")
    if isinstance(items, Mapping):
        for index, item in enumerate(value):
            _check(item, items, (*at, index), out)
    list_type = schema.get("x-kubernetes-list-type")
    if list_type == "set":
        seen: list[Any] = []
        for index, item in enumerate(value):
            if item in seen:
                out.append(CrdProblem((*at, index), f"duplicate item {_short(item)} in a set"))
            seen.append(item)
    elif list_type == "map":
        keys = schema.get("x-kubernetes-list-map-keys") or ()
        found: set[tuple[Any, ...]] = set()
        for index, item in enumerate(value):
            if not isinstance(item, Mapping):
                continue
            key = tuple(repr(item.get(k)) for k in keys)
            if key in found:
                named = ", ".join(f"{k}={item.get(k)!r}" for k in keys)
                out.append(CrdProblem((*at, index), f"duplicate item with {named}"))
            found.add(key)


_BOUNDS = (("minimum", True), ("maximum", False), ("minLength", True), ("maxLength", False),
           ("minItems", True), ("maxItems", False))


def _measure(value: Any, keyword: str) -> float | None:
    """What ``keyword`` bounds in ``value``, or None when it does not apply to it."""
    if keyword.endswith("imum"):
        numeric = isinstance(value, int | float) and not isinstance(value, bool)
        return value if numeric else None
    if keyword.endswith("Length"):
        return len(value) if isinstance(value, str) else None
    return len(value) if isinstance(value, list) else None


def _bounds(value: Any, schema: Schema, at: tuple[Segment, ...], out: list[CrdProblem]) -> None:
    for keyword, is_lower in _BOUNDS:
        bound = schema.get(keyword)
        if bound is None:
            continue
        size = _measure(value, keyword)
        if size is not None and ((size < bound) if is_lower else (size > bound)):
            out.append(CrdProblem(at, f"{_short(value)} violates {keyword} {bound}"))
    pattern = schema.get("pattern")
    if pattern and isinstance(value, str):
        try:
            matches = re.search(pattern, value) is not None
        except re.error:  # an ECMA-only construct: leave it to the API server
            return
        if not matches:
            out.append(CrdProblem(at, f"{value!r} does not match pattern {pattern!r}"))

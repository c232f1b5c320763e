"""Custom resources checked against their CRD's structural schema, offline.

A task type declares the CRDs of its operator (``TaskType.crds``: files its package ships
as data, written by ``podtemplate crd slim``); :func:`shipped_crd` reads one once per
process. Validation checks what the API server checks from the schema alone: types,
``required``, ``enum``, ``nullable``, ``x-kubernetes-int-or-string``, bounds and patterns,
and the uniqueness of ``x-kubernetes-list-type: map|set`` items. Unknown fields are
reported apart as *pruned*: the API server silently drops a field its schema does not
declare unless ``x-kubernetes-preserve-unknown-fields`` is set there, which is exactly how
operators lose pod fields. CEL rules (``x-kubernetes-validations``) and formats are not
evaluated. The schema is compiled into checking nodes once per CRD (lazily, node by node,
as manifests reach them), so checking a manifest walks the manifest, not the schema.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from ._compiled import Node, Problems, Walk, compile_schema, flatten

__all__ = ["CrdProblem", "Crd", "shipped_crd", "load_crd", "crd_from_document",
           "validate_custom_resource", "render_path"]

Segment = str | int
Schema = Mapping[str, Any]


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
    """A loaded CRD: its file name, kind, group, schema per served version and, for a
    shipped CRD, where it came from (``source``: operator, upstream, licence)."""

    file: str
    kind: str
    group: str
    versions: Mapping[str, Schema]
    source: Mapping[str, Any] = field(default_factory=dict)
    _compiled: dict[str, Node] = field(default_factory=dict, init=False, repr=False)

    @property
    def operator(self) -> str:
        """The operator and version the CRD comes from, or its file name."""
        return str(self.source.get("operator") or self.file)

    def api_versions(self) -> tuple[str, ...]:
        return tuple(f"{self.group}/{version}" for version in self.versions)

    def root(self, version: str) -> Node | None:
        """The compiled root node of ``version``'s schema (compiled once), or None."""
        node = self._compiled.get(version)
        if node is None and version in self.versions:
            node = self._compiled[version] = compile_schema(self.versions[version], root=True)
        return node


@functools.cache
def shipped_crd(location: str) -> Crd:
    """The CRD a package ships, named ``"package:resource"``
    (``"podtemplate_pytorch:crds/kubeflow.org_pytorchjobs.json"``, as ``TaskType.crds``
    names it; JSON as ``podtemplate crd slim`` writes it, or YAML), with the
    ``<stem>.source.json`` beside it when there is one; read once per process."""
    from ..errors import PluginError

    package, _, resource = location.partition(":")
    folder, _, name = resource.rpartition("/")
    try:
        base = resources.files(package)
        file = base.joinpath(resource)
        text = file.read_text(encoding="utf-8")
    except (ModuleNotFoundError, OSError, ValueError) as error:
        raise PluginError(f"the CRD {location!r} cannot be read: {error}",
                          fix="name it 'package:path/in/package.json' and ship the file as "
                          "package data (podtemplate crd slim writes it)") from None
    stem, _, suffix = name.rpartition(".")
    if suffix in ("yaml", "yml"):  # as upstream ships it; podtemplate crd slim writes JSON
        document = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    else:
        document = json.loads(text, object_pairs_hook=_intern)
    source_file = base.joinpath(f"{folder}/{stem}.source.json" if folder
                                else f"{stem}.source.json")
    source = json.loads(source_file.read_text(encoding="utf-8")) if source_file.is_file() else {}
    return crd_from_document(document, name, source)


_INTERNED: dict[tuple[Any, ...], dict[str, Any]] = {}


def _intern(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """One object for equal schema objects across every shipped CRD (built bottom up, so a
    member object is already the interned one): the pod schema a CRD repeats for each role
    is then compiled, and a template checked against it, once."""
    key = tuple((name, _frozen(value)) for name, value in pairs)
    found = _INTERNED.get(key)
    if found is None:
        found = _INTERNED[key] = dict(pairs)
    return found


def _frozen(value: Any) -> Any:
    if isinstance(value, dict):
        return id(value)  # interned already
    if isinstance(value, list):
        return ("[]", *map(_frozen, value))
    return (type(value).__name__, value)


def crd_from_document(document: Mapping[str, Any], file: str,
                      source: Mapping[str, Any] | None = None) -> Crd:
    """A :class:`Crd` from a CustomResourceDefinition document (upstream or shipped)."""
    spec = document["spec"]
    versions = {v["name"]: v.get("schema", {}).get("openAPIV3Schema", {})
                for v in spec["versions"] if v.get("served", True)}
    return Crd(file=file, kind=spec["names"]["kind"], group=spec["group"], versions=versions,
               source=dict(source or {}))


@functools.lru_cache(maxsize=16)
def load_crd(path: str | Path) -> Crd:
    """Parse a CRD file, YAML or JSON (cached: upstream CRDs are megabytes of YAML)."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(path, encoding="utf-8") as stream:
        document = yaml.load(stream, Loader=loader)
    return crd_from_document(document, Path(path).name)


def validate_custom_resource(manifest: Mapping[str, Any], crd: Crd, *,
                             skip: frozenset[int] = frozenset()) -> list[CrdProblem]:
    """Every problem of ``manifest`` against ``crd`` (empty when it is valid). ``skip``
    holds the ids of objects inside it that are not checked (proven by other means)."""
    group, _, version = str(manifest.get("apiVersion", "")).rpartition("/")
    if group != crd.group or manifest.get("kind") != crd.kind:
        return [CrdProblem((), f"{manifest.get('apiVersion')}/{manifest.get('kind')} is not "
                               f"what {crd.file} defines ({crd.group}, kind {crd.kind})")]
    root = crd.root(version)
    if root is None:
        return [CrdProblem(("apiVersion",), f"version {version!r} is not served by "
                                            f"{crd.file} (served: {', '.join(crd.versions)})")]
    found: Problems = []
    root.check(manifest, (), Walk(found, skip))
    return [CrdProblem(flatten(at), message, pruned) for at, message, pruned in found]

"""Where a layer's value is written: the layer's name, the file and line, and why.

A layer's name is the one its kind gives it for ``explain``
(:attr:`~podtemplate.resolve.kinds.LayerKind.shown`); :data:`LAYERS` orders the names for
people, in the order the kinds fold.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import PodTemplateError
from ..files.store import is_object_source
from ..files.yaml_lines import Marks, load_marked_path
from ..manifest import TASK_NAME_ANNOTATION
from ..model.conventions import with_flyte_conventions
from ..model.roles import RoleSpec, covers
from ..model.sites import DefinitionSite
from ..model.task import Task
from ..model.templates import PodTemplate
from ..platform import Platform
from ..resolve.kinds import KINDS, ROLE_CLUSTER_TEMPLATE, TASK_OVERRIDE
from ..resolve.layers import Layer
from .walk import Found, Leaf, Step, locate

__all__ = ["LAYERS", "OPERATOR", "Origin", "Source", "Sources", "layer_name"]

CLUSTER_TEMPLATE = "cluster-template"
INTERRUPTIBLE = "interruptible"
TASK_TEMPLATE = "task-template"
TASK_SETTINGS = "task-settings"
RUN_OVERRIDE = "run-override"
ROLE_TEMPLATE = "role-template"
ROLE_SETTINGS = "role-settings"
DEFAULT_RESOURCES = "default-resources"
RESOURCE_TOLERATIONS = "resource-tolerations"
OPERATOR = "operator"
POLICY = "policy"
DEFAULT_IMAGE = "default-image"
SYSTEM = "system"

# Fold order, lowest first. ``system`` and ``default-image`` are what resolution adds
# after the layers: the system labels, the default-container annotation, defaultImage.
LAYERS = (*dict.fromkeys(kind.shown for kind in KINDS), DEFAULT_IMAGE, SYSTEM)

_TEMPLATE_LAYERS = (CLUSTER_TEMPLATE, TASK_TEMPLATE, RUN_OVERRIDE, ROLE_TEMPLATE)
_SCHEDULING = "(scheduling fields)"


def layer_name(layer: Layer) -> str:
    """The name ``explain`` gives ``layer``."""
    return layer.kind.shown


@dataclass(frozen=True)
class Source:
    """A file (relative to the working directory when under it) and a 1-based line."""

    file: str
    line: int | None

    def __post_init__(self) -> None:
        object.__setattr__(self, "file", _shown(self.file))

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line}


@dataclass(frozen=True)
class Origin:
    """Who set (or removed) a value: the layer's name, the source, why, and which
    application of a layer it was (``step``, in fold order; ``label`` as resolved)."""

    layer: str
    source: Source | None
    detail: str | None
    step: int
    label: str


@dataclass(frozen=True)
class _Written:
    """A layer's data as written (a YAML document, or the fragment for Python) and the
    lines of it (None for Python: then ``site`` is the call that made it)."""

    data: Any
    marks: Marks | None
    file: str | None
    site: DefinitionSite | None


class Sources:
    """Origins for one role. Files are read once per explain, through the same safe
    loader as everything else."""

    def __init__(self, task: Task, role: RoleSpec, primary: str, platform: Platform,
                 platform_file: str | None, files: dict[Any, Any]) -> None:
        self.task = task
        self.role = role
        self.primary = primary
        self.platform = platform
        self.platform_file = platform_file
        # Shared by every role of the explain: file -> documents, and the layers found in them.
        self._files: dict[Any, Any] = files

    # ------------------------------------------------------------------- values set

    def origin(self, layer: Layer, step: int, leaf: Leaf) -> Origin:
        name = layer_name(layer)
        written = self._written(layer, name)
        found = locate(written.data, written.marks, leaf.steps, alias=layer.primary_alias,
                       primary=self.primary) if written is not None else None
        details = [self._layer_detail(layer, name, leaf.path)]
        if name == DEFAULT_RESOURCES:
            details.append(self._default_moved(leaf))
        if found is not None and found.entry is not None:
            details.append(_entry_detail(found.entry, self.primary))
        if any(s.kind == "union" for s in leaf.steps):
            details.append("unioned: the items of every layer are kept, exact duplicates once")
        source = self._source(name, written, found, leaf.steps)
        if source is None:
            details.append(self._no_source_reason(name))
        return Origin(name, source, _join(details), step, layer.label)

    def removal(self, layer: Layer, step: int, leaf: Leaf, setter: Origin) -> Origin:
        """Who removed ``leaf`` (which ``setter`` had set): the layer folded at ``step``,
        where it says so."""
        name = layer_name(layer)
        written = self._written(layer, name)
        found = locate(written.data, written.marks, leaf.steps, alias=layer.primary_alias,
                       primary=self.primary) if written is not None else None
        details = [self._layer_detail(layer, name, leaf.path), _how_removed(found)]
        source = self._source(name, written, found, leaf.steps)
        if source is None:
            details.append(self._no_source_reason(name))
        at = f" ({setter.source.file}:{setter.source.line})" if setter.source else ""
        details.append(f"it had been set by {setter.layer}{at}")
        return Origin(name, source, _join(details), step, layer.label)

    def finished(self, leaf: Leaf, step: int) -> Origin:
        """A value resolution added after the layers (or one no layer set)."""
        path = leaf.path
        if path == f"spec.containers[{self.primary}].image" and self.platform.default_image:
            line = self._platform_line(("defaultImage",))
            source = Source(self.platform_file, line) if self.platform_file else None
            detail = "platform defaultImage: no layer gave the primary container an image"
            if source is None:
                detail += "; the platform was not given as a file"
            return Origin(DEFAULT_IMAGE, source, detail, step, "platform defaultImage")
        if path.startswith("metadata.labels."):
            detail = "system label podtemplate adds to every pod"
        elif path == f"metadata.annotations.{TASK_NAME_ANNOTATION}":
            detail = "the task name as written, which the object name differs from"
        elif path.startswith("metadata.annotations."):
            detail = "names the primary container for kubectl (podtemplate adds it)"
        elif path.endswith(".name") and path.startswith("spec.containers["):
            detail = "the primary container's name, which no layer set"
        else:
            detail = "added by podtemplate"
        return Origin(SYSTEM, None, detail + "; no file has it", step, SYSTEM)

    def built(self, leaf: Leaf, step: int, kind: str, setter: Origin | None = None) -> Origin:
        """What the task type set (or, with ``setter``, took out) in the role's pod
        template when it built its ``kind`` manifest."""
        task_type = self.task.task_type
        declared = self.role.declared(self._declared_path(leaf.path))
        if setter is None:
            what = f"set by the {task_type} task type when it builds the {kind}"
        else:
            at = f" ({setter.source.file}:{setter.source.line})" if setter.source else ""
            what = (f"taken out of the pod template by the {task_type} task type when it "
                    f"builds the {kind}; it had been set by {setter.layer}{at}")
        detail = f"{what}: {declared.reason}" if declared is not None else what
        return Origin(OPERATOR, None, f"{detail}; in the task type's code", step,
                      f"{task_type} manifest")

    def _declared_path(self, path: str) -> str:
        """``path`` as task types declare fields: the primary container as ``[primary]``."""
        return path.replace(f"spec.containers[{self.primary}]", "spec.containers[primary]", 1)

    # ------------------------------------------------------------------------ details

    def _layer_detail(self, layer: Layer, name: str, path: str) -> str | None:
        label = layer.label
        if name == OPERATOR:
            return self._operator_reason(path)
        parts: list[str] = []
        if name == CLUSTER_TEMPLATE:
            which = label.removeprefix("cluster template ").removesuffix(f" {_SCHEDULING}")
            parts.append(f"template {which} named by the task" if self.task.pod_template_name
                         else f"default template {which}")
        elif layer.kind is ROLE_CLUSTER_TEMPLATE:
            which = label.rpartition(" ")[2]
            parts.append(f"template {which} named by {self._role_config()}")
        elif layer.kind is TASK_OVERRIDE:
            parts.append("task.with_overrides(pod_template=...)")
        elif name == DEFAULT_RESOURCES:
            parts.append("Flyte's resource rules: an unset request is the limit, else "
                         "platform defaultResources; an unset limit is the request; "
                         "defaultResources.limits caps both")
        if label.endswith(_SCHEDULING):
            parts.append(f"role '{self.role.name}' takes only scheduling fields and "
                         "metadata from the task's templates")
        return _join(parts)

    def _role_config(self) -> str:
        """The role whose config the user wrote, as the user knows it."""
        given = self.role.config_role
        if given is None or given == self.role.name:
            return f"role '{self.role.name}'"
        return f"the {given} role (its pods are role '{self.role.name}' here)"

    def _default_moved(self, leaf: Leaf) -> str | None:
        """Why a filled default differs from platform.yaml's: a default request never
        exceeds the container's limit, nor a default limit its request."""
        keys = [s.key for s in leaf.steps if s.kind == "key"][-2:]
        if len(keys) != 2:
            return None
        side, resource = keys
        defaults = self.platform.default_resources
        given = (defaults.requests if side == "requests" else defaults.limits).get(resource)
        if given is None or given == leaf.value:
            return None
        if side == "requests":
            return f"the container's limit, or the default {given} capped"
        return f"the container's request, capped at {given}"

    def _operator_reason(self, path: str) -> str:
        declared = self._declared_path(path)
        for decl in self.role.owned:
            if covers(decl.path, declared):
                return f"{self.task.task_type} task type: {decl.reason}"
        return f"required by the {self.task.task_type} task type for role '{self.role.name}'"

    def _no_source_reason(self, name: str) -> str:
        if name == OPERATOR:
            return "in the task type's code"
        if name in (INTERRUPTIBLE, DEFAULT_RESOURCES, POLICY):
            return "the platform was not given as a file"
        return "no definition site was recorded"

    # ------------------------------------------------------------------------ sources

    def _source(self, name: str, written: _Written | None, found: Found | None,
                steps: tuple[Step, ...]) -> Source | None:
        if name == DEFAULT_RESOURCES:
            keys = [s.key for s in steps if s.kind == "key"][-2:]
            if self.platform_file is None or len(keys) != 2:
                return None
            # A value Flyte's rules copied (a limit from its request) has no key of its
            # own in platform.yaml: the section that sets the rules is named instead.
            side, resource = keys
            other = "requests" if side == "limits" else "limits"
            line = next((at for path in ((side, resource), (other, resource), (side,), ())
                         if (at := self._platform_line(("defaultResources", *path)))
                         is not None), None)
            return Source(self.platform_file, line) if line is not None else None
        if written is None:
            return None
        if written.file is not None:
            marks = found.marks if found is not None else None
            return Source(written.file, marks.line if marks is not None else None)
        if written.site is not None:
            return Source(written.site.file, written.site.line)
        return None

    def _written(self, layer: Layer, name: str) -> _Written | None:
        """The layer as written, found once per explain for a layer made from a template
        or the platform (the same objects come back for every value and role)."""
        if layer.source is None:
            return self._find_written(layer, name)
        key = ("written", id(layer.source), layer.variant, name)
        found = self._files.get(key)
        if found is None:
            # The source is kept with the entry: its id stays its own.
            found = self._files[key] = (self._find_written(layer, name), layer.source)
        written: _Written | None = found[0]
        return written

    def _find_written(self, layer: Layer, name: str) -> _Written | None:
        if name in _TEMPLATE_LAYERS and isinstance(layer.source, PodTemplate):
            return self._template(layer.source, layer)
        if name == INTERRUPTIBLE:
            return self._platform_part(("interruptible",), layer)
        if name == POLICY:
            return self._platform_part(("policy", "enforce"), layer)
        if name == RESOURCE_TOLERATIONS:
            return self._resource_tolerations(layer)
        if name == TASK_SETTINGS:
            return _Written(layer.fragment, None, None, self.task.defined_at)
        if name == ROLE_SETTINGS and self.role.role is not None:
            return _Written(layer.fragment, None, None, self.role.role.defined_at)
        if name == OPERATOR:
            return _Written(layer.fragment, None, None, None)
        return None

    def _template(self, template: PodTemplate, layer: Layer) -> _Written:
        if template.source is not None and is_object_source(template.source):
            # read from a cluster: the object (namespace/name, resourceVersion) is the source
            return _Written(layer.fragment, None, template.source, None)
        if template.source is not None:
            for data, marks in self._documents(template.source):
                written = _template_document(data, marks, template, template.source)
                if written is not None:
                    return written
            return _Written(layer.fragment, None, template.source, None)
        return _Written(layer.fragment, None, None, template.defined_at)

    def _platform_part(self, keys: tuple[str, ...], layer: Layer) -> _Written:
        """A PodSpec fragment of platform.yaml (at ``keys``) as a layer is shaped."""
        if self.platform_file is not None:
            for data, marks in self._documents(self.platform_file)[:1]:
                part: Marks | None = marks
                for key in keys:
                    data = data.get(key) if isinstance(data, dict) else None
                    part = part.child(key) if part is not None else None
                if data is not None and part is not None:
                    return _Written({"spec": data}, Marks(marks.line, {"spec": part}),
                                    self.platform_file, None)
        return _Written(layer.fragment, None, None, None)

    def _resource_tolerations(self, layer: Layer) -> _Written:
        """platform.yaml ``resourceTolerations`` as the layer is shaped: the tolerations
        of the resources the pod asks for (named in the layer's variant), in order."""
        wanted = layer.variant.partition(":")[2].split(",")
        if self.platform_file is not None:
            for _, marks in self._documents(self.platform_file)[:1]:
                table = marks.child("resourceTolerations")
                if table is not None:
                    items = [item for name in wanted
                             if (found := table.child(name)) is not None
                             for item in found.items]
                    spec = Marks(table.line, {"tolerations": Marks(table.line, items=items)})
                    return _Written(layer.fragment, Marks(table.line, {"spec": spec}),
                                    self.platform_file, None)
        return _Written(layer.fragment, None, None, None)

    def _platform_line(self, keys: tuple[str, ...]) -> int | None:
        if self.platform_file is None:
            return None
        documents = self._documents(self.platform_file)
        marks: Marks | None = documents[0][1] if documents else None
        for key in keys:
            if marks is None:
                return None
            marks = marks.child(key)
        return marks.line if marks is not None else None

    def _documents(self, file: str) -> list[tuple[Any, Marks]]:
        if file not in self._files:
            self._files[file] = load_marked_path(Path(file))
        documents: list[tuple[Any, Marks]] = self._files[file]
        return documents


def _template_document(data: Any, marks: Marks, template: PodTemplate,
                       file: str) -> _Written | None:
    """The document of ``file`` that ``template`` was loaded from, as a layer is shaped
    (``spec``, ``metadata``), or None if ``data`` is another document."""
    if not isinstance(data, dict):
        return None
    kind = data.get("kind")
    if kind == "PodTemplate":
        body, body_marks = data.get("template") or {}, marks.child("template")
    elif kind == "Pod" or kind is None:
        body, body_marks = data, marks
    else:
        return None
    spec: Any
    metadata: Any
    spec_marks: Marks | None
    metadata_marks: Marks | None
    if kind is None:
        spec, spec_marks, metadata, metadata_marks = data, marks, {}, None
    else:
        spec, metadata = body.get("spec"), body.get("metadata") or {}
        spec_marks = body_marks.child("spec") if body_marks else None
        metadata_marks = body_marks.child("metadata") if body_marks else None
    try:
        loaded = PodTemplate.from_manifest(data, template.primary_container_name)
        # a template folder applies Flyte's conventions (model/conventions.py)
        same = loaded == template or PodTemplate(
            with_flyte_conventions(loaded.pod_spec), loaded.primary_container_name,
            loaded.labels, loaded.annotations) == template
    except PodTemplateError:  # another document of the file, invalid on its own
        return None
    if not same:
        return None
    root = Marks(marks.line, {k: v for k, v in (("spec", spec_marks),
                                                 ("metadata", metadata_marks)) if v})
    return _Written({"spec": spec, "metadata": metadata}, root, file, None)


def _entry_detail(entry: str, primary: str) -> str:
    if entry == "default":
        return "from the template's 'default' container, which applies to every container"
    if entry == "default-init":
        return ("from the template's 'default-init' container, which applies to every "
                "init container")
    return f"from the template's primary container '{entry}', named '{primary}' here"


def _how_removed(found: Found | None) -> str | None:
    if found is None:
        return None
    if found.directive is not None:
        return f"removed by $patch: {found.directive}"
    if found.complete and found.value is None:
        return "removed by null"
    if isinstance(found.value, list):
        return "the list was replaced whole"
    if found.complete:
        return "replaced by a value of another kind"
    return None


def _shown(file: str) -> str:
    path = Path(file)
    if not path.is_absolute():
        return file
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return file


def _join(parts: Sequence[str | None]) -> str | None:
    text = "; ".join(p for p in parts if p)
    return text or None

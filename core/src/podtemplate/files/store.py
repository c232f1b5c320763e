"""Template stores: where cluster templates (layer 1) are looked up by name."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from ..errors import PodTemplateError, TemplateFileError, TemplateNotFoundError, brief
from ..model.conventions import with_flyte_conventions
from ..model.template_file import template_parts
from ..model.templates import PodTemplate
from .yamlio import load_path

__all__ = ["TemplateStore", "FolderTemplateStore", "find_template", "is_object_source",
           "object_source"]


class TemplateStore(Protocol):
    def get(self, namespace: str, name: str) -> PodTemplate | None:
        """The template ``namespace/name``, or None."""

    def names(self) -> list[tuple[str, str]]:
        """Every (namespace, name) the store holds, sorted."""


# A template read from a cluster names its object, not a file (explain shows it as is).
_OBJECT_SOURCE = re.compile(r"^[a-z0-9.-]+/[a-z0-9.-]+ \(resourceVersion [^)]*\)$")


def object_source(namespace: str, name: str, resource_version: str) -> str:
    """The ``source`` of a template read from a cluster: ``namespace/name
    (resourceVersion N)``, shown by ``explain`` where a file template shows file:line."""
    return f"{namespace}/{name} (resourceVersion {resource_version})"


def is_object_source(source: str) -> bool:
    """Whether ``source`` names a cluster object (:func:`object_source`), not a file."""
    return _OBJECT_SOURCE.fullmatch(source) is not None


class FolderTemplateStore:
    """A folder of ``kind: PodTemplate`` manifests (``*.yaml``/``*.yml`` in any case,
    recursively, multi-document allowed), as an admin would ``kubectl apply`` them. Files
    are read and validated once, when the store is built; other files are listed in
    :attr:`skipped` (the CLI warns about each)."""

    def __init__(self, folder: str | Path, home_namespace: str) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            problem = "is not a folder" if self.folder.exists() else "does not exist"
            raise TemplateFileError(f"template folder {problem}", file=str(folder),
                                    fix="point templates/--templates at a folder of "
                                    "kind: PodTemplate files")
        self._templates: dict[tuple[str, str], PodTemplate] = {}
        self.skipped: list[Path] = []
        for path in _folder_entries(self.folder):
            if path.is_dir():
                continue
            if path.suffix.lower() not in {".yaml", ".yml"}:
                self.skipped.append(path)
                continue
            for document in load_path(path):
                self._add(path, document, home_namespace)

    def _add(self, path: Path, document: Any, home_namespace: str) -> None:
        kind = document.get("kind") if isinstance(document, dict) else None
        if kind != "PodTemplate":
            raise TemplateFileError(
                f"a template folder holds only kind: PodTemplate, found kind {brief(kind)}",
                file=str(path), fix="move other manifests out of the template folder")
        try:
            parts = template_parts(document, str(path))
            template = PodTemplate(with_flyte_conventions(parts.spec), labels=parts.labels,
                                   annotations=parts.annotations, source=str(path))
        except PodTemplateError as error:
            raise error.located(file=str(path)) from None
        if not parts.name:
            raise TemplateFileError("PodTemplate has no metadata.name", file=str(path),
                                    fix="name the template", field="metadata.name")
        key = (parts.namespace or home_namespace, parts.name)
        if key in self._templates:
            raise TemplateFileError(f"template {key[0]}/{key[1]} is defined twice",
                                    file=str(path), fix="keep one definition per name")
        self._templates[key] = template

    def get(self, namespace: str, name: str) -> PodTemplate | None:
        return self._templates.get((namespace, name))

    def names(self) -> list[tuple[str, str]]:
        return sorted(self._templates)


# A template folder holds tens of files; `--templates /` would walk the whole disk.
MAX_FOLDER_ENTRIES = 10_000


def _folder_entries(folder: Path) -> list[Path]:
    """Everything under ``folder``, sorted; a folder with more entries than any template
    folder has is refused before the walk goes on."""
    entries = []
    for count, path in enumerate(folder.rglob("*"), 1):
        if count > MAX_FOLDER_ENTRIES:
            raise TemplateFileError(f"the template folder holds more than "
                                    f"{MAX_FOLDER_ENTRIES} entries; refused", file=str(folder),
                                    fix="point templates/--templates at the folder of "
                                    "kind: PodTemplate files itself")
        entries.append(path)
    return sorted(entries)


def find_template(store: TemplateStore | None, name: str, namespaces: Sequence[str], *,
                  required: bool) -> tuple[str, PodTemplate] | None:
    """Look ``name`` up in each namespace in turn; returns ``(namespace, template)``.
    A required (named) template that is missing is an error listing what exists."""
    for namespace in namespaces:
        found = store.get(namespace, name) if store is not None else None
        if found is not None:
            return namespace, found
    if not required:
        return None
    existing = ", ".join(f"{ns}/{n}" for ns, n in store.names()) if store else ""
    # A store may say how to add a template to it (the cluster's: kubectl apply).
    where = getattr(store, "add_hint", None) or \
        "add the template to the template folder (--templates / platform.yaml templates)"
    raise TemplateNotFoundError(
        f"pod template {name!r} not found in namespaces {', '.join(namespaces)}; "
        f"templates that exist: {existing or 'none'}",
        fix=f"correct pod_template_name, or {where}",
        field="pod_template_name",
    )

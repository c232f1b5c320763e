"""The shape of a pod template document (``kind: PodTemplate``, ``kind: Pod`` or a bare
PodSpec), checked before its pod spec is: a typo'd or misplaced key at the top would
otherwise empty the template without a word."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, NamedTuple

from ..errors import MergeError, TemplateFileError, brief
from ..merge.rules import PATCH
from .names import check_dns1123_label, check_dns1123_subdomain

__all__ = ["TemplateParts", "template_parts"]

_TOP_KEYS = {
    "PodTemplate": ("apiVersion", "kind", "metadata", "template"),
    "Pod": ("apiVersion", "kind", "metadata", "spec", "status"),
}
_TEMPLATE_KEYS = ("metadata", "spec")
_SHAPES = "use kind: PodTemplate (apiVersion: v1), kind: Pod or a bare PodSpec"


class TemplateParts(NamedTuple):
    """What a pod template document contributes: the object's own name and namespace
    (None when not given), and the pod's spec, labels and annotations."""

    name: str | None
    namespace: str | None
    spec: Any
    labels: Any
    annotations: Any


def _mapping(value: Any, field: str, source: str | None) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise TemplateFileError(f"{field} must be a mapping, not {type(value).__name__}",
                                file=source, field=field,
                                fix=f"write {field} as key: value lines indented under it")
    return value


def _only_keys(document: Mapping[str, Any], allowed: tuple[str, ...], where: str,
               source: str | None) -> None:
    for key in document:
        if key in allowed:
            continue
        if key == "spec" and where == "":
            raise TemplateFileError(
                "spec: is at the top of a kind: PodTemplate; it belongs under template:",
                file=source, field="spec",
                fix="indent it as template: {spec: ...} (and template.metadata for labels)")
        raise TemplateFileError(f"unknown key {brief(key)}", file=source,
                                field=f"{where}{key}" if isinstance(key, str) else where,
                                fix=f"use only {', '.join(allowed)} here (check the spelling)")


@functools.lru_cache(maxsize=1)
def _metadata_keys() -> tuple[str, ...]:
    """The fields of ObjectMeta as they are written in YAML (camelCase), by the shipped
    pod schema."""
    from ._podcheck import pod_template_spec_table

    return tuple(sorted(pod_template_spec_table()[1]["metadata"][1]))


def _metadata(value: Any, field: str, source: str | None) -> Mapping[str, Any]:
    metadata = _mapping(value, field, source)
    _only_keys(metadata, _metadata_keys(), f"{field}.", source)
    return metadata


def _object_name(metadata: Mapping[str, Any], source: str | None) -> tuple[str | None,
                                                                            str | None]:
    name, namespace = metadata.get("name"), metadata.get("namespace")
    if name is not None:
        check_dns1123_subdomain(name, what="metadata.name", field="metadata.name")
    if namespace is not None:
        check_dns1123_label(namespace, what="metadata.namespace", field="metadata.namespace")
    return name, namespace


def _refuse_whole_delete(spec: Any, where: str, source: str | None) -> None:
    """A file whose pod spec is ``$patch: delete`` would delete the whole spec below it."""
    if isinstance(spec, Mapping) and spec.get(PATCH) == "delete":
        raise MergeError("`$patch: delete` on the whole pod spec of a template file",
                         file=source, field=f"{where}$patch",
                         fix="delete single fields or list items (`$patch: delete` on a "
                         "container, `null` for a field), or use `$patch: replace` to "
                         "start from this spec alone")


def template_parts(document: Any, source: str | None) -> TemplateParts:
    """The parts of a template document, its shape checked; every problem is a
    :class:`TemplateFileError` (or a name error) naming the key and the fix."""
    if not isinstance(document, Mapping):
        raise TemplateFileError(f"a pod template must be a mapping, not "
                                f"{type(document).__name__}", file=source, fix=_SHAPES)
    kind = document.get("kind")
    if kind is None and "apiVersion" not in document:
        _refuse_whole_delete(document, "", source)
        return TemplateParts(None, None, document, None, None)
    if not isinstance(kind, str) or kind not in _TOP_KEYS:
        raise TemplateFileError(f"kind {brief(kind)} is not a pod template", file=source,
                                field="kind", fix=_SHAPES)
    if document.get("apiVersion") != "v1":
        raise TemplateFileError(f"apiVersion {brief(document.get('apiVersion'))} is wrong for "
                                f"kind: {kind}", file=source, field="apiVersion",
                                fix="write apiVersion: v1")
    _only_keys(document, _TOP_KEYS[kind], "", source)
    metadata = _metadata(document.get("metadata"), "metadata", source)
    name, namespace = _object_name(metadata, source)
    if kind == "PodTemplate":
        body = _mapping(document.get("template"), "template", source)
        _only_keys(body, _TEMPLATE_KEYS, "template.", source)
        pod_metadata = _metadata(body.get("metadata"), "template.metadata", source)
        spec = body.get("spec")
    else:
        pod_metadata, spec = metadata, document.get("spec")
    _refuse_whole_delete(spec, "template.spec." if kind == "PodTemplate" else "spec.", source)
    return TemplateParts(name, namespace, spec, pod_metadata.get("labels"),
                         pod_metadata.get("annotations"))

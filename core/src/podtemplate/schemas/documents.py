"""Offline validation of any Kubernetes manifests: what ``podtemplate validate`` runs.

Each document is checked by its kind: a ``v1 Pod`` and the template of a ``v1
PodTemplate`` with the API server's pod rules (:func:`api_pod_check`), a custom resource
against the CRD an installed task type declares for its group and kind (and every pod
template inside it with the same pod rules),
each item of a ``v1 List`` likewise. Any other kind is reported as *not checked*, never as
valid. A problem is located by its document (``file#n``, from 1), the object, the field
path and the rule it breaks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..model.apiserver._objects import configmap_problems
from .crd import Crd, validate_custom_resource
from .resources import CrdIndex, crd_of, pod_field

__all__ = ["DocumentProblem", "NOT_CHECKED", "api_pod_check", "configmap_problems",
           "describe", "list_items", "not_an_object", "strict_pod_check", "validate_document"]

NOT_CHECKED = "not checked"
_POD_FIELDS = frozenset(("apiVersion", "kind", "metadata", "spec", "status"))
PodCheck = Callable[[Mapping[str, Any]], list[tuple[str, str, str]]]  # (path, rule, message)


@dataclass(frozen=True)
class DocumentProblem:
    """One problem of one document. ``rule`` is what was broken (``NOT_CHECKED`` when the
    document could not be checked at all)."""

    document: str
    what: str
    path: str
    rule: str
    message: str

    @property
    def checked(self) -> bool:
        return self.rule != NOT_CHECKED

    def __str__(self) -> str:
        where = f"{self.document} ({self.what})" if self.what else self.document
        path = f" {self.path}:" if self.path else ""
        return f"{where}:{path} {self.message} [rule: {self.rule}]"


def validate_document(document: Any, where: str, index: CrdIndex,
                      pod_check: PodCheck) -> list[DocumentProblem]:
    """Every problem of one parsed document; ``index`` holds the CRDs of the installed task
    types, ``pod_check`` checks a PodTemplateSpec-shaped dict. An image still holding a
    ``{{`` placeholder (flytekit's ``{{.image.NAME.fqn}}``) is one, in any kind."""
    problems = _kind_problems(document, where, index, pod_check)
    if isinstance(document, Mapping) and list_items(document, where) is None:
        problems += [DocumentProblem(where, describe(document), path, "image placeholder",
                                     f"image {image!r} still holds a placeholder (fix: "
                                     "render it with platform.yaml's images: map naming "
                                     "the image, or write the image itself)")
                     for path, image in _placeholder_images(document)]
    return problems


def _placeholder_images(document: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(path, image) of every ``image`` string holding ``{{`` anywhere in ``document``."""
    stack: list[tuple[str, Any]] = [("", document)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, Mapping):
            for key, item in value.items():
                inner = f"{path}.{key}" if path else str(key)
                if key == "image" and isinstance(item, str) and "{{" in item:
                    yield inner, item
                else:
                    stack.append((inner, item))
        elif isinstance(value, list):
            for number, item in enumerate(value):
                label = item.get("name") if isinstance(item, Mapping) else None
                stack.append((f"{path}[{label if isinstance(label, str) else number}]", item))


def not_an_object(document: Any, where: str) -> list[DocumentProblem]:
    """Why ``document`` is not a Kubernetes object (not a mapping, or no apiVersion or
    kind), as one problem; empty when it is one. Offline and server validation share it."""
    if not isinstance(document, Mapping):
        shape = _KINDS_OF_VALUE.get(type(document), f"a {type(document).__name__}")
        return [DocumentProblem(where, "", "", "document", f"{shape}, not a Kubernetes "
                                "object (a mapping with apiVersion and kind)")]
    missing = [key for key in ("apiVersion", "kind")
               if not isinstance(document.get(key), str) or not document.get(key)]
    if missing:
        return [DocumentProblem(where, describe(document), "", "document",
                                f"no {' and no '.join(missing)}: every Kubernetes object "
                                "names its apiVersion and kind")]
    return []


def list_items(document: Mapping[str, Any], where: str) -> list[tuple[Any, str]] | None:
    """The items of a ``v1 List``, each with where it sits (``where.items[N]``), to be
    judged on its own; None when ``document`` is not a List."""
    if document.get("apiVersion") == "v1" and document.get("kind") == "List":
        return [(item, f"{where}.items[{number}]")
                for number, item in enumerate(document.get("items") or ())]
    return None


def _kind_problems(document: Any, where: str, index: CrdIndex,
                   pod_check: PodCheck) -> list[DocumentProblem]:
    problems = not_an_object(document, where)
    if problems:
        return problems
    items = list_items(document, where)
    if items is not None:
        return [problem for item, at in items
                for problem in validate_document(item, at, index, pod_check)]
    api_version, kind = document.get("apiVersion"), document.get("kind")
    what = describe(document)
    if api_version == "v1" and kind == "Pod":
        extra = [DocumentProblem(where, what, key, "Pod", "unknown field: a Pod has "
                                 "apiVersion, kind, metadata, spec and status")
                 for key in document if key not in _POD_FIELDS]
        body = {key: document[key] for key in ("metadata", "spec") if key in document}
        # the pod check reads the labels and annotations; the name is the object's own
        return (extra + _metadata_problems(document, where, what, skip=_POD_METADATA)
                + _pod_problems(body, where, what, "", pod_check))
    if api_version == "v1" and kind == "ConfigMap":
        return [DocumentProblem(where, what, path, "ConfigMap", message)
                for path, message in configmap_problems(document)] + _metadata_problems(
                    document, where, what, skip=("metadata.name",))
    if api_version == "v1" and kind == "PodTemplate":
        template = document.get("template")
        if not isinstance(template, Mapping):
            return [DocumentProblem(where, what, "template", "pod", "a PodTemplate has a "
                                    "template (metadata and spec)")]
        return (_metadata_problems(document, where, what)
                + _pod_problems(template, where, what, "template.", pod_check))
    crd = crd_of(index, document)
    if crd is None:
        return [DocumentProblem(where, what, "", NOT_CHECKED,
                                f"no installed task type declares a CRD for {api_version} "
                                f"{kind}: this document was not checked")]
    return _custom_resource_problems(document, crd, where, what, pod_check)


_KINDS_OF_VALUE: dict[type, str] = {list: "a list", str: "a string", int: "an integer",
                                     float: "a number", bool: "a boolean"}
_POD_METADATA = ("metadata.labels", "metadata.annotations")


def _metadata_problems(document: Mapping[str, Any], where: str, what: str,
                       skip: tuple[str, ...] = ()) -> list[DocumentProblem]:
    """The object's own ``metadata`` as the API server checks it for every object it
    stores (:func:`podtemplate.model.apiserver.check_object_metadata`), but paths under
    ``skip``, which another check of the document reads."""
    from ..model.apiserver import check_object_metadata

    return [DocumentProblem(where, what, problem.path, problem.rule,
                            f"{problem.message} (fix: {problem.fix})")
            for problem in check_object_metadata(document.get("metadata"))
            if not problem.path.startswith(skip)]


def api_pod_check(template: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """A PodTemplateSpec-shaped dict checked as the API server checks it
    (:func:`podtemplate.check_pod_template`: field names - a snake_case one with the
    camelCase hint -, value types and every pod rule, each problem with the rule it
    breaks and the fix); a template these pass is then checked with core's own name and
    quantity checks (:func:`strict_pod_check`)."""
    from ..model.apiserver import check_pod_template

    found = [(problem.path, problem.rule, f"{problem.message} (fix: {problem.fix})")
             for problem in check_pod_template(template)]
    return found or strict_pod_check(template)


def strict_pod_check(template: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """A PodTemplateSpec-shaped dict checked strictly against the shipped pod schema
    (field names, types, required fields) and core's own name and quantity checks:
    ``(path, rule, message)`` each."""
    from ..errors import PodTemplateError
    from ..model.podspec import validate_pod_template_spec

    try:
        validate_pod_template_spec(template)
    except PodTemplateError as error:
        return [(error.field or "", "pod check", error.message)]
    return []


def describe(document: Mapping[str, Any]) -> str:
    """``Kind name`` of a document, for the lines that name it."""
    kind = document.get("kind")
    metadata = document.get("metadata")
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    return " ".join(str(part) for part in (kind, name) if part)


def _pod_problems(pod: Mapping[str, Any], where: str, what: str, prefix: str,
                  pod_check: PodCheck) -> list[DocumentProblem]:
    return [DocumentProblem(where, what, prefix + path if path else prefix.rstrip("."), rule,
                            message) for path, rule, message in pod_check(pod)]


def _custom_resource_problems(document: Mapping[str, Any], crd: Crd, where: str, what: str,
                              pod_check: PodCheck) -> list[DocumentProblem]:
    version = str(document.get("apiVersion")).rpartition("/")[2]
    if crd.root(version) is None:
        return [DocumentProblem(where, what, "apiVersion", NOT_CHECKED,
                                f"version {version!r} is not checked: the {crd.kind} CRD "
                                f"shipped ({crd.operator}) has {', '.join(crd.versions)}")]
    rule = f"{crd.kind} CRD of {crd.operator}"
    problems = _metadata_problems(document, where, what)
    problems += [DocumentProblem(where, what, pod_field(document, problem.segments),
                                 f"{rule}: pruned" if problem.pruned else rule,
                                 "unknown field: the API server would silently drop it"
                                 if problem.pruned else problem.message)
                 for problem in validate_custom_resource(document, crd)]
    for path, template in _pod_templates(document, crd, version):
        problems += _pod_problems(template, where, what, f"{path}.", pod_check)
    return problems


def _pod_templates(document: Mapping[str, Any], crd: Crd, version: str
                   ) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Every pod template inside a custom resource, with its path: an object the CRD's
    schema types as a PodTemplateSpec (``metadata`` and a ``spec`` with ``containers``),
    or one shaped so where the schema keeps the object as it is (Spark's templates)."""
    schema = crd.versions[version]

    def walk(value: Any, node: Mapping[str, Any], path: str) -> Iterator[tuple[str, Any]]:
        properties = node.get("properties") or {}
        if isinstance(value, Mapping):
            typed = _is_pod_template(properties) and isinstance(value.get("spec"), Mapping)
            if typed or (not properties and _looks_like_pod_template(value)):
                yield path, {k: value[k] for k in ("metadata", "spec") if k in value}
                return
            extra = node.get("additionalProperties")
            for key, sub in value.items():
                child = properties.get(key) or (extra if isinstance(extra, Mapping) else None)
                if child is not None:
                    yield from walk(sub, child, f"{path}.{key}" if path else str(key))
        elif isinstance(value, list) and isinstance(node.get("items"), Mapping):
            for number, item in enumerate(value):
                yield from walk(item, node["items"], f"{path}[{number}]")

    yield from walk(document, schema, "")


def _looks_like_pod_template(value: Mapping[str, Any]) -> bool:
    spec = value.get("spec")
    return (set(value) <= {"metadata", "spec"} and isinstance(spec, Mapping)
            and isinstance(spec.get("containers"), list))


def _is_pod_template(properties: Mapping[str, Any]) -> bool:
    spec = properties.get("spec")
    return ("metadata" in properties and isinstance(spec, Mapping)
            and "containers" in (spec.get("properties") or {}))

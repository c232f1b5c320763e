"""The kit's schema and shape checks over rendered manifests: the operator's CRD (with
pruning mapped back to pod fields), the shipped pod schema and the API server's pod
rules, the shape of
every role pod, and determinism."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..errors import InvalidNameError
from ..manifest import DEFAULT_CONTAINER_ANNOTATION, SYSTEM_LABELS, role_label_value
from ..model.apiserver import check_pod, check_pod_template
from ..model.names import check_label_key, check_label_value
from ..schemas.crd import Crd, CrdProblem, validate_custom_resource
from ..schemas.resources import CrdIndex, crd_index
from ..schemas.resources import crd_of as _crd_of_manifest
from .compare import path_segments
from .probe import PRIMARY
from .results import Finding

if TYPE_CHECKING:
    from .kit import Kit, Rendered, RolePod
from ..errors import PodTemplateError

__all__ = ["crd_of", "crd_missing_reason", "pruned_fields", "crd_findings", "pod_findings",
           "shape_findings", "determinism_findings", "label_syntax_problems"]


def _declared(kit: Kit) -> CrdIndex | PodTemplateError:
    """The CRDs the task type ships, by kind, or why one of them cannot be read."""
    try:
        return crd_index([kit.info])
    except PodTemplateError as error:  # declared but not shipped
        return error


def _main_crd(kit: Kit, index: CrdIndex) -> Crd | None:
    info = kit.info
    return _crd_of_manifest(index, {"apiVersion": info.api_version, "kind": info.kind})


def crd_of(kit: Kit) -> Crd | None:
    """The CRD the task type declares for its main manifest; None for a Pod type or when
    it declares none (or cannot read it: :func:`crd_missing_reason` says so)."""
    index = _declared(kit)
    return None if isinstance(index, PodTemplateError) else _main_crd(kit, index)


def crd_missing_reason(kit: Kit) -> str | None:
    """Why the CRD checks cannot run (a custom resource type that declares no CRD for
    its main kind, or one that cannot be read), or None when they can or do not apply."""
    info = kit.info
    if info.kind == "Pod":
        return None
    index = _declared(kit)
    if isinstance(index, PodTemplateError):
        return f"task type '{info.name}': {index}"
    if _main_crd(kit, index) is not None:
        return None
    return (f"task type '{info.name}' declares no CRD for {info.api_version} {info.kind}: "
            "ship the operator's CRD with podtemplate crd slim and declare it in "
            "TaskType(crds=...), so manifests are validated and pruned fields detected")


def _problems(kit: Kit, rendered: Rendered) -> Iterable[tuple[int, Crd, CrdProblem]]:
    index = _declared(kit)
    if isinstance(index, PodTemplateError) or _main_crd(kit, index) is None:
        return  # unverified: crd_missing_reason says why
    for number, manifest in enumerate(rendered.manifests):
        crd = _crd_of_manifest(index, manifest)
        if crd is not None:
            for problem in validate_custom_resource(manifest, crd):
                yield number, crd, problem


def _owner(problem: CrdProblem, index: int, rendered: Rendered
           ) -> tuple[str, RolePod, tuple[Any, ...]] | None:
    """The role whose pod holds ``problem``, its pod and the rest of the path inside it."""
    for role, located in rendered.pods.items():
        if located is None or located.index != index:
            continue
        prefix = tuple(path_segments(located.path))
        if problem.segments[:len(prefix)] == prefix:
            return role, located, problem.segments[len(prefix):]
    return None


def _nearest_role(problem: CrdProblem, index: int, rendered: Rendered) -> str | None:
    """The role whose pod is a sibling of the problem's path (its replica spec, say)."""
    for role, located in rendered.pods.items():
        if located is None or located.index != index or not located.path:
            continue
        parent = tuple(path_segments(located.path))[:-1]
        if parent and problem.segments[:len(parent)] == parent:
            return role
    return None


def _field_of(rest: tuple[Any, ...], located: RolePod) -> str:
    """The probe field a path inside a pod belongs to (``spec.containers[primary].x``)."""
    if len(rest) < 2:
        return ".".join(map(str, rest)) or "(the whole pod)"
    if rest[0] == "spec" and rest[1] in ("containers", "initContainers") and len(rest) > 3:
        container = located.pod["spec"][rest[1]][rest[2]]
        name = container.get("name")
        key = PRIMARY if name == located.primary else name
        return f"spec.{rest[1]}[{key}].{rest[3]}"
    return f"{rest[0]}.{rest[1]}"


def pruned_fields(kit: Kit, rendered: Rendered) -> dict[tuple[str, str], str]:
    """(role, probe field) -> why it is lost, for every field the CRD would prune."""
    lost: dict[tuple[str, str], str] = {}
    for index, crd, problem in _problems(kit, rendered):
        owner = _owner(problem, index, rendered) if problem.pruned else None
        if owner is not None:
            role, located, rest = owner
            lost.setdefault((role, _field_of(rest, located)),
                            f"the CRD {crd.file} ({crd.operator}) prunes {problem.path}: "
                            "the operator never sees it")
    return lost


def crd_findings(kit: Kit) -> list[Finding]:
    """CRD violations of every render (type, required, enum, duplicates), and pruned
    fields that are not probe fields. Pruned probe fields are LOST in the probe check."""
    if crd_missing_reason(kit) is not None:
        return []  # unverified: the conformance test and coverage report why
    found: dict[str, Finding] = {}
    probed = set(kit.probe.paths)
    for layer, _, rendered in kit.renders():
        for index, crd, problem in _problems(kit, rendered):
            owner = _owner(problem, index, rendered)
            role = owner[0] if owner else _nearest_role(problem, index, rendered)
            field = _field_of(owner[2], owner[1]) if owner else problem.path
            if problem.pruned and field in probed:
                continue
            message = f"{problem} (CRD {crd.file}, manifest #{index})"
            found.setdefault(message, Finding("crd", kit.plugin, message, role=role,
                                              field=field, layer=layer))
    return list(found.values())


def pod_findings(kit: Kit) -> list[Finding]:
    """Every role pod of every render has only the shipped pod schema's fields and
    passes every rule of the API server (a ``v1 Pod`` manifest as a whole)."""
    found: list[Finding] = []
    for layer, _, rendered in kit.renders():
        for role, located in rendered.pods.items():
            if located is None:
                continue
            whole = located.path == "" and located.manifest.get("kind") == "Pod"
            # Some operators keep siblings beside the pod (Dask's scheduler ``service``).
            data = located.manifest if whole else {k: v for k, v in located.pod.items()
                                                   if k in ("metadata", "spec")}
            for problem in (check_pod(data) if whole else check_pod_template(data))[:1]:
                found.append(Finding("pod-schema", kit.plugin, f"the API server would refuse "
                                     f"the pod: {problem}", role=role, field=problem.path,
                                     layer=layer))
    return found


def shape_findings(kit: Kit, check: str | None = None) -> list[Finding]:
    """Shape problems of every role pod, on the plain sample task and on the one carrying
    the task-layer probe: ``primary`` (primary container first, with the operator's name,
    named by the default-container annotation; a role pod missing) and ``labels`` (system
    labels). ``check`` selects one. Duplicate keys: :mod:`.duplicates`."""
    found: list[Finding] = []
    for layer, rendered in (("baseline", kit.baseline), ("task", kit.layer_render("task", 0))):
        if rendered.error is not None:
            continue
        for role in rendered.roles:
            found += _shape(kit, role.name, rendered.pods.get(role.name), rendered, layer)
    return [f for f in found if check is None or f.check == check]


def _shape(kit: Kit, role: str, located: RolePod | None, rendered: Rendered,
           layer: str) -> list[Finding]:
    def fail(check: str, message: str, field: str | None = None) -> Finding:
        return Finding(check, kit.plugin, message, role=role, field=field, layer=layer)

    if located is None:
        return [fail("primary", "no pod of this role found at its template_path in any "
                                "manifest")]
    pod = located.pod
    problems: list[Finding] = []
    containers = (pod.get("spec") or {}).get("containers") or [{}]
    if containers[0].get("name") != located.primary:
        problems.append(fail("primary", f"the first container is "
                             f"{containers[0].get('name')!r}, not the primary container "
                             f"{located.primary!r}", "spec.containers[0].name"))
    metadata: Mapping[str, Any] = pod.get("metadata") or {}
    annotation = (metadata.get("annotations") or {}).get(DEFAULT_CONTAINER_ANNOTATION)
    if annotation != located.primary:
        problems.append(fail("primary", f"annotation {DEFAULT_CONTAINER_ANNOTATION} is "
                             f"{annotation!r}, not {located.primary!r}",
                             f"metadata.annotations.{DEFAULT_CONTAINER_ANNOTATION}"))
    labels = metadata.get("labels") or {}
    task = rendered.task
    expected = dict(zip(SYSTEM_LABELS, (task.object_name if task else None, kit.task_type,
                                        role_label_value(role)), strict=True))
    for key, value in expected.items():
        if labels.get(key) != value:
            problems.append(fail("labels", f"system label {key} is {labels.get(key)!r}, not "
                                 f"{value!r}", f"metadata.labels.{key}"))
    problems += [fail("labels", problem, f"metadata.labels.{key}")
                 for key, problem in label_syntax_problems(labels)]
    return problems


def label_syntax_problems(labels: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(key, problem)`` for every label whose key or value the API server would refuse
    (a colon in a value, more than 63 characters...)."""
    problems = []
    for key, value in labels.items():
        for check, checked in ((check_label_key, key), (check_label_value, value)):
            try:
                check(checked)
            except InvalidNameError as error:
                problems.append((str(key), error.message))
    return problems


def determinism_findings(kit: Kit) -> list[Finding]:
    """Two renders of the same task give equal manifests."""
    first = kit.layer_render("task", 0)
    if first.task is None or first.error is not None:
        return []
    again = kit.render(first.task)
    if json.dumps(first.manifests, sort_keys=True) == json.dumps(again.manifests,
                                                                 sort_keys=True):
        return []
    return [Finding("determinism", kit.plugin, "two renders of the same task differ",
                    layer="task")]

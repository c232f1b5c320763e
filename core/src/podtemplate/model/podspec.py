"""Pod specs at the boundary: normalise any accepted input to a camelCase dict once, and
validate strictly with the kubernetes client's pydantic models (unknown fields forbidden)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ValidationError

from ..errors import ApiRuleError, InvalidPodSpecError
from ..merge.engine import clean, duplicate_keys
from ..stash import StashKey
from .apiserver import ApiProblem, check_final_pod, check_fragment, check_keys_only
from .names import check_dns1123_label, check_quantity, dns1123_label_ok, quantity_ok
from .plaindata import plain_copy

__all__ = [
    "normalize_pod_spec",
    "validate_pod_spec",
    "validate_pod_template_spec",
    "field_path",
    "check_pod_spec",
    "raise_api_problems",
    "check_final_pods",
    "API_RULES_MEMO",
]

# The render's memo table of parts found valid.
API_RULES_MEMO = StashKey[dict[Any, Any]]("the API server's rules: parts found valid")

_CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")


def normalize_pod_spec(value: Any, *, what: str = "pod_spec") -> dict[str, Any]:
    """Return a fresh camelCase dict for a dict, a kubernetes client model or None."""
    if value is None:
        return {}
    if isinstance(value, BaseModel):
        return value.model_dump(by_alias=True, exclude_none=True, mode="json")
    if isinstance(value, Mapping):
        spec: dict[str, Any] = plain_copy(value)
        _quantities_as_text(spec)
        return spec
    raise InvalidPodSpecError(
        f"{what} must be a dict, a kubernetes.client V1PodSpec or None, not "
        f"{type(value).__name__}",
        fix="pass a camelCase dict, a V1PodSpec, or use PodTemplate.from_yaml(...)",
    )


def _quantities_as_text(spec: dict[str, Any]) -> None:
    """``cpu: 2`` or ``memory: 1.5`` as kubectl takes them: a number becomes the quantity
    string the API server returns (checked, so a bool or a negative is refused here)."""
    places: list[tuple[Any, str]] = [(spec.get("overhead"), "spec.overhead")]
    for resources, where in [(spec.get("resources"), "spec.resources")] + [
            (c.get("resources") if isinstance(c, dict) else None, f"spec.{name}[{i}].resources")
            for name in _CONTAINER_LISTS if isinstance(spec.get(name), list)
            for i, c in enumerate(spec[name])]:
        if isinstance(resources, dict):
            places += [(resources.get(kind), f"{where}.{kind}") for kind in ("requests", "limits")]
    for quantities, where in places:
        if not isinstance(quantities, dict):
            continue
        for name, value in quantities.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                quantities[name] = check_quantity(value, field=f"{where}.{name}")


def field_path(spec: Mapping[str, Any], loc: Sequence[int | str], root: str = "spec") -> str:
    """Render a pydantic error location as a field path, naming list items by their
    ``name`` where they have one: ``spec.containers[primary].ports[0].containerPort``."""
    parts = [root] if root else []
    node: Any = spec
    text = ""
    for step in loc:
        if isinstance(step, int):
            item = node[step] if isinstance(node, list) and step < len(node) else None
            name = item.get("name") if isinstance(item, Mapping) else None
            text += f"[{name}]" if isinstance(name, str) and name else f"[{step}]"
            node = item
        else:
            text += f".{step}" if (text or parts) else str(step)
            node = node.get(step) if isinstance(node, Mapping) else None
    return (parts[0] if parts else "") + text


@lru_cache(maxsize=1)
def _models() -> tuple[type[BaseModel], type[BaseModel]]:
    from kubernetes.client import V1PodSpec, V1PodTemplateSpec

    return V1PodSpec, V1PodTemplateSpec


def _raise_validation(error: ValidationError, data: Mapping[str, Any], root: str) -> None:
    first = error.errors()[0]
    path = field_path(data, first["loc"], root)
    kind = first["type"]
    if kind == "extra_forbidden":
        message = f"unknown field '{first['loc'][-1]}'"
        fix = "remove it or correct its spelling (fields are camelCase, as in YAML manifests)"
    elif kind == "missing":
        message = f"required field '{first['loc'][-1]}' is missing"
        fix = "add it"
    else:
        message = f"{first['msg'].lower()} (got {first.get('input')!r})"
        fix = "give a value of the type the Kubernetes API expects"
    more = len(error.errors()) - 1
    if more:
        message += f" (and {more} more problem{'s' if more > 1 else ''})"
    raise InvalidPodSpecError(message, fix=fix, field=path) from None


def _raise_unknown_names(problems: Sequence[ApiProblem], *, root: str) -> None:
    """Raise the first unknown field name, with the camelCase name meant when there is
    one: the client models refuse a wrongly cased name (``NodeSelector``) without it."""
    unknown = [problem for problem in problems if problem.message.startswith("unknown field")]
    if unknown:
        raise_api_problems(unknown, root=root)


def validate_pod_spec(spec: Mapping[str, Any], *, root: str = "spec",
                      require_containers: bool = False) -> None:
    """Strictly validate a PodSpec dict (directives and nulls removed first). A template
    fragment may omit ``containers``; a final pod may not (``require_containers``)."""
    data = clean(spec)
    if not require_containers:
        data.setdefault("containers", [])
    try:
        _models()[0].model_validate(data)
    except ValidationError as error:
        _raise_unknown_names(check_keys_only({"spec": data}), root=root)
        _raise_validation(error, data, root)
    check_pod_spec(data, root=root)
    problems = check_fragment({"spec": data})
    if problems:
        raise_api_problems(problems, root=root)


def validate_pod_template_spec(template: Mapping[str, Any], *, root: str = "") -> None:
    """Strictly validate a full PodTemplateSpec (``metadata`` + ``spec``)."""
    data = clean(template)
    try:
        _models()[1].model_validate(data)
    except ValidationError as error:
        _raise_unknown_names(check_keys_only(data, base=root), root="spec")
        _raise_validation(error, data, root)
    check_pod_spec(data.get("spec") or {}, root=f"{root}.spec" if root else "spec")
    problems = check_keys_only(data, base=root)
    if problems:
        raise_api_problems(problems)


def check_final_pods(task: str, pods: Mapping[str, Mapping[str, Any]],
                     known: dict[Any, bool]) -> None:
    """Every role's final pod (``{role: pod template}``) against the API server's pod
    rules, all of them, once: the first problem is raised naming task, role, field path,
    rule and fix. ``known`` is the render's table of parts found valid (a
    ``RenderContext.memo`` table)."""
    for role, pod in pods.items():
        problems = check_final_pod(pod, known)
        if problems:
            raise_api_problems(problems, task=task, role=role)


def raise_api_problems(problems: Sequence[ApiProblem], *, root: str = "spec",
                       task: str | None = None, role: str | None = None) -> None:
    """Raise the first problem as one line (with the count of the others); paths that
    start at ``spec`` start at ``root`` instead (``interruptible.tolerations[0]``)."""
    first = problems[0]
    path = first.path
    if root != "spec" and (path == "spec" or path.startswith(("spec.", "spec["))):
        path = root + path[len("spec"):]
    more = len(problems) - 1
    message = f"{first.message}; rule: {first.rule}"
    if more:
        message += f" (and {more} more problem{'s' if more > 1 else ''})"
    raise ApiRuleError(message, fix=first.fix, field=path, task=task, role=role)


def check_pod_spec(spec: Mapping[str, Any], *, root: str = "spec",
                   duplicates: bool = True) -> None:
    """What the client models do not check: names, quantities and duplicate keys
    (``duplicates=False`` leaves those out: a merge result never has any).

    Runs for every layer made for one task, so the field paths of the errors are only
    spelled out once a check has failed."""
    for list_name in _CONTAINER_LISTS:
        for index, container in enumerate(spec.get(list_name) or ()):
            name = container.get("name")
            if type(name) is not str or not dns1123_label_ok(name):
                check_dns1123_label(name, what="container name",
                                    field=f"{root}.{list_name}[{name or index}].name")
            resources = container.get("resources")
            if resources:
                _check_resources(resources, root, f"{list_name}[{name or index}].resources")
    for index, volume in enumerate(spec.get("volumes") or ()):
        name = volume.get("name")
        if type(name) is not str or not dns1123_label_ok(name):
            check_dns1123_label(name, what="volume name",
                                field=f"{root}.volumes[{name or index}].name")
    for name, value in (spec.get("overhead") or {}).items():
        check_quantity(value, field=f"{root}.overhead.{name}")
    if spec.get("resources"):
        _check_resources(spec["resources"], root, "resources")
    repeated = duplicate_keys(spec) if duplicates else []
    if repeated:
        raise InvalidPodSpecError(
            "the same key is given twice in one list",
            fix="give each container, env var, volume, port... once per template",
            field=root + repeated[0][len("spec"):],
        )


def _check_resources(resources: Mapping[str, Any], root: str, where: str) -> None:
    for kind in ("requests", "limits"):
        for name, value in (resources.get(kind) or {}).items():
            if type(value) is not str or not quantity_ok(value):
                check_quantity(value, field=f"{root}.{where}.{kind}.{name}")

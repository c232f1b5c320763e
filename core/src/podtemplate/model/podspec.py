"""Pod specs at the boundary: normalise any accepted input to a camelCase dict once, and
validate it strictly against the pod schema the package ships (unknown fields and wrong
types refused) and the API server's pod rules.

A ``kubernetes.client`` object (V1PodSpec, V1PodTemplateSpec...) is accepted as input and
turned into a dict by the client's own serializer; the client's models never decide which
fields exist (the shipped schema does: see ``_podcheck``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import ApiRuleError, InvalidPodSpecError, MergeError
from ..merge.engine import clean, duplicate_keys
from ..stash import StashKey
from .apiserver import ApiProblem, check_final_pod, check_fragment, check_keys_only
from .names import check_dns1123_label, check_quantity, dns1123_label_ok, quantity_ok
from .plaindata import plain_copy

__all__ = [
    "normalize_pod_spec",
    "validate_pod_spec",
    "validate_pod_template_spec",
    "client_object_to_dict",
    "check_pod_spec",
    "raise_api_problems",
    "check_final_pods",
    "API_RULES_MEMO",
    "DUPLICATE_KEY",
]

# The message of a keyed list holding a key twice (the conformance kit tells it apart).
DUPLICATE_KEY = "the same key is given twice in one list"

# The render's memo table of parts found valid.
API_RULES_MEMO = StashKey[dict[Any, Any]]("the API server's rules: parts found valid")

_CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")


def normalize_pod_spec(value: Any, *, what: str = "pod_spec") -> dict[str, Any]:
    """Return a fresh camelCase dict for a dict, a kubernetes client model or None."""
    if value is None:
        return {}
    if is_client_object(value):
        return client_object_to_dict(value)
    if isinstance(value, Mapping):
        spec: dict[str, Any] = plain_copy(value)
        _quantities_as_text(spec)
        return spec
    raise InvalidPodSpecError(
        f"{what} must be a dict, a kubernetes.client V1PodSpec or None, not "
        f"{type(value).__name__}",
        fix="pass a camelCase dict, a V1PodSpec, or use PodTemplate.from_yaml(...)",
    )


def is_client_object(value: Any) -> bool:
    """Whether ``value`` is a model object of the ``kubernetes`` Python client."""
    return type(value).__module__.startswith("kubernetes.client.models")


def client_object_to_dict(value: Any) -> dict[str, Any]:
    """A ``kubernetes.client`` model object as the JSON-shaped, camelCase dict the API
    server would receive, by the client's own serializer (unset fields left out)."""
    from kubernetes.client import ApiClient

    data = ApiClient().sanitize_for_serialization(value)  # type: ignore[no-untyped-call]
    if not isinstance(data, dict):
        raise InvalidPodSpecError(f"a {type(value).__name__} is not an object",
                                  fix="pass a V1PodSpec or a camelCase dict")
    return data


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


def validate_pod_spec(spec: Mapping[str, Any], *, root: str = "spec",
                      require_containers: bool = False) -> None:
    """Strictly validate a PodSpec dict (directives and nulls removed first): field names
    and types by the shipped pod schema, then names, quantities and the pod rules that
    one layer decides. A template fragment may omit ``containers``; a final pod may not
    (``require_containers``). ``$patch: delete`` at the root is refused: it would
    delete the whole pod below it, the task's own container included."""
    if isinstance(spec, Mapping) and spec.get("$patch") == "delete":
        raise MergeError("`$patch: delete` on the whole pod spec", field=f"{root}.$patch",
                         fix="delete single fields or list items (`$patch: delete` on a "
                         "container, `null` for a field), or use `$patch: replace` to "
                         "start from this spec alone")
    data = clean(spec)
    if not require_containers:
        data.setdefault("containers", [])
    _raise_keys(check_keys_only({"spec": data}, final=require_containers), root=root)
    check_pod_spec(data, root=root)
    problems = check_fragment({"spec": data}, keys=False)
    if problems:
        raise_api_problems(problems, root=root)


def validate_pod_template_spec(template: Mapping[str, Any], *, root: str = "") -> None:
    """Strictly validate a full PodTemplateSpec (``metadata`` + ``spec``): field names,
    types and required fields by the shipped pod schema, names and quantities."""
    data = clean(template)
    _raise_keys(check_keys_only(data, base=root, final=True), root="spec")
    check_pod_spec(data.get("spec") or {}, root=f"{root}.spec" if root else "spec")


def _raise_keys(problems: Sequence[ApiProblem], *, root: str) -> None:
    if problems:
        raise_api_problems(problems, root=root)


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
            DUPLICATE_KEY,
            fix="give each container, env var, volume, port... once per template",
            field=root + repeated[0][len("spec"):],
        )


def _check_resources(resources: Mapping[str, Any], root: str, where: str) -> None:
    for kind in ("requests", "limits"):
        for name, value in (resources.get(kind) or {}).items():
            if type(value) is not str or not quantity_ok(value):
                check_quantity(value, field=f"{root}.{where}.{kind}.{name}")

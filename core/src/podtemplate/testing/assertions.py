"""Assertions shared by the tests of core and every plugin."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..model.roles import TaskType
    from ..schemas.crd import Crd

__all__ = ["assert_definition_error", "assert_valid_custom_resource", "assert_valid_pod",
           "assert_valid_pod_template", "container", "env_of"]


def assert_valid_pod(manifest: Mapping[str, Any]) -> None:
    """A ``v1 Pod`` validated strictly against the shipped pod schema and the API
    server's pod rules (:func:`podtemplate.check_pod`)."""
    from ..model.apiserver import check_pod

    assert manifest["apiVersion"] == "v1" and manifest["kind"] == "Pod", manifest.get("kind")

    problems = check_pod(manifest)
    assert not problems, "the API server would refuse the pod:\n" + "\n".join(
        f"  {problem}" for problem in problems)


def assert_valid_pod_template(template: Mapping[str, Any]) -> None:
    """A PodTemplateSpec (``metadata`` + ``spec``) validated strictly, API rules included."""
    from ..model.apiserver import check_pod_template

    problems = check_pod_template(template)
    assert not problems, "the API server would refuse the pod template:\n" + "\n".join(
        f"  {problem}" for problem in problems)


def container(pod: Mapping[str, Any], name: str) -> dict[str, Any]:
    """The one container named ``name`` of a pod or PodTemplateSpec."""
    spec = pod["spec"]
    matches = [c for c in spec["containers"] if c["name"] == name]
    assert len(matches) == 1, f"container {name} appears {len(matches)} times"
    found: dict[str, Any] = matches[0]
    return found


def env_of(container_: Mapping[str, Any]) -> dict[str, str | None]:
    """A container's env as a dict, asserting no name appears twice."""
    names = [e["name"] for e in container_.get("env", [])]
    assert len(names) == len(set(names)), f"duplicate env names: {names}"
    return {e["name"]: e.get("value") for e in container_.get("env", [])}


def assert_valid_custom_resource(manifest: Mapping[str, Any],
                                 declared: TaskType | str | Crd) -> None:
    """A custom resource validated against the CRD of its kind that ``declared`` (a task
    type's ``crds``, one shipped CRD as ``"package:resource"``, or a loaded CRD) holds,
    unknown (pruned) fields included."""
    from ..schemas.crd import Crd, shipped_crd, validate_custom_resource
    from ..schemas.resources import crd_index, crd_of

    if isinstance(declared, Crd):
        crd: Crd | None = declared
    elif isinstance(declared, str):
        crd = shipped_crd(declared)
    else:
        crd = crd_of(crd_index([declared]), manifest)
    assert crd is not None, (f"no CRD declared for {manifest.get('apiVersion')} "
                             f"{manifest.get('kind')}")
    problems = validate_custom_resource(manifest, crd)
    assert not problems, f"{manifest.get('kind')} violates {crd.file}:\n" + "\n".join(
        f"  {problem}" for problem in problems)


def assert_definition_error(define: Callable[[], object], *, message: str, field: str | None,
                            task: str | None) -> None:
    """``define()`` fails at definition time as users must see it: a ``DefinitionError``
    saying ``message``, located at ``task`` and ``field``, with a fix, on one line."""
    from ..errors import DefinitionError

    try:
        define()
    except DefinitionError as error:
        assert message in str(error), str(error)
        assert (error.field, error.task) == (field, task), str(error)
        assert error.fix, f"no fix: {error}"
        assert "\n" not in str(error), str(error)
    else:
        raise AssertionError(f"no DefinitionError saying {message!r}")

"""Render-time check of a SparkApplication: the CRD keeps ``spec.driver.template`` and
``spec.executor.template`` as unvalidated objects (``x-kubernetes-preserve-unknown-fields``)
and the operator decodes them as a ``PodTemplateSpec``, silently dropping what it does not
know. So each is validated strictly against the shipped pod schema: core did that
when it resolved the role's pod, and the build places that very dict, unchanged, as the
template; any other template is validated here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from podtemplate import PodTemplateError
from podtemplate.plugin import validate_pod_template_spec

from .build import API_VERSION, KIND
from .config import ROLE_NAMES
from .roles import CONTAINER_NAMES

__all__ = ["template_problems"]


def template_problems(manifest: Mapping[str, Any],
                      validated: Mapping[str, Mapping[str, Any]] | None = None) -> list[str]:
    """One line per problem of the role templates of a SparkApplication. ``validated``
    maps role names to the pods core validated, which the build places unchanged."""
    if manifest.get("apiVersion") != API_VERSION or manifest.get("kind") != KIND:
        return []
    problems = []
    for role in ROLE_NAMES:
        where = f"spec.{role}.template"
        template = ((manifest.get("spec") or {}).get(role) or {}).get("template")
        if not isinstance(template, Mapping):
            problems.append(f"{where}: missing (the {role} pod template)")
            continue
        if validated is None or template is not validated.get(role):
            try:
                validate_pod_template_spec(template, root=where)
            except PodTemplateError as error:
                problems.append(str(error))
                continue
        first = template["spec"]["containers"][0]["name"]
        if first != CONTAINER_NAMES[role]:
            problems.append(f"{where}.spec.containers[0].name: is {first!r}, Spark needs "
                            f"{CONTAINER_NAMES[role]!r} first")
    return problems

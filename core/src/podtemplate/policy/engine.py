"""Judging pods: every policy check (built in and from plugins) on every role's final
pod, each violation located and attributed, all of them reported together."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..errors import PluginError, PolicyViolationError
from ..model.roles import covers
from .subject import PolicySubject
from .violations import NOT_SET, Violation

if TYPE_CHECKING:
    from ..context import RenderContext

__all__ = ["check_policy", "raise_violations"]



def check_policy(subject: PolicySubject, context: RenderContext) -> list[Violation]:
    """Every violation the ``podtemplate_check_policy`` hooks find in ``subject``'s pod,
    located (task, role) and attributed to the layer and file that set the value."""
    results = context.plugin_manager.hook.podtemplate_check_policy(subject=subject,
                                                                   context=context)
    found: list[Violation] = []
    seen: set[tuple[str, str]] = set()
    for violations in results:
        for violation in violations or ():
            if not isinstance(violation, Violation):
                raise PluginError(
                    f"a podtemplate_check_policy hook returned {type(violation).__name__}",
                    fix="return podtemplate.policy.Violation objects")
            if (violation.path, violation.rule) in seen:
                continue
            seen.add((violation.path, violation.rule))
            found.append(_attributed(violation, subject))
    return found


def _attributed(violation: Violation, subject: PolicySubject) -> Violation:
    origin = violation.origin
    if origin is None and violation.value is not NOT_SET:
        origin = subject.provenance.origin(violation.path)
    fix = violation.fix
    if origin is not None and subject.provenance.layer(origin.layer).kind == "operator":
        reason = _owned_reason(violation.path, subject.owned, subject.pod)
        fix = (f"task type '{subject.task_type}' sets this field itself"
               + (f" ({reason})" if reason else "")
               + "; run it where the platform's policy allows it, or ask the platform "
               "admin for an exception")
    return replace(violation, fix=fix).located(task=subject.task, role=subject.role,
                                               origin=origin)


def _owned_reason(path: str, owned: Mapping[str, str], pod: Mapping[str, Any]) -> str | None:
    containers = (pod.get("spec") or {}).get("containers") or ()
    primary = containers[0].get("name") if containers else None
    for declared, reason in owned.items():
        concrete = declared.replace("[primary]", f"[{primary}]") if primary else declared
        if covers(concrete, path) or covers(path, concrete):
            return reason
    return None


def raise_violations(violations: Iterable[Violation]) -> None:
    """Raise one :class:`PolicyViolationError` listing every violation, if any."""
    listed: Sequence[Violation] = list(violations)
    if listed:
        raise PolicyViolationError(listed)

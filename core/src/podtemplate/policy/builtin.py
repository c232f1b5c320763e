"""The built-in policy checks, a plugin on ``podtemplate_check_policy`` like any other:
the Pod Security Standards, allowed registries, resource ceilings and locked fields
(:mod:`.checks`, imported when a pod is first judged)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..hookspecs import hookimpl

if TYPE_CHECKING:
    from ..context import RenderContext
    from .subject import PolicySubject
    from .violations import Violation

__all__ = ["BUILTIN_POLICY_PLUGIN", "podtemplate_check_policy"]

BUILTIN_POLICY_PLUGIN = __name__  # registered under its module's name


@hookimpl
def podtemplate_check_policy(subject: PolicySubject, context: RenderContext
                             ) -> Sequence[Violation]:
    from .checks import builtin_violations

    return builtin_violations(subject)

"""The one exception hierarchy of podtemplate.

Every error says *what* went wrong, *where* (file, task, role, field path) and *how to fix
it*. The CLI prints ``str(error)`` as a single line and exits 2 for any
:class:`PodTemplateError` that is bad input.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = [
    "PodTemplateError",
    "DefinitionError",
    "InvalidPodSpecError",
    "ApiRuleError",
    "InvalidQuantityError",
    "InvalidNameError",
    "MergeError",
    "TemplateNotFoundError",
    "TemplateFileError",
    "YamlError",
    "PlatformConfigError",
    "TargetError",
    "InputError",
    "PluginError",
    "MissingPluginError",
    "ManifestValidationError",
    "OutputError",
    "InternalError",
    "brief",
    "PolicyViolationError",
    "ClusterError",
]


class PodTemplateError(Exception):
    """Base of every error podtemplate raises on purpose.

    ``where`` parts are optional; ``str()`` joins those present into one line:
    ``<file>: task 'x', role 'worker', spec.containers[primary].image: <message> (fix: ...)``.
    """

    exit_code = 2

    def __init__(
        self,
        message: str,
        *,
        fix: str | None = None,
        file: str | None = None,
        task: str | None = None,
        role: str | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.fix = fix
        self.file = file
        self.task = task
        self.role = role
        self.field = field
        super().__init__(self.render())

    def render(self) -> str:
        where = []
        if self.file:
            where.append(self.file)
        if self.task:
            where.append(f"task '{self.task}'")
        if self.role:
            where.append(f"role '{self.role}'")
        if self.field:
            where.append(self.field)
        text = f"{', '.join(map(_one_line, where))}: {self.message}" if where else self.message
        if self.fix:
            text += f" (fix: {self.fix})"
        return text

    def located(self, **where: str | None) -> PodTemplateError:
        """Fill in location parts not known where the error was raised; returns self."""
        for key, value in where.items():
            if value is not None and getattr(self, key) is None:
                setattr(self, key, value)
        self.args = (self.render(),)
        return self

    def __str__(self) -> str:
        return self.render()

    def lines(self) -> list[str]:
        """The problems as the CLI prints them, one line each."""
        return [self.render()]


def brief(value: object, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters: a message quotes what the user gave
    without growing to the size of a hostile input (or calling a costly ``repr``)."""
    if isinstance(value, (str, int, float, bool, type(None))):
        try:
            text = repr(value)
        except ValueError:  # an integer too long to print
            text = f"<integer of about {value.bit_length() * 3 // 10} digits>"  # type: ignore[union-attr]
    else:
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _one_line(part: object) -> str:
    """A location part (a task name, a field path with a user's key) with control
    characters escaped and its length bounded: an error is printed as one short line,
    whatever the user wrote."""
    text = part if isinstance(part, str) else brief(part)
    if len(text) > 200:
        text = text[:197] + "..."
    return text if text.isprintable() else text.encode("unicode_escape").decode("ascii")


class DefinitionError(PodTemplateError):
    """A task, template, role or config object is invalid where it is defined."""


class InvalidPodSpecError(DefinitionError):
    """A pod spec has an unknown field, a wrong type or a broken invariant."""


class ApiRuleError(InvalidPodSpecError):
    """A pod breaks a rule that the Kubernetes API server enforces (the rule is cited)."""


class InvalidQuantityError(DefinitionError):
    """A resource quantity is not a Kubernetes quantity (``"4 cores"``)."""


class InvalidNameError(DefinitionError):
    """A name is not a valid DNS-1123 label/subdomain, env var name or label key."""


class MergeError(DefinitionError):
    """A merge directive is malformed (``$patch`` with an unknown value, no merge key)."""


class TemplateNotFoundError(PodTemplateError):
    """A named pod template does not exist in any searched namespace."""


class TemplateFileError(PodTemplateError):
    """A template file is of the wrong kind or malformed."""


class YamlError(PodTemplateError):
    """YAML could not be parsed safely (syntax, Python tags, alias bombs)."""


class PlatformConfigError(PodTemplateError):
    """platform.yaml is invalid."""


class TargetError(PodTemplateError):
    """A render target (file, module, task) cannot be found or imported."""


class InputError(PodTemplateError):
    """A ``--input NAME=VALUE`` does not match the task's signature."""


class PluginError(PodTemplateError):
    """A plugin is broken or two plugins disagree."""


class MissingPluginError(PluginError):
    """A task needs a task type whose plugin distribution is not installed."""


class ManifestValidationError(PodTemplateError):
    """A rendered manifest does not validate against its schema."""


class OutputError(PodTemplateError):
    """The output folder or a file in it cannot be written (nothing was written)."""


class ClusterError(PodTemplateError):
    """A cluster cannot be reached or refused a request: no kubeconfig, an unknown
    context, a server that does not answer, credentials it refuses (401) or a permission
    RBAC does not give (403)."""


class InternalError(PodTemplateError):
    """Not bad input: a bug in podtemplate or a plugin. Exits 70 (EX_SOFTWARE); the CLI
    asks for a report, and ``--debug`` shows the traceback."""

    exit_code = 70


class PolicyViolationError(PodTemplateError):
    """Final pods break the platform's policy; ``violations`` lists every one of them
    (:class:`podtemplate.policy.Violation`), each located and attributed."""

    def __init__(self, violations: Sequence[Any]) -> None:
        self.violations = list(violations)
        count = len(self.violations)
        super().__init__(f"{count} policy violation{'s' if count != 1 else ''}",
                         fix="see each line; the platform admin sets the policy in "
                         "platform.yaml")

    def render(self) -> str:
        return "; ".join(str(v) for v in self.violations) or self.message

    def lines(self) -> list[str]:
        return [str(v) for v in self.violations]

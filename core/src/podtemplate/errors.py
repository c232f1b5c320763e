"""The one exception hierarchy of podtemplate.

Every error says *what* went wrong, *where* (file, task, role, field path) and *how to fix
it*. The CLI prints ``str(error)`` as a single line and exits 2 for any
:class:`PodTemplateError` that is bad input.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
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
    "BuildError",
    "CrdFileError",
    "ScaffoldError",
    "ManifestValidationError",
    "OutputError",
    "InternalError",
    "brief",
    "did_you_mean",
    "PolicyViolationError",
    "ClusterError",
    "DefinitionErrors",
    "FlytekitNameError",
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
    """``value`` as a message quotes it, cut to ``limit`` characters: a message names what
    the user gave (``Role(replicas=4)``, ``[Role()]``) without growing to the size of a
    hostile input or calling an object's own ``repr`` (which may be costly or raise).
    Scalars are their ``repr``; lists, tuples, dicts and config objects (pydantic models)
    are spelled from their parts; any other object is ``<Type object>``."""
    text = _spell(value, limit)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _spell(value: object, budget: int, depth: int = 0) -> str:
    """``value`` spelled out, each level stopping once ``budget`` characters are written
    and nesting at most four levels (a list holding itself ends)."""
    if isinstance(value, (str, int, float, bool, type(None))):
        try:
            return repr(value)
        except ValueError:  # an integer too long to print
            return f"<integer of about {value.bit_length() * 3 // 10} digits>"  # type: ignore[union-attr]
    if depth >= 4:
        return "..."
    if isinstance(value, dict):
        pairs = (f"{_spell(k, budget, depth + 1)}: {_spell(v, budget, depth + 1)}"
                 for k, v in value.items())
        return "{" + _joined(pairs, budget) + "}"
    if isinstance(value, (list, tuple)):
        items = _joined((_spell(item, budget, depth + 1) for item in value), budget)
        if isinstance(value, list):
            return f"[{items}]"
        return f"({items},)" if len(value) == 1 else f"({items})"
    fields = _model_fields(value)
    if fields is not None:
        parts = (f"{name}={_spell(given, budget, depth + 1)}" for name in fields
                 if (given := getattr(value, name, None)) not in (None, {}, [], ()))
        return f"{type(value).__name__}({_joined(parts, budget)})"
    return f"<{type(value).__name__} object>"


def _model_fields(value: object) -> list[str] | None:
    """The fields a pydantic model was given, in declaration order; None for another
    object (read from the class, so no user code runs)."""
    declared = getattr(type(value), "model_fields", None)
    given = getattr(value, "__pydantic_fields_set__", None)
    if not isinstance(declared, dict) or not isinstance(given, (set, frozenset)):
        return None
    return [name for name in declared if name in given]


def _joined(parts: Iterable[str], budget: int) -> str:
    """``parts`` joined with ``, ``, ending in ``...`` once ``budget`` is spent."""
    text = ""
    for part in parts:
        if len(text) >= budget:
            return text + ", ..."
        text += (", " if text else "") + part
    return text


def _distance(a: str, b: str, limit: int) -> int:
    """The edit distance of ``a`` and ``b`` (insertions, deletions, substitutions and
    swaps of neighbours), or ``limit + 1`` once it is surely above ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before: list[int] = []
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            current[j] = min(row[j] + 1, current[j - 1] + 1, row[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], before[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        before, row = row, current
    return row[-1]


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """The one choice a typo of ``word`` most likely meant: the nearest by edit distance,
    ignoring case and ``_``/``-`` (at most 1 edit for words up to 4 letters, 2 up to 8,
    3 beyond), or None when none is that near or two are equally near."""
    def squash(text: str) -> str:
        return text.lower().replace("_", "").replace("-", "")

    wanted = squash(word)
    limit = 1 if len(wanted) <= 4 else 2 if len(wanted) <= 8 else 3
    scored = sorted((_distance(wanted, squash(choice), limit), choice)
                    for choice in dict.fromkeys(choices) if choice != word)
    if not scored or scored[0][0] > limit:
        return None
    if len(scored) > 1 and scored[1][0] == scored[0][0]:
        return None
    return scored[0][1]


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


class DefinitionErrors(DefinitionError):
    """Several definition errors found together: every refusal of a file (or of one call's
    arguments) is reported in one render, one line each."""

    def __init__(self, errors: Sequence[PodTemplateError]) -> None:
        self.errors: list[PodTemplateError] = []
        for error in errors:  # a group inside a group is flattened
            self.errors.extend(error.errors if isinstance(error, DefinitionErrors) else [error])
        count = len(self.errors)
        super().__init__(f"{count} problem{'s' if count != 1 else ''}",
                         fix="see each line")

    def render(self) -> str:
        errors = getattr(self, "errors", None)
        return "; ".join(error.render() for error in errors) if errors else self.message

    def located(self, **where: str | None) -> PodTemplateError:
        for error in self.errors:
            error.located(**where)
        self.args = (self.render(),)
        return self

    def lines(self) -> list[str]:
        return [error.render() for error in self.errors]


class FlytekitNameError(DefinitionError, ImportError):
    """A flytekit name podtemplate does not provide, imported from one of its packages:
    the message says what to write instead. An ImportError, so ``from x import Name``
    fails as an import does, with the hint rather than a bare "cannot import name"."""


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


class BuildError(PodTemplateError):
    """A task type's hook cannot build the task as its user configured it: the class a
    plugin raises in ``podtemplate_define_roles`` or ``podtemplate_build_manifests`` for
    settings its operator refuses (a port the operator owns, two settings that exclude
    each other). Give ``role``, ``field`` (the path the user wrote) and ``fix``; core adds
    the task. Bad input: the CLI prints it as one line and exits 2. A plugin's own bug is
    not a ``BuildError``: let it raise, and the CLI reports an internal error."""


class CrdFileError(PodTemplateError):
    """An operator's CRD file cannot be shipped (``podtemplate crd slim``): unreadable,
    not exactly one CustomResourceDefinition, no storage version, or its provenance
    unknown."""


class ScaffoldError(PodTemplateError):
    """``podtemplate new-plugin`` cannot write the distribution asked for: a name that is
    no task type name, a CRD of another kind, a role whose pod template it cannot find,
    a folder that is not empty."""


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

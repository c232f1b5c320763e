"""What a policy check returns, and where the value it judged came from."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

__all__ = ["Origin", "Violation", "NOT_SET", "compact"]


class _NotSet:
    """The value of a field a rule requires and no layer set."""

    def __repr__(self) -> str:
        return "<not set>"


NOT_SET: Any = _NotSet()


@dataclass(frozen=True)
class Origin:
    """The layer that set a value (as provenance names it) and the file it came from."""

    layer: str
    file: str | None = None

    def __str__(self) -> str:
        return f"{self.layer} ({self.file})" if self.file else self.layer


@dataclass(frozen=True)
class Violation:
    """One field of one role's final pod that a policy rule rejects.

    A check gives ``path`` (a field path of the pod, list items by merge key:
    ``spec.containers[pytorch].securityContext.privileged``), ``rule``
    (``restricted: privileged``, ``allowedRegistries``...), the offending ``value``
    (:data:`NOT_SET` for a required field that is missing) and the ``fix``. The engine
    fills ``task``, ``role`` and ``origin`` (from provenance) unless the check did.
    """

    path: str
    rule: str
    value: Any
    fix: str = ""
    task: str | None = None
    role: str | None = None
    origin: Origin | None = None

    def located(self, **where: Any) -> Violation:
        """A copy with the parts of ``where`` this violation does not have yet."""
        return replace(self, **{k: v for k, v in where.items() if getattr(self, k) is None})

    def __str__(self) -> str:
        where = [p for p in (self.task and f"task '{self.task}'",
                             self.role and f"role '{self.role}'", self.path) if p]
        if self.value is NOT_SET:
            text = f"{', '.join(where)}: {self.rule}: not set"
        else:
            origin = f"set by {self.origin}" if self.origin else "set by an unknown layer"
            text = f"{', '.join(where)}: {self.rule}: value {compact(self.value)}, {origin}"
        return f"{text} (fix: {self.fix})" if self.fix else text


def compact(value: Any) -> str:
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."

"""What the kit reports: located findings and per-field outcomes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..model.roles import FieldDecl

__all__ = ["LAYERS", "LAYER_NAMES", "NATIVE", "Result", "Finding", "Outcome", "native_path"]

LAYERS = ("cluster", "task", "override", "role")
LAYER_NAMES = {
    "cluster": "cluster template (layer 1)",
    "task": "task template (layer 2)",
    "override": "run override (layer 4)",
    "role": "role template (layer 5)",
}
_LAYER_TEXT = {**LAYER_NAMES, "baseline": "none (the sample task without a probe)"}
NATIVE = "native:"


def native_path(decl: FieldDecl) -> str | None:
    """The manifest path of a ``native:`` declaration (``native: spec.driver.serviceAccount
    (why...)`` -> ``spec.driver.serviceAccount``), else None."""
    if not decl.reason.startswith(NATIVE):
        return None
    words = decl.reason[len(NATIVE):].split()
    return words[0] if words else None


Result = Literal["reached", "lost", "owned", "unsupported", "native", "untestable", "n/a"]


@dataclass(frozen=True)
class Finding:
    """A conformance failure, located: plugin, role, field path and layer."""

    check: str
    plugin: str
    message: str
    role: str | None = None
    field: str | None = None
    layer: str | None = None

    def __str__(self) -> str:
        where = [self.plugin]
        if self.role is not None:
            where.append(f"role '{self.role}'")
        if self.field:
            where.append(self.field)
        if self.layer:
            where.append(f"layer {_LAYER_TEXT.get(self.layer, self.layer)}")
        return f"[{self.check}] {', '.join(where)}: {self.message}"


@dataclass(frozen=True)
class Outcome:
    """What one probed field did for one role at one layer."""

    role: str
    field: str
    layer: str
    result: Result
    reason: str = ""

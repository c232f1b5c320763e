"""The coverage matrix: plugin x role x field, each ``applied``, ``operator-owned``,
``unsupported`` (with the plugin's reason) or ``LOST``, computed by the conformance kit
(:mod:`podtemplate.testing`) over installed task types. ``podtemplate coverage`` prints it.

A field is LOST for a role when, at any probe layer, its value did not reach the role's
pod (or the operator's CRD would prune it) without a declaration, or when no layer could
show it reaching the pod at all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from typing import Literal

from ..conformance.checks import every_finding
from ..conformance.kit import Kit
from ..conformance.probe import Probe, default_probe
from ..conformance.results import LAYER_NAMES, Finding, Outcome
from ..errors import PodTemplateError

__all__ = ["Status", "STATUSES", "Cell", "PluginCoverage", "CoverageReport", "coverage",
           "installed_task_types"]

Status = Literal["applied", "operator-owned", "unsupported", "LOST"]
STATUSES: tuple[Status, ...] = ("applied", "operator-owned", "unsupported", "LOST")


@dataclass(frozen=True)
class Cell:
    """One field of one role of one task type."""

    task_type: str
    role: str
    field: str
    status: Status
    reason: str = ""

    @property
    def label(self) -> str:
        """The status as the matrix shows it: ``unsupported (reason)``."""
        return f"unsupported ({self.reason})" if self.status == "unsupported" else self.status


@dataclass
class PluginCoverage:
    """Coverage of one task type: its cells, the kit's other failures, and notes."""

    task_type: str
    distribution: str
    version: str
    roles: list[str]
    cells: list[Cell] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unverified: str = ""  # why the manifests could not be checked against the CRD

    @property
    def totals(self) -> Counter[str]:
        return Counter(cell.status for cell in self.cells)

    @property
    def percent_applied(self) -> float:
        return 100.0 * self.totals["applied"] / len(self.cells) if self.cells else 0.0

    @property
    def failed(self) -> bool:
        return bool(self.totals["LOST"] or self.problems)


@dataclass
class CoverageReport:
    """The matrix over several task types, and what the probe could not cover."""

    probe_source: str
    fields: list[str]
    not_probed: dict[str, str]
    apart: dict[str, str]
    plugins: list[PluginCoverage]
    allow_unverified: bool = False

    @property
    def lost(self) -> int:
        return sum(p.totals["LOST"] for p in self.plugins)

    @property
    def unverified(self) -> list[PluginCoverage]:
        return [p for p in self.plugins if p.unverified]

    @property
    def failed(self) -> bool:
        """No CRD, no green: an unverified task type fails unless explicitly allowed."""
        return any(p.failed for p in self.plugins) or bool(
            self.unverified and not self.allow_unverified)


def installed_task_types(extra_plugins: Iterable[object] = ()) -> list[str]:
    from ..dispatch import build_plugin_manager, task_types

    return sorted(task_types(build_plugin_manager(extra_plugins)))


def coverage(task_types: Sequence[str] | None = None, *, probe: Probe | None = None,
             extra_plugins: Sequence[object] = (), allow_unverified: bool = False
             ) -> CoverageReport:
    """Run the kit over ``task_types`` (default: every installed one). A task type whose
    custom resources cannot be checked against a CRD fails the report unless
    ``allow_unverified``."""
    probe = probe or default_probe()
    names = list(task_types) if task_types else installed_task_types(extra_plugins)
    plugins = [_plugin_coverage(kit) for name in names
               for kit in _kits(name, extra_plugins, probe)]
    return CoverageReport(probe_source=probe.source, fields=probe.paths,
                          not_probed=dict(probe.not_probed), apart=dict(probe.apart),
                          plugins=plugins, allow_unverified=allow_unverified)


def _kits(name: str, extra_plugins: Sequence[object], probe: Probe) -> list[Kit]:
    """The task type's kit, then one per variant (a row of its own each)."""
    kit = Kit(name, extra_plugins=extra_plugins, probe=probe)
    return [kit, *(Kit(name, extra_plugins=extra_plugins, probe=probe, variant=variant)
                   for variant in kit.info.variants)]


def _plugin_coverage(kit: Kit) -> PluginCoverage:
    info = kit.info
    result = PluginCoverage(task_type=kit.label, distribution=info.distribution,
                            version=_version(info.distribution), roles=[])
    if kit.baseline.error is not None:
        result.problems.append(f"the sample task does not render: {kit.baseline.error}")
        return result
    result.roles = kit.role_names
    result.notes += [f"role '{role.name}' takes no role template or role settings: "
                     f"{role.no_role_config}" for role in kit.baseline.roles
                     if role.role is None and role.no_role_config]
    outcomes: list[Outcome] = []
    findings: list[Finding] = []
    try:
        outcomes = kit.outcomes()
        findings = every_finding(kit, probes=False)
    except PodTemplateError as error:
        result.problems.append(str(error))
    result.cells = _cells(kit, outcomes)
    result.problems += [str(f) for f in findings if f.check != "unverified"]
    result.unverified = "; ".join(f.message for f in findings if f.check == "unverified")
    return result


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "unknown"


def _cells(kit: Kit, outcomes: list[Outcome]) -> list[Cell]:
    by_key: dict[tuple[str, str], list[Outcome]] = {}
    for outcome in outcomes:
        by_key.setdefault((outcome.role, outcome.field), []).append(outcome)
    return [_cell(kit.label, role, path, by_key.get((role, path), []))
            for role in kit.role_names for path in kit.probe.paths]


def _cell(task_type: str, role: str, path: str, outcomes: list[Outcome]) -> Cell:
    def first(result: str) -> Outcome | None:
        return next((o for o in outcomes if o.result == result), None)

    lost = [o for o in outcomes if o.result == "lost"]
    if lost:
        return Cell(task_type, role, path, "LOST", _lost_reason(lost))
    for result, status in (("owned", "operator-owned"), ("unsupported", "unsupported")):
        found = first(result)
        if found is not None:
            return Cell(task_type, role, path, status, found.reason)  # type: ignore[arg-type]
    native = first("native")
    if native is not None:
        return Cell(task_type, role, path, "applied", native.reason)
    reached = [LAYER_NAMES[o.layer] for o in outcomes if o.result == "reached"]
    if reached:
        return Cell(task_type, role, path, "applied", "reached the pod from the "
                    + ", ".join(reached))
    untested = sorted({o.reason for o in outcomes if o.reason})
    return Cell(task_type, role, path, "LOST", "never shown to reach the pod: "
                + "; ".join(untested))


def _lost_reason(lost: list[Outcome]) -> str:
    by_reason: dict[str, list[str]] = {}
    for outcome in lost:
        by_reason.setdefault(outcome.reason, []).append(LAYER_NAMES[outcome.layer])
    every = len(LAYER_NAMES)
    return "; ".join(f"{reason} (at every layer)" if len(set(layers)) == every else
                     f"{reason} (from the {', '.join(layers)})"
                     for reason, layers in by_reason.items())

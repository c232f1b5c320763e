"""Every check of the conformance kit over one task type, as one list of findings: what
``ConformanceSuite`` runs test by test and ``podtemplate coverage`` reports."""

from __future__ import annotations

from .declarations import declaration_findings
from .duplicates import duplicate_findings
from .kit import Kit
from .pod_checks import (
    crd_findings,
    crd_missing_reason,
    determinism_findings,
    pod_findings,
    shape_findings,
)
from .results import LAYERS, Finding
from .scenarios import precedence_findings, role_findings

__all__ = ["every_finding", "unverified_finding"]


def unverified_finding(kit: Kit) -> list[Finding]:
    """No CRD, no green: a task type whose custom resources cannot be checked."""
    reason = crd_missing_reason(kit)
    return [] if reason is None else [Finding("unverified", kit.plugin, reason)]


def every_finding(kit: Kit, *, probes: bool = True) -> list[Finding]:
    """The failures of every check; without ``probes``, all but the per-field probe
    findings (which coverage shows as LOST cells instead)."""
    found: list[Finding] = []
    for layer in LAYERS:
        found += [f for f in kit.probe_layer(layer)[1] if probes or f.check != "probe"]
    found += kit.unproven() if probes else []
    found += crd_findings(kit) + pod_findings(kit) + shape_findings(kit)
    found += duplicate_findings(kit)
    found += determinism_findings(kit) + kit.inputs_unmutated()
    found += precedence_findings(kit) + role_findings(kit) + declaration_findings(kit)
    return found + unverified_finding(kit)

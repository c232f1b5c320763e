"""Text forms of the coverage matrix: a terminal table, markdown (for the README) and JSON.
The HTML heat map is in :mod:`podtemplate.coverage.html`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from .matrix import STATUSES, Cell, CoverageReport, PluginCoverage

__all__ = ["to_table", "to_markdown", "to_json", "totals_line", "SHORT"]

SHORT = {"applied": "applied", "operator-owned": "owned", "unsupported": "unsupported",
         "LOST": "LOST"}


def totals_line(plugin: PluginCoverage) -> str:
    totals = plugin.totals
    counts = ", ".join(f"{totals[status]} {status}" for status in STATUSES)
    return (f"{plugin.percent_applied:.1f}% applied ({counts}) over {len(plugin.roles)} "
            f"role(s) x {len(plugin.cells) // max(len(plugin.roles), 1)} fields")


def _name(plugin: PluginCoverage) -> str:
    """The task type, marked when its custom resources could not be checked."""
    return f"{plugin.task_type} (unverified)" if plugin.unverified else plugin.task_type


def _columns(report: CoverageReport) -> list[tuple[PluginCoverage, str]]:
    return [(plugin, role) for plugin in report.plugins for role in plugin.roles]


def _index(report: CoverageReport) -> dict[tuple[str, str, str], Cell]:
    return {(c.task_type, c.role, c.field): c for p in report.plugins for c in p.cells}


def _declared(report: CoverageReport) -> Iterator[Cell]:
    for plugin in report.plugins:
        yield from (cell for cell in plugin.cells if cell.status != "applied")


def to_table(report: CoverageReport) -> str:
    """Totals per task type, then every cell that is not plainly applied, with its reason."""
    lines = [f"probe: {len(report.fields)} fields from {report.probe_source}", ""]
    width = max((len(_name(p)) for p in report.plugins), default=4)
    for plugin in report.plugins:
        lines.append(f"{_name(plugin):<{width}}  {plugin.distribution} {plugin.version}  "
                     f"roles: {', '.join(plugin.roles) or '-'}")
        lines.append(f"{'':<{width}}  {totals_line(plugin)}")
    rows = [(c.task_type, c.role, c.field, SHORT[c.status], c.reason) for c in _declared(report)]
    if rows:
        lines += ["", "not applied:"]
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        for row in rows:
            lines.append("  " + "  ".join(f"{v:<{w}}" for v, w in zip(row, widths, strict=False))
                         + f"  {row[4]}")
    lines += _footer(report)
    return "\n".join(lines) + "\n"


def _footer(report: CoverageReport, markdown: bool = False) -> list[str]:
    bullet = "- " if markdown else "  "

    def heading(text: str) -> list[str]:
        return ["", f"**{text}**", ""] if markdown else ["", f"{text}:"]

    lines: list[str] = []
    unverified = [(p.task_type, p.unverified) for p in report.unverified]
    if unverified:
        lines += heading("unverified: no CRD, no green" + (
            " (allowed by --allow-unverified)" if report.allow_unverified else ""))
        lines += [f"{bullet}{name}: {text}" for name, text in unverified]
    problems = [(p.task_type, text) for p in report.plugins for text in p.problems]
    if problems:
        lines += heading("conformance failures")
        lines += [f"{bullet}{name}: {text}" for name, text in problems]
    notes = [(p.task_type, text) for p in report.plugins for text in p.notes]
    if notes:
        lines += heading("notes") + [f"{bullet}{name}: {text}" for name, text in notes]
    if report.not_probed:
        lines += heading("not probed (no valid pod template can carry them)")
        lines += [f"{bullet}{path}: {why}" for path, why in report.not_probed.items()]
    if report.apart:
        lines += heading("probed in a separate template (cannot share a pod with others)")
        lines += [f"{bullet}{path}: {why}" for path, why in report.apart.items()]
    return lines


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def to_markdown(report: CoverageReport) -> str:
    """Totals, the full matrix (fields x task type/role) and the reasons below it."""
    lines = [f"Probe: {len(report.fields)} fields from {report.probe_source}; "
             f"{report.lost} LOST.", "",
             "| task type | distribution | roles | applied | owned | unsupported | LOST |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
    for p in report.plugins:
        t = p.totals
        lines.append(f"| {_name(p)} | {p.distribution} {p.version} | {', '.join(p.roles)} | "
                     f"{p.percent_applied:.1f}% | {t['operator-owned']} | {t['unsupported']} | "
                     f"{t['LOST']} |")
    columns = _columns(report)
    cells = _index(report)
    lines += ["", "✓ applied · owned: operator-owned · unsupported: declared by the plugin, "
              "reason below · **LOST**: the value does not reach the pod", ""]
    lines += ["| field | " + " | ".join(f"{p.task_type}/{r}" for p, r in columns) + " |",
              "| --- |" + " :---: |" * len(columns)]
    for path in report.fields:
        row = [_md_status(cells.get((p.task_type, r, path))) for p, r in columns]
        lines.append(f"| `{path}` | " + " | ".join(row) + " |")
    grouped: dict[tuple[str, str, str, str], list[str]] = {}
    for c in _declared(report):
        grouped.setdefault((c.task_type, c.field, c.status, c.reason), []).append(c.role)
    if grouped:
        lines += ["", "**Reasons**", ""]
        lines += [f"- {task_type} ({', '.join(roles)}) `{path}`: {SHORT[status]} "
                  f"({_md(reason)})"
                  for (task_type, path, status, reason), roles in grouped.items()]
    lines += _footer(report, markdown=True)
    return "\n".join(lines) + "\n"


def _md_status(cell: Cell | None) -> str:
    if cell is None:
        return "-"
    return {"applied": "✓", "LOST": "**LOST**"}.get(cell.status, SHORT[cell.status])


def to_json(report: CoverageReport) -> str:
    data: dict[str, Any] = {
        "probe": {"source": report.probe_source, "fields": report.fields,
                  "notProbed": report.not_probed, "apart": report.apart},
        "lost": report.lost,
        "plugins": [{
            "taskType": p.task_type, "distribution": p.distribution, "version": p.version,
            "roles": p.roles, "percentApplied": round(p.percent_applied, 2),
            "totals": {status: p.totals[status] for status in STATUSES},
            "cells": [{"role": c.role, "field": c.field, "status": c.status,
                       "reason": c.reason} for c in p.cells],
            "problems": p.problems, "notes": p.notes, "unverified": p.unverified,
        } for p in report.plugins],
    }
    return json.dumps(data, indent=2) + "\n"

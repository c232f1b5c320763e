"""The coverage matrix as one self-contained HTML page: a heat map of field x task
type/role, colored by status, with the reason of each cell on hover (``title``). Inline
CSS only: no scripts, fonts or images to fetch."""

from __future__ import annotations

from html import escape

from .matrix import STATUSES, Cell, CoverageReport, PluginCoverage
from .text import totals_line

__all__ = ["to_html", "SECTIONS", "SYMBOLS"]

SYMBOLS = {"applied": "✓", "operator-owned": "◆", "unsupported": "~", "LOST": "✗"}
CLASSES = {"applied": "s-applied", "operator-owned": "s-owned", "unsupported": "s-unsupported",
           "LOST": "s-lost"}
# (title, prefix of the field paths in the section)
SECTIONS = (
    ("Pod metadata", "metadata."),
    ("Primary container", "spec.containers[primary]."),
    ("Sidecar container", "spec.containers[probe-sidecar]."),
    ("Init container", "spec.initContainers[probe-init]."),
    ("Pod spec", "spec."),
)

_CSS = """
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1d2330;
background:#fafbfc}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}
.meta{color:#5b6475;margin:0 0 18px}
.cards{display:flex;flex-wrap:wrap;gap:12px}
.card{background:#fff;border:1px solid #dde1e8;border-radius:8px;padding:10px 14px;min-width:220px}
.card h3{margin:0;font-size:15px}.card .dist{color:#5b6475;font-size:12px}
.bar{height:8px;background:#eceff3;border-radius:4px;overflow:hidden;margin:8px 0 4px;display:flex}
.bar span{display:block;height:100%}
.pct{font-size:20px;font-weight:600}.lostcount{color:#c62828;font-weight:600}
.legend span{display:inline-block;margin-right:14px}
.legend i{display:inline-block;width:14px;height:14px;border-radius:3px;vertical-align:-2px;
margin-right:4px}
table.heat{border-collapse:separate;border-spacing:2px;margin-top:8px;font-size:12px}
.heat th{font-weight:600;background:#fafbfc}
.heat thead th{position:sticky;top:0;padding:2px 4px}.heat thead tr+tr th{top:22px}
.heat th.plugin{border-bottom:2px solid #9aa3b2}
.heat th.field{text-align:left;font-family:ui-monospace,Menlo,monospace;font-weight:400;
white-space:nowrap;padding-right:8px}
.heat tr.section th{text-align:left;background:#e7eaf0;padding:4px 6px}
.heat td{width:30px;height:20px;text-align:center;border-radius:3px;color:#fff;cursor:help}
.s-applied{background:#2e9d5b}.s-owned{background:#4a7bd0}.s-unsupported{background:#e0a526}
.s-lost{background:#d64545;font-weight:700}
ul.problems li{font-family:ui-monospace,Menlo,monospace;font-size:12px}
"""


def to_html(report: CoverageReport) -> str:
    parts = [
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        "<title>podtemplate coverage</title>", f"<style>{_CSS}</style>", "</head>", "<body>",
        "<h1>podtemplate coverage</h1>",
        f'<p class="meta">Every field of the probe ({len(report.fields)} fields from '
        f"{escape(report.probe_source)}) at every layer, on every role of every task type. "
        f"{report.lost} LOST.</p>",
        '<div class="cards">', *(_card(p) for p in report.plugins), "</div>",
        _legend(), _heat_map(report), _lists(report), "</body>", "</html>",
    ]
    return "\n".join(parts) + "\n"


def _card(plugin: PluginCoverage) -> str:
    totals = plugin.totals
    total = max(len(plugin.cells), 1)
    bar = "".join(f'<span class="{CLASSES[s]}" style="width:{100 * totals[s] / total:.2f}%">'
                  "</span>" for s in STATUSES)
    lost = (f' · <span class="lostcount">{totals["LOST"]} LOST</span>' if totals["LOST"]
            else "")
    return (f'<div class="card" title="{escape(totals_line(plugin))}">'
            f"<h3>{escape(plugin.task_type)}</h3>"
            f'<div class="dist">{escape(plugin.distribution)} {escape(plugin.version)} · '
            f"roles: {escape(', '.join(plugin.roles) or '-')}</div>"
            f'<div class="bar">{bar}</div>'
            f'<span class="pct">{plugin.percent_applied:.1f}%</span> applied{lost}</div>')


def _legend() -> str:
    items = "".join(f'<span><i class="{CLASSES[s]}"></i>{escape(s)}</span>' for s in STATUSES)
    return f'<h2>Heat map</h2><p class="legend">{items} · hover a cell for its reason</p>'


def _section_of(path: str) -> str:
    return next(title for title, prefix in SECTIONS if path.startswith(prefix))


def _heat_map(report: CoverageReport) -> str:
    columns = [(p, role) for p in report.plugins for role in p.roles]
    cells = {(c.task_type, c.role, c.field): c for p in report.plugins for c in p.cells}
    head_plugins = "".join(f'<th class="plugin" colspan="{len(p.roles)}">'
                           f"{escape(p.task_type)}</th>" for p in report.plugins if p.roles)
    head_roles = "".join(f"<th>{escape(role)}</th>" for _, role in columns)
    rows = [f'<table class="heat"><thead><tr><th rowspan="2"></th>{head_plugins}</tr>'
            f"<tr>{head_roles}</tr></thead><tbody>"]
    for title, _ in SECTIONS:
        paths = [p for p in report.fields if _section_of(p) == title]
        if not paths:
            continue
        rows.append(f'<tr class="section"><th colspan="{len(columns) + 1}">{escape(title)}'
                    "</th></tr>")
        for path in paths:
            tds = "".join(_td(cells.get((p.task_type, role, path)), p, role, path)
                          for p, role in columns)
            rows.append(f'<tr><th class="field">{escape(path)}</th>{tds}</tr>')
    rows.append("</tbody></table>")
    return "\n".join(rows)


def _td(cell: Cell | None, plugin: PluginCoverage, role: str, path: str) -> str:
    if cell is None:
        return f'<td title="{escape(f"{plugin.task_type} / {role} / {path}: not rendered")}"></td>'
    hover = f"{plugin.task_type} / {role} / {path}: {cell.status}"
    if cell.reason:
        hover += f" - {cell.reason}"
    return (f'<td class="{CLASSES[cell.status]}" title="{escape(hover)}">'
            f"{SYMBOLS[cell.status]}</td>")


def _lists(report: CoverageReport) -> str:
    sections = [
        ("Conformance failures", [f"{p.task_type}: {t}" for p in report.plugins
                                  for t in p.problems]),
        ("Notes", [f"{p.task_type}: {t}" for p in report.plugins for t in p.notes]),
        ("Not probed", [f"{path}: {why}" for path, why in report.not_probed.items()]),
        ("Probed in a separate template", [f"{path}: {why}"
                                           for path, why in report.apart.items()]),
    ]
    out = []
    for title, items in sections:
        if items:
            lis = "".join(f"<li>{escape(item)}</li>" for item in items)
            out.append(f'<h2>{escape(title)}</h2><ul class="problems">{lis}</ul>')
    return "\n".join(out)

"""The coverage matrix as one self-contained HTML page: a heat map of field x task
type/role, colored by status, that scrolls sideways inside the window with the field
column kept in place; an "exceptions only" switch hides the rows applied everywhere; the
reason of a cell shows in a bar when it is clicked (and on hover), and every exception is
listed with its reason below the map. Inline CSS and script only: nothing to fetch.
Opened as ``coverage.html#selftest``, the page runs its controls once and writes PASS or
what failed into ``#selftest`` (what the browser test reads)."""

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
.controls{display:flex;gap:14px;align-items:center;margin:6px 0;font-size:13px}
.scroll{overflow:auto;max-width:100%;max-height:80vh;border:1px solid #dde1e8;
border-radius:6px;background:#fafbfc}
table.heat{border-collapse:separate;border-spacing:2px;font-size:12px}
.heat th{font-weight:600;background:#fafbfc}
.heat thead th{position:sticky;top:0;z-index:1;padding:2px 4px}
.heat thead tr+tr th{top:22px}
.heat th.field,.heat thead th.corner{position:sticky;left:0;z-index:2}
.heat thead th.corner{z-index:3}
.hidden{display:none}
#reason{flex:1;background:#fff;border:1px solid #b8bfcc;border-radius:6px;
padding:4px 10px;font:12px ui-monospace,Menlo,monospace;min-height:16px}
dl.exceptions dt{font:12px ui-monospace,Menlo,monospace;margin-top:6px;font-weight:600}
dl.exceptions dd{font-size:12px;margin:1px 0 1px 18px}
#selftest{font:12px ui-monospace,monospace}
.heat th.plugin{border-bottom:2px solid #9aa3b2}
.heat th.field{text-align:left;font-family:ui-monospace,Menlo,monospace;font-weight:400;
white-space:nowrap;padding-right:8px}
.heat tr.section th{text-align:left;background:#e7eaf0;padding:4px 6px;
font:600 13px system-ui,sans-serif}
.heat td{width:30px;height:20px;text-align:center;border-radius:3px;color:#fff;cursor:help}
.s-applied{background:#2e9d5b}.s-owned{background:#4a7bd0}.s-unsupported{background:#e0a526}
.s-lost{background:#d64545;font-weight:700}
ul.problems li{font-family:ui-monospace,Menlo,monospace;font-size:12px}
"""

_SCRIPT = """
(function(){
var only=document.getElementById('exceptions-only'),bar=document.getElementById('reason');
var rows=[].slice.call(document.querySelectorAll('table.heat tbody tr.row'));
function filter(){
  rows.forEach(function(row){
    row.classList.toggle('hidden',only.checked&&!row.querySelector('td.exception'));
  });
  [].forEach.call(document.querySelectorAll('table.heat tbody tr.section'),function(head){
    var next=head.nextElementSibling,any=false;
    while(next&&!next.classList.contains('section')){
      if(!next.classList.contains('hidden')){any=true;}next=next.nextElementSibling;}
    head.classList.toggle('hidden',!any);
  });
}
only.addEventListener('change',filter);
document.querySelector('table.heat').addEventListener('click',function(event){
  var cell=event.target.closest('td');if(cell){bar.textContent=cell.title;}
});
if(location.hash==='#selftest'){
  var failed=[];
  function visible(){return rows.filter(function(r){return !r.classList.contains('hidden');});}
  only.click();  /* as a person ticks it: the change event */
  var shown=visible();
  var plain=rows.some(function(r){return !r.querySelector('td.exception');});
  if(!only.checked||shown.length>=rows.length&&plain)
    {failed.push('exceptions only hides rows applied everywhere');}
  if(shown.some(function(r){return !r.querySelector('td.exception');}))
    {failed.push('exceptions only keeps only rows with an exception');}
  only.click();
  if(visible().length!==rows.length){failed.push('every row back');}
  var cell=document.querySelector('td.exception')||document.querySelector('td[title]');
  cell.click();
  if(bar.textContent!==cell.title){failed.push('a click shows the reason');}
  var box=document.querySelector('.scroll'),edge=box.getBoundingClientRect().left;
  box.scrollLeft=box.scrollWidth;var scrolled=box.scrollLeft;
  [['field column','tr.row th.field'],['section title','tr.section th.field']].forEach(function(c){
    var left=document.querySelector(c[1]).getBoundingClientRect().left;
    if(left<edge||left>edge+8){failed.push('the '+c[0]+' stays put when the map scrolls sideways');}
  });
  box.scrollLeft=0;
  if(document.documentElement.scrollWidth>window.innerWidth+1)
    {failed.push('page wider than the window');}
  var out=document.getElementById('selftest');out.classList.remove('hidden');
  out.textContent='selftest: '+(failed.length?'FAIL '+failed.join('; '):'PASS')+
    ' ('+rows.length+' rows, '+shown.length+' with exceptions, scrolled '+scrolled+' px)';
}
})();
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
        '<pre id="selftest" class="hidden"></pre>',
        _legend(),
        '<div class="controls"><label><input type="checkbox" id="exceptions-only"> '
        "exceptions only</label>"
        '<div id="reason">click a cell for its reason</div></div>',
        f'<div class="scroll">{_heat_map(report)}</div>',
        _exceptions(report), _lists(report), f"<script>{_SCRIPT}</script>", "</body>",
        "</html>",
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
    return (f'<h2>Heat map</h2><p class="legend">{items} · click (or hover) a cell for its '
            "reason; every exception is listed with its reason below the map</p>")


def _section_of(path: str) -> str:
    return next(title for title, prefix in SECTIONS if path.startswith(prefix))


def _heat_map(report: CoverageReport) -> str:
    columns = [(p, role) for p in report.plugins for role in p.roles]
    cells = {(c.task_type, c.role, c.field): c for p in report.plugins for c in p.cells}
    head_plugins = "".join(f'<th class="plugin" colspan="{len(p.roles)}">'
                           f"{escape(p.task_type)}</th>" for p in report.plugins if p.roles)
    head_roles = "".join(f"<th>{escape(role)}</th>" for _, role in columns)
    rows = [f'<table class="heat"><thead><tr><th class="corner" rowspan="2"></th>'
            f"{head_plugins}</tr>"
            f"<tr>{head_roles}</tr></thead><tbody>"]
    for title, _ in SECTIONS:
        paths = [p for p in report.fields if _section_of(p) == title]
        if not paths:
            continue
        # The title in the field column, which stays put when the map scrolls sideways.
        rows.append(f'<tr class="section"><th class="field">{escape(title)}</th>'
                    f'<th colspan="{len(columns)}"></th></tr>')
        for path in paths:
            tds = "".join(_td(cells.get((p.task_type, role, path)), p, role, path)
                          for p, role in columns)
            rows.append(f'<tr class="row"><th class="field">{escape(path)}</th>{tds}</tr>')
    rows.append("</tbody></table>")
    return "\n".join(rows)


def _td(cell: Cell | None, plugin: PluginCoverage, role: str, path: str) -> str:
    if cell is None:
        return f'<td title="{escape(f"{plugin.task_type} / {role} / {path}: not rendered")}"></td>'
    hover = f"{plugin.task_type} / {role} / {path}: {cell.status}"
    if cell.reason:
        hover += f" - {cell.reason}"
    exception = " exception" if cell.status != "applied" else ""
    return (f'<td class="{CLASSES[cell.status]}{exception}" title="{escape(hover)}">'
            f"{SYMBOLS[cell.status]}</td>")


def _exceptions(report: CoverageReport) -> str:
    """Every cell that is not applied, by field, with its reason: readable without
    hovering."""
    by_field: dict[str, list[Cell]] = {}
    for plugin in report.plugins:
        for cell in plugin.cells:
            if cell.status != "applied":
                by_field.setdefault(cell.field, []).append(cell)
    count = sum(map(len, by_field.values()))
    entries = []
    for path in [p for p in report.fields if p in by_field]:
        items = "".join(f"<dd>{escape(c.task_type)} / {escape(c.role)}: "
                        f"{SYMBOLS[c.status]} {escape(c.status)}"
                        f"{' - ' + escape(c.reason) if c.reason else ''}</dd>"
                        for c in by_field[path])
        entries.append(f"<dt>{escape(path)}</dt>{items}")
    return (f"<h2>Exceptions ({count})</h2>"
            f'<dl class="exceptions">{"".join(entries)}</dl>')


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

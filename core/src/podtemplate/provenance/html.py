"""``explain --format html``: one self-contained page (inline CSS and script, nothing to
fetch). An index of tasks and roles; each pod a collapsible tree whose values are coloured
by layer (a legend names the colours; red is kept for errors), with the layer and source
beside each value and the why on hover; each role's layer stack as patches. A search box
keeps only the values whose path, value, layer or source matches; buttons expand and
collapse every tree. Opened as ``explain.html#selftest``, the page runs its controls once
and writes PASS or what failed into ``#selftest`` (what the browser test reads)."""

from __future__ import annotations

import re
from html import escape
from typing import Any

from .sources import LAYERS
from .text import show_value, where
from .trace import Explained, RoleExplained, ValueOrigin, under

__all__ = ["to_html", "COLOURS"]

# One hue a layer, far apart, each dark enough for white text; no red (it reads as an
# error): operator is slate, policy indigo.
COLOURS: dict[str, str] = {
    "cluster-template": "#1f6fb4",
    "interruptible": "#12808f",
    "task-template": "#2a8a3e",
    "task-settings": "#6f7f10",
    "run-override": "#8a55bf",
    "role-template": "#d06a0c",
    "role-settings": "#9a6b00",
    "default-resources": "#8c564b",
    "resource-tolerations": "#c2418f",
    "operator": "#3d5a80",
    "policy": "#4b3f9e",
    "default-image": "#5f7a3a",
    "system": "#6b7383",
}

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1d2330;
background:#fafbfc}
h1{font-size:22px;margin:0 0 4px}.meta{color:#5b6475;margin:0 0 10px}
.legend{margin:0 0 8px}.legend b{font-size:12px;margin-right:8px}
.legend span{display:inline-block;margin:0 12px 6px 0;font-size:12px}
.legend i{display:inline-block;width:12px;height:12px;border-radius:3px;vertical-align:-1px;
margin-right:4px}
.controls{position:sticky;top:0;z-index:2;background:#fafbfc;padding:8px 0;
border-bottom:1px solid #dde1e8;display:flex;gap:8px;align-items:center;flex-wrap:wrap}
.controls input{font:13px ui-monospace,Menlo,monospace;padding:5px 8px;width:360px;
border:1px solid #b8bfcc;border-radius:5px}
.controls button{font:13px system-ui,sans-serif;padding:5px 10px;border:1px solid #b8bfcc;
border-radius:5px;background:#fff;cursor:pointer}
.controls .count{color:#5b6475;font-size:12px}
nav.index{font-size:13px;margin:10px 0}
nav.index>ul{columns:4 260px;margin:4px 0;padding-left:18px}
nav.index li{margin:1px 0;break-inside:avoid}
nav.index a{color:#1f4f8f;text-decoration:none;margin-right:6px;white-space:nowrap}
section.pod{background:#fff;border:1px solid #dde1e8;border-radius:8px;margin:14px 0;
padding:8px 14px;scroll-margin-top:64px}
section.pod>h2{font-size:16px;margin:4px 0 8px}
details{margin-left:14px}details>summary{cursor:pointer;font-family:ui-monospace,Menlo,
monospace;font-size:13px;color:#39414f}
section.pod>details{margin-left:0}
.leaf{font-family:ui-monospace,Menlo,monospace;font-size:13px;margin:1px 0 1px 28px;
cursor:help;white-space:nowrap}
.leaf b{font-weight:600}.leaf .v{padding:0 5px;border-radius:3px;color:#fff}
.leaf .s{color:#5b6475;font-size:11px;margin-left:8px}
.leaf .o{color:#7a8394;font-size:11px;margin-left:8px;text-decoration:line-through}
.hidden{display:none}
ul.gone li{font-family:ui-monospace,Menlo,monospace;font-size:12px;cursor:help}
ol.stack li{font-size:12px;margin:3px 0}ol.stack code{font-size:12px}
ol.stack pre{font-size:11px;margin:4px 0 4px 14px;color:#39414f}
#selftest{font:12px ui-monospace,monospace}
"""

_SCRIPT = """
(function(){
var q=document.getElementById('search'),count=document.getElementById('count');
var leaves=[].slice.call(document.querySelectorAll('.leaf'));
function all(open){[].forEach.call(document.querySelectorAll('details'),
  function(d){d.open=open;});}
function filter(){
  var words=q.value.toLowerCase().split(/\\s+/).filter(Boolean),shown=0;
  leaves.forEach(function(leaf){
    var text=(leaf.textContent+' '+leaf.title).toLowerCase();
    var hit=words.every(function(w){return text.indexOf(w)>=0;});
    leaf.classList.toggle('hidden',!hit);if(hit){shown++;}
  });
  [].forEach.call(document.querySelectorAll('section.pod details.tree'),function(d){
    var any=d.querySelector('.leaf:not(.hidden)');
    d.classList.toggle('hidden',!any);if(words.length&&any){d.open=true;}
  });
  [].forEach.call(document.querySelectorAll('section.pod'),function(s){
    s.classList.toggle('hidden',words.length>0&&!s.querySelector('.leaf:not(.hidden)'));
  });
  count.textContent=words.length?shown+' of '+leaves.length+' values':leaves.length+' values';
  return shown;
}
q.addEventListener('input',filter);
document.getElementById('expand').addEventListener('click',function(){all(true);});
document.getElementById('collapse').addEventListener('click',function(){all(false);});
filter();
if(location.hash==='#selftest'){
  var failed=[],details=document.querySelectorAll('details');
  function type(text){  /* as a person types: the input event, then what shows */
    q.value=text;q.dispatchEvent(new Event('input'));
    return leaves.filter(function(l){return !l.classList.contains('hidden');}).length;
  }
  document.getElementById('collapse').click();
  if([].some.call(details,function(d){return d.open;})){failed.push('collapse all');}
  document.getElementById('expand').click();
  if([].some.call(details,function(d){return !d.open;})){failed.push('expand all');}
  var first=leaves[0],word=first?first.querySelector('b').textContent:'';
  var shown=type(word);
  if(!first||shown<1||first.classList.contains('hidden')){failed.push('search keeps a match');}
  if(count.textContent!==shown+' of '+leaves.length+' values'){failed.push('search count');}
  if(type(word+' no-such-value-anywhere')!==0){failed.push('search hides what does not match');}
  if(type('')!==leaves.length){failed.push('an empty search shows every value');}
  var legend={};
  [].forEach.call(document.querySelectorAll('.legend i'),
    function(i){legend[i.style.background]=1;});
  if(leaves.some(function(l){return !legend[l.querySelector('.v').style.background];}))
    {failed.push('the legend names every colour');}
  var links=document.querySelectorAll('nav.index a'),pods=document.querySelectorAll('section.pod');
  if(links.length!==pods.length){failed.push('index: one link a pod');}
  [].forEach.call(links,function(a){
    var id=a.getAttribute('href').slice(1);
    if(!document.getElementById(id)){failed.push('index target '+id);}
  });
  var last=links[links.length-1];
  if(last){
    last.click();
    var pod=document.getElementById(last.getAttribute('href').slice(1));
    var top=pod.getBoundingClientRect().top;
    var below=document.querySelector('.controls').getBoundingClientRect().bottom;
    if(top<below-1||top>window.innerHeight)
      {failed.push('an index link shows its pod below the search bar');}
  }
  var out=document.getElementById('selftest');out.classList.remove('hidden');
  out.textContent='selftest: '+(failed.length?'FAIL '+failed.join('; '):'PASS')+
    ' ('+leaves.length+' values, '+pods.length+' pods)';
}
})();
"""


def to_html(explained: Explained, prefix: str | None = None) -> str:
    pods = [(task, role) for task in explained.tasks for role in task.roles]
    ids = _anchors([f"{task.task}-{role.role}" for task, role in pods])
    parts = [
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        "<title>podtemplate explain</title>", f"<style>{_CSS}</style>", "</head>", "<body>",
        "<h1>podtemplate explain</h1>",
        f'<p class="meta">{len(explained.tasks)} task(s), {len(pods)} pod(s): every value '
        "coloured by the layer that set it, its layer and source beside it; hover a value "
        "for why and what it replaced.</p>",
        _legend(),
        '<div class="controls"><input id="search" type="search" placeholder="search: a '
        'path, value, layer or file" aria-label="search values">'
        '<button id="expand" type="button">expand all</button>'
        '<button id="collapse" type="button">collapse all</button>'
        '<span class="count" id="count"></span></div>',
        _index(explained, ids),
        '<pre id="selftest" class="hidden"></pre>',
    ]
    for (task, role), anchor in zip(pods, ids, strict=True):
        parts.append(_pod(task.task, task.task_type, role, prefix, anchor))
    parts += [f"<script>{_SCRIPT}</script>", "</body>", "</html>"]
    return "\n".join(parts) + "\n"


def _anchors(names: list[str]) -> list[str]:
    """Unique HTML ids for the pods, from their task and role names."""
    seen: dict[str, int] = {}
    ids = []
    for name in names:
        base = "pod-" + (re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-") or "x")
        seen[base] = seen.get(base, 0) + 1
        ids.append(base if seen[base] == 1 else f"{base}-{seen[base]}")
    return ids


def _index(explained: Explained, ids: list[str]) -> str:
    """Each task with links to its roles' pods."""
    anchors = iter(ids)
    items = []
    for task in explained.tasks:
        roles = "".join(f'<a href="#{next(anchors)}">{escape(role.role)}</a>'
                        for role in task.roles)
        items.append(f"<li>{escape(task.task)} <small>({escape(task.task_type)})</small>: "
                     f"{roles}</li>")
    return f'<nav class="index"><b>Tasks and roles</b><ul>{"".join(items)}</ul></nav>'


def _legend() -> str:
    items = "".join(f'<span><i style="background:{COLOURS.get(name, "#999")}"></i>'
                    f"{escape(name)}</span>" for name in LAYERS)
    return f'<div class="legend"><b>Layers, lowest first:</b>{items}</div>'


def _pod(task: str, task_type: str, role: RoleExplained, prefix: str | None,
         anchor: str) -> str:
    values = [v for v in role.values if under(v.path, prefix)]
    removed = [v for v in role.removed if under(v.path, prefix)]
    out = [f'<section class="pod" id="{anchor}"><h2>{escape(task)} '
           f"<small>({escape(task_type)})</small> · role {escape(role.role)}</h2>",
           _tree(values, 0)]
    if removed:
        out.append(f"<details><summary>removed ({len(removed)})</summary><ul class=gone>")
        out += [f'<li title="{escape(_hover(v))}">{escape(v.path)} = '
                f"{escape(show_value(v.value))} — {escape(v.origin.layer)}</li>"
                for v in removed]
        out.append("</ul></details>")
    out.append(_stack(role, prefix))
    out.append("</section>")
    return "\n".join(out)


def _tree(values: list[ValueOrigin], depth: int) -> str:
    """Values sharing the step at ``depth`` grouped under one ``<details>``, in order."""
    entries: dict[tuple[str, Any], list[ValueOrigin]] = {}
    for index, value in enumerate(values):
        key = ("leaf", index) if len(value.parts) == depth + 1 else ("group", value.parts[depth])
        entries.setdefault(key, []).append(value)
    html = []
    for (kind, step), inner in entries.items():
        if kind == "leaf":
            html.append(_leaf(inner[0]))
            continue
        opened = " open" if depth < 4 else ""  # down to a container's own fields
        html.append(f'<details class="tree"{opened}><summary>{escape(step)} '
                    f"<small>({len(inner)})</small></summary>{_tree(inner, depth + 1)}"
                    "</details>")
    return "\n".join(html)


def _leaf(value: ValueOrigin) -> str:
    colour = COLOURS.get(value.origin.layer, "#999")
    replaced = "".join(f'<span class="o">{escape(show_value(low.value, 24))}</span>'
                       for low in value.overridden)
    return (f'<div class="leaf" title="{escape(_hover(value))}"><b>{escape(value.parts[-1])}'
            f'</b>: <span class="v" style="background:{colour}">'
            f"{escape(show_value(value.value, 80))}</span>{replaced}"
            f'<span class="s">{escape(value.origin.layer)} · '
            f"{escape(where(_source(value)))}</span></div>")


def _source(value: ValueOrigin) -> dict[str, Any] | None:
    source = value.origin.source
    return None if source is None else source.as_dict()


def _hover(value: ValueOrigin) -> str:
    lines = [f"{value.path}", f"{value.origin.layer} at {where(_source(value))}"]
    if value.origin.detail:
        lines.append(value.origin.detail)
    lines += [f"replaced {show_value(low.value)} ({low.origin.layer} at {where(_source(low))})"
              for low in value.overridden]
    return "\n".join(lines)


def _stack(role: RoleExplained, prefix: str | None) -> str:
    """The layer stack as patches (what ``--diff`` prints), one collapsed entry a layer."""
    items = []
    for layer in role.changes(prefix):
        count = f"{len(layer['set'])} set, {len(layer['removed'])} removed"
        colour = COLOURS.get(layer["layer"], "#999")
        lines = [_patch_line("~" if change.get("was") else "+", change)
                 for change in layer["set"]]
        lines += [_patch_line("-", gone) for gone in layer["removed"]]
        items.append(f'<li><details><summary><span style="color:{colour};font-weight:600">'
                     f"{escape(layer['layer'])}</span> <code>{escape(layer['label'])}</code> "
                     f"— {count}</summary><pre>{''.join(lines)}</pre></details></li>")
    return (f"<details><summary>layer stack ({len(items)})</summary><ol class=stack>"
            f"{''.join(items)}</ol></details>")


def _patch_line(mark: str, change: dict[str, Any]) -> str:
    was = change.get("was")
    note = f"  (was {show_value(was['value'])}, {was['layer']})" if was else ""
    return escape(f"{mark} {change['path']} = {show_value(change['value'])}  "
                  f"{where(change['source'])}{note}\n")

"""``explain --format html``: one self-contained page, each pod a collapsible tree whose
values are coloured by layer, the source and the reason on hover (``title``), and each
role's layer stack as patches. Inline CSS only: nothing to fetch."""

from __future__ import annotations

from html import escape
from typing import Any

from .sources import LAYERS
from .text import show_value, where
from .trace import Explained, RoleExplained, ValueOrigin, under

__all__ = ["to_html", "COLOURS"]

COLOURS: dict[str, str] = {
    "cluster-template": "#3b6fd1",
    "interruptible": "#1f9aa8",
    "task-template": "#2e9d5b",
    "task-settings": "#6aa82e",
    "run-override": "#a548c4",
    "role-template": "#c98a12",
    "role-settings": "#b9a21a",
    "default-resources": "#4f9fd6",
    "resource-tolerations": "#1f9aa8",
    "operator": "#d64545",
    "policy": "#8e1d1d",
    "default-image": "#6c8ebf",
    "system": "#7a8394",
}

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1d2330;
background:#fafbfc}
h1{font-size:22px;margin:0 0 4px}.meta{color:#5b6475;margin:0 0 14px}
.legend span{display:inline-block;margin:0 12px 6px 0;font-size:12px}
.legend i{display:inline-block;width:12px;height:12px;border-radius:3px;vertical-align:-1px;
margin-right:4px}
section.pod{background:#fff;border:1px solid #dde1e8;border-radius:8px;margin:14px 0;
padding:8px 14px}
section.pod>h2{font-size:16px;margin:4px 0 8px}
details{margin-left:14px}details>summary{cursor:pointer;font-family:ui-monospace,Menlo,
monospace;font-size:13px;color:#39414f}
section.pod>details{margin-left:0}
.leaf{font-family:ui-monospace,Menlo,monospace;font-size:13px;margin:1px 0 1px 28px;
cursor:help;white-space:nowrap}
.leaf b{font-weight:600}.leaf .v{padding:0 5px;border-radius:3px;color:#fff}
.leaf .s{color:#7a8394;font-size:11px;margin-left:8px}
.leaf .o{color:#7a8394;font-size:11px;margin-left:8px;text-decoration:line-through}
ul.gone li{font-family:ui-monospace,Menlo,monospace;font-size:12px;cursor:help}
ol.stack li{font-size:12px;margin:3px 0}ol.stack code{font-size:12px}
ol.stack pre{font-size:11px;margin:4px 0 4px 14px;color:#39414f}
"""


def to_html(explained: Explained, prefix: str | None = None) -> str:
    roles = sum(len(task.roles) for task in explained.tasks)
    parts = [
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        "<title>podtemplate explain</title>", f"<style>{_CSS}</style>", "</head>", "<body>",
        "<h1>podtemplate explain</h1>",
        f'<p class="meta">{len(explained.tasks)} task(s), {roles} pod(s): every value '
        "coloured by the layer that set it. Hover a value for its file, line and why.</p>",
        _legend(),
    ]
    for task in explained.tasks:
        for role in task.roles:
            parts.append(_pod(task.task, task.task_type, role, prefix))
    parts += ["</body>", "</html>"]
    return "\n".join(parts) + "\n"


def _legend() -> str:
    items = "".join(f'<span><i style="background:{COLOURS.get(name, "#999")}"></i>'
                    f"{escape(name)}</span>" for name in LAYERS)
    return f'<div class="legend">{items}</div>'


def _pod(task: str, task_type: str, role: RoleExplained, prefix: str | None) -> str:
    values = [v for v in role.values if under(v.path, prefix)]
    removed = [v for v in role.removed if under(v.path, prefix)]
    out = [f'<section class="pod"><h2>{escape(task)} <small>({escape(task_type)})</small> · '
           f"role {escape(role.role)}</h2>", _tree(values, 0)]
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
        html.append(f"<details{opened}><summary>{escape(step)} <small>({len(inner)})</small>"
                    f"</summary>{_tree(inner, depth + 1)}</details>")
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

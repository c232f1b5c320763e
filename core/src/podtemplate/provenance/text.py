"""``explain`` for people: a table per task and role, or the layer stack as patches.

Styles are click styles: ``click.echo`` drops them unless the output is a terminal.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import click

__all__ = ["LAYER_COLOURS", "show_value", "to_diff_text", "to_text", "where"]

LAYER_COLOURS: dict[str, str] = {
    "cluster-template": "blue",
    "interruptible": "cyan",
    "task-template": "green",
    "task-settings": "bright_green",
    "run-override": "magenta",
    "role-template": "yellow",
    "role-settings": "bright_yellow",
    "default-resources": "bright_cyan",
    "resource-tolerations": "cyan",
    "operator": "red",
    "policy": "bright_red",
    "default-image": "bright_cyan",
    "system": "white",
}
_WIDEST_VALUE = 60
_VALUE_COLUMN = 36
_LAYER_COLUMN = 17


def show_value(value: Any, width: int = _WIDEST_VALUE) -> str:
    text = value if isinstance(value, str) and value else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


def where(source: Mapping[str, Any] | None) -> str:
    if source is None:
        return "-"
    line = source.get("line")
    return f"{source['file']}:{line}" if line is not None else str(source["file"])


def _layer(name: str, width: int = 0) -> str:
    return click.style(name.ljust(width), fg=LAYER_COLOURS.get(name))


def _heading(task: str, role: str) -> str:
    return click.style(f"task {task} · role {role}", bold=True)


def to_text(explained: Mapping[str, Any]) -> str:
    """A table per task and role: path, value, layer, file:line; what each value
    replaced indented (dimmed) under it, oldest first; the reason, where there is one."""
    out: list[str] = []
    for task in explained["tasks"]:
        for role in task["roles"]:
            out.append(_heading(task["task"], role["role"]))
            values = role["values"]
            path_width = max((len(v["path"]) for v in values), default=0)
            value_width = max((len(show_value(v["value"], _VALUE_COLUMN)) for v in values),
                              default=0)
            for value in values:
                out.append(f"  {value['path'].ljust(path_width)}  "
                           f"{show_value(value['value'], _VALUE_COLUMN).ljust(value_width)}  "
                           f"{_layer(value['layer'], _LAYER_COLUMN)} {where(value['source'])}")
                out += _notes(value["overridden"], value["detail"])
            if role["removed"]:
                out.append("  removed:")
                for gone in role["removed"]:
                    out.append(f"  {gone['path']}  {show_value(gone['value'], _VALUE_COLUMN)}  "
                               f"{_layer(gone['layer'], _LAYER_COLUMN)} {where(gone['source'])}")
                    out += _notes([], gone.get("detail"))
            out.append("")
    return "\n".join(out)


def _notes(overridden: list[Mapping[str, Any]], detail: str | None) -> list[str]:
    notes = [click.style(f"      replaced {show_value(low['value'])} ({low['layer']}, "
                         f"{where(low['source'])})", dim=True) for low in overridden]
    if detail:
        notes.append(click.style(f"      # {detail}", dim=True))
    return notes


def to_diff_text(diff: Mapping[str, Any]) -> str:
    """Per task and role, each layer as a patch over the layers below it."""
    out: list[str] = []
    for task in diff["tasks"]:
        for role in task["roles"]:
            out.append(_heading(task["task"], role["role"]))
            for layer in role["layers"]:
                out.append(f"  {_layer(layer['layer'])} ({layer['label']})")
                for change in layer["set"]:
                    was = change.get("was")
                    mark, note = ("~", f"  (was {show_value(was['value'])}, "
                                  f"{was['layer']})") if was else ("+", "")
                    out.append(click.style(f"    {mark} ", fg="yellow" if was else "green")
                               + f"{change['path']} = {show_value(change['value'])}"
                               + f"  {where(change['source'])}{note}")
                for gone in layer["removed"]:
                    out.append(click.style("    - ", fg="red")
                               + f"{gone['path']} (was {show_value(gone['value'])})"
                               + f"  {where(gone['source'])}")
            out.append("")
    return "\n".join(out)

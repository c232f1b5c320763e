"""``podtemplate explain``: where every value of every pod came from."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .guard import clean_errors, debug_option
from .options import check_override, render_inputs

if TYPE_CHECKING:
    from ..provenance.trace import Explained

__all__ = ["explain_command"]


@click.command("explain")
@debug_option
@render_inputs
@click.option("--output", "-o", default="-", show_default=True,
              help="'-' for stdout, or a file to write.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "html"]), default="text",
              show_default=True)
@click.option("--role", help="Only this role (of every selected task that has it).")
@click.option("--field", "prefix", metavar="PATH",
              help="Only values under this path, e.g. spec.containers[pytorch].env.")
@click.option("--diff", is_flag=True,
              help="Per role, what each layer changed over the layers below it.")
def explain_command(targets: tuple[str, ...], platform_file: str | None,
                    templates: str | None, namespace: str | None, override: str | None,
                    inputs: tuple[str, ...], output: str, fmt: str, role: str | None,
                    prefix: str | None, diff: bool) -> None:
    """Where every value of every pod of TARGET came from: the layer, the file and line,
    what it replaced and what was removed. Takes every option of render."""
    clean_errors(_explain)(targets, platform_file, templates, namespace, override, inputs,
                           output, fmt, role, prefix, diff)


def _explain(targets: tuple[str, ...], platform_file: str | None, templates: str | None,
             namespace: str | None, override: str | None, inputs: tuple[str, ...],
             output: str, fmt: str, role: str | None, prefix: str | None,
             diff: bool) -> None:
    from ..inputs import parse_input_pairs
    from ..provenance.html import to_html
    from ..provenance.text import to_diff_text, to_text
    from ..provenance.trace import explain_tasks
    from ..render import make_context
    from .output import write_file
    from .targets import collect_tasks

    check_override(override)
    context = make_context(platform=platform_file, templates=templates, namespace=namespace,
                           override=override, inputs=parse_input_pairs(inputs),
                           provenance=True)
    tasks = collect_tasks(list(targets))
    explained = explain_tasks(tasks, context, platform_file=platform_file).narrowed(role)
    missing = _missing_field(explained, prefix) if prefix else None
    if missing:  # nothing to show is not a success: `explain ... --field X | grep` would pass
        click.echo(f"error: {missing}", err=True)
        sys.exit(1)
    data = explained.diff_dict(prefix) if diff else explained.as_dict(prefix)
    if fmt == "json":
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    elif fmt == "html":
        text = to_html(explained, prefix)
    else:
        text = to_diff_text(data) if diff else to_text(data)
    if output == "-":
        click.echo(text, nl=False)
    else:
        write_file(Path(output), click.unstyle(text))
        click.echo(f"wrote {output}", err=True)
    for warning in context.warnings:
        click.echo(f"warning: {warning}", err=True)


def _joined(parts: tuple[str, ...]) -> str:
    return "".join(p if p.startswith("[") or not i else "." + p for i, p in enumerate(parts))


def _missing_field(explained: Explained, prefix: str) -> str | None:
    """Why a ``--field`` matches no value of any selected pod, naming the paths that exist
    where it stops matching (``spec.containers[primary]`` on a task whose container is
    ``pytorch``); None when it matches."""
    from ..errors import TargetError
    from ..provenance.trace import under

    steps = [v.parts for t in explained.tasks for r in t.roles for v in (*r.values, *r.removed)]
    if any(under(_joined(parts), prefix) for parts in steps):
        return None
    depth, matched = 0, ""
    for size in range(1, max(map(len, steps), default=0) + 1):
        heads = {_joined(parts[:size]) for parts in steps if len(parts) >= size}
        head = next((h for h in heads if under(prefix, h)), None)
        if head is None:
            break
        depth, matched = size, head
    here = sorted({_joined(parts[:depth + 1]) for parts in steps
                   if len(parts) > depth and _joined(parts[:depth]) == matched})
    shown = ", ".join(here[:12]) + (f" and {len(here) - 12} more" if len(here) > 12 else "")
    error = TargetError(f"--field {prefix!r} matches no value of the selected pods",
                        fix=f"choose a path that exists{' under ' + matched if matched else ''}"
                        f": {shown}" if shown else "the selected pods have no values")
    return str(error)

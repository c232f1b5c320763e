"""``podtemplate explain``: where every value of every pod came from."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..inputs import parse_input_pairs
from ..render import make_context
from .guard import clean_errors, debug_option
from .options import render_inputs
from .targets import collect_tasks

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
    from ..provenance.html import to_html
    from ..provenance.text import to_diff_text, to_text
    from ..provenance.trace import explain_tasks

    context = make_context(platform=platform_file, templates=templates, namespace=namespace,
                           override=override, inputs=parse_input_pairs(inputs),
                           provenance=True)
    tasks = collect_tasks(list(targets))
    explained = explain_tasks(tasks, context, platform_file=platform_file).narrowed(role)
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
        Path(output).write_text(click.unstyle(text), encoding="utf-8")
        click.echo(f"wrote {output}", err=True)
    for warning in context.warnings:
        click.echo(f"warning: {warning}", err=True)

"""The ``podtemplate`` command line: a thin shell over the library."""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator
from importlib import metadata
from pathlib import Path
from typing import IO, Any

import click

from ..context import RenderContext
from ..files.yamlio import dump_json, dump_yaml
from ..inputs import parse_input_pairs
from ..manifest import TASK_LABEL
from ..render import iter_render, make_context
from .guard import clean_errors, debug_option
from .options import render_inputs
from .output import write_files
from .targets import collect_tasks

__all__ = ["main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(metadata.version("podtemplate"), prog_name="podtemplate")
@debug_option
def main() -> None:
    """Render Kubernetes manifests for tasks that carry full pod templates."""


def _print_warnings(context: RenderContext) -> None:
    for warning in context.warnings:
        click.echo(f"warning: {warning}", err=True)


def _write_stream(manifests: Iterable[dict[str, Any]], stream: IO[str], fmt: str) -> int:
    count = 0
    if fmt == "json":
        stream.write('{"apiVersion": "v1", "kind": "List", "items": [\n')
        for manifest in manifests:
            stream.write((",\n" if count else "") + json.dumps(manifest, indent=2))
            count += 1
        stream.write("\n]}\n")
        return count
    for manifest in manifests:
        stream.write("---\n" + dump_yaml(manifest))
        count += 1
    return count


def _by_task(manifests: Iterable[dict[str, Any]]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    current: str | None = None
    batch: list[dict[str, Any]] = []
    for manifest in manifests:
        task = manifest["metadata"].get("labels", {}).get(TASK_LABEL, "")
        if batch and task != current:
            yield current or "", batch
            batch = []
        current = task
        batch.append(manifest)
    if batch:
        yield current or "", batch


def _task_files(manifests: Iterable[dict[str, Any]], fmt: str) -> list[tuple[str, str, int]]:
    """Every task's file name, text and manifest count, rendered in full before anything
    is written."""
    files = []
    for task, batch in _by_task(manifests):
        if fmt == "json":
            text = dump_json(batch[0] if len(batch) == 1 else
                             {"apiVersion": "v1", "kind": "List", "items": batch})
        else:
            text = "".join("---\n" + dump_yaml(m) for m in batch)
        files.append((f"{task}.{fmt}", text, len(batch)))
    return files


@main.command()
@render_inputs
@click.option("--output", "-o", default="-", show_default=True,
              help="'-' for stdout, or a folder: one file per task.")
@click.option("--format", "fmt", type=click.Choice(["yaml", "json"]), default="yaml",
              show_default=True)
@click.option("--run-id", "run_id", metavar="ID",
              help="Suffix every object name with -ID and label objects and pods "
              "podtemplate.io/run=ID, so the same tasks can be applied again.")
@debug_option
@clean_errors
def render(targets: tuple[str, ...], platform_file: str | None, templates: str | None,
           namespace: str | None, override: str | None, inputs: tuple[str, ...],
           output: str, fmt: str, run_id: str | None) -> None:
    """Render every task of TARGET (a .py file, folder or module, optionally :task).

    Output is deterministic and ready for `kubectl apply -f`. Nothing is written when
    any task fails.
    """
    context = make_context(platform=platform_file, templates=templates, namespace=namespace,
                           override=override, inputs=parse_input_pairs(inputs),
                           run_id=run_id)
    tasks = collect_tasks(list(targets))
    manifests = iter_render(tasks, context)
    if output == "-":
        with tempfile.SpooledTemporaryFile(max_size=8 << 20, mode="w+", encoding="utf-8") as buf:
            _write_stream(manifests, buf, fmt)
            buf.seek(0)
            shutil.copyfileobj(buf, sys.stdout)
    else:
        files = _task_files(manifests, fmt)
        write_files(Path(output), [(name, text) for name, text, _ in files])
        count = sum(manifest_count for _, _, manifest_count in files)
        click.echo(f"wrote {count} manifest(s) for {len(tasks)} task(s) to {output}", err=True)
    _print_warnings(context)


# Commands kept in their own modules, registered on the one group.
from .apply import apply_command  # noqa: E402
from .explain import explain_command  # noqa: E402
from .info import coverage_command, plugins_command  # noqa: E402
from .validate import validate_command  # noqa: E402

main.add_command(apply_command)
main.add_command(explain_command)
main.add_command(coverage_command)
main.add_command(plugins_command)
main.add_command(validate_command)

"""The ``podtemplate`` command line: a thin shell over the library."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from functools import wraps
from importlib import metadata
from pathlib import Path
from typing import IO, Any, TypeVar

import click

from ..context import RenderContext
from ..errors import PodTemplateError
from ..files.yamlio import dump_json, dump_yaml
from ..inputs import parse_input_pairs
from ..manifest import TASK_LABEL
from ..render import iter_render, make_context
from .targets import collect_tasks

__all__ = ["main"]

F = TypeVar("F", bound=Callable[..., Any])


def clean_errors(command: F) -> F:
    """Bad input prints one line per problem and exits 2: never a traceback."""

    @wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except PodTemplateError as error:
            for line in error.lines():
                click.echo(f"error: {line}", err=True)
            sys.exit(error.exit_code)

    return run  # type: ignore[return-value]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(metadata.version("podtemplate"), prog_name="podtemplate")
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


def _write_folder(manifests: Iterable[dict[str, Any]], folder: Path, fmt: str) -> int:
    """One file per task, written to a scratch folder first so a failure writes nothing."""
    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    with tempfile.TemporaryDirectory(dir=folder, prefix=".podtemplate-") as scratch:
        written = []
        for task, batch in _by_task(manifests):
            path = Path(scratch) / f"{task}.{fmt}"
            if fmt == "json":
                text = dump_json(batch[0] if len(batch) == 1 else
                                 {"apiVersion": "v1", "kind": "List", "items": batch})
            else:
                text = "".join("---\n" + dump_yaml(m) for m in batch)
            path.write_text(text, encoding="utf-8")
            written.append(path)
            count += len(batch)
        for path in written:
            os.replace(path, folder / path.name)
    return count


@main.command()
@click.argument("targets", nargs=-1, required=True)
@click.option("--platform", "platform_file", type=click.Path(dir_okay=False),
              help="platform.yaml of the admin's settings.")
@click.option("--templates", type=click.Path(file_okay=False),
              help="Folder of kind: PodTemplate files (overrides platform.yaml).")
@click.option("--namespace", help="Namespace of rendered objects and first template lookup.")
@click.option("--override", type=click.Path(dir_okay=False),
              help="A pod template merged over every task as the run override.")
@click.option("--input", "inputs", multiple=True, metavar="NAME=VALUE",
              help="A task input, typed from the function's signature. Repeatable.")
@click.option("--output", "-o", default="-", show_default=True,
              help="'-' for stdout, or a folder: one file per task.")
@click.option("--format", "fmt", type=click.Choice(["yaml", "json"]), default="yaml",
              show_default=True)
@clean_errors
def render(targets: tuple[str, ...], platform_file: str | None, templates: str | None,
           namespace: str | None, override: str | None, inputs: tuple[str, ...],
           output: str, fmt: str) -> None:
    """Render every task of TARGET (a .py file, folder or module, optionally :task).

    Output is deterministic and ready for `kubectl apply -f`. Nothing is written when
    any task fails.
    """
    context = make_context(platform=platform_file, templates=templates, namespace=namespace,
                           override=override, inputs=parse_input_pairs(inputs))
    tasks = collect_tasks(list(targets))
    manifests = iter_render(tasks, context)
    if output == "-":
        with tempfile.SpooledTemporaryFile(max_size=8 << 20, mode="w+", encoding="utf-8") as buf:
            _write_stream(manifests, buf, fmt)
            buf.seek(0)
            shutil.copyfileobj(buf, sys.stdout)
    else:
        count = _write_folder(manifests, Path(output), fmt)
        click.echo(f"wrote {count} manifest(s) for {len(tasks)} task(s) to {output}", err=True)
    _print_warnings(context)


# Commands kept in their own modules, registered on the one group.
from .info import coverage_command, plugins_command  # noqa: E402

main.add_command(coverage_command)
main.add_command(plugins_command)

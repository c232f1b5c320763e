"""The ``podtemplate`` command line: a thin shell over the library."""

from __future__ import annotations

import importlib
import io
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import click

from .guard import clean_errors, debug_option
from .options import check_override, render_inputs

if TYPE_CHECKING:
    from ..context import RenderContext

__all__ = ["main"]

# Commands kept in their own modules, imported only when that command runs or --help
# lists them: `podtemplate render` does not load what `coverage` needs.
_COMMANDS = {
    "apply": (".apply", "apply_command"),
    "explain": (".explain", "explain_command"),
    "new-plugin": (".new_plugin", "new_plugin_command"),
    "coverage": (".info", "coverage_command"),
    "crd": (".crd", "crd_command"),
    "plugins": (".info", "plugins_command"),
    "validate": (".validate", "validate_command"),
}


class _Commands(click.Group):
    """The command group: lazy commands, and Ctrl-C ends any of them with one line and
    exit 130 (the files are written all or nothing, so nothing is left half-written)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in _COMMANDS and cmd_name not in self.commands:
            module, attribute = _COMMANDS[cmd_name]
            self.add_command(getattr(importlib.import_module(module, __package__), attribute))
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("\ninterrupted: nothing was written", err=True)
            raise click.exceptions.Exit(130) from None


def _version(ctx: click.Context, _: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        from .. import __version__

        click.echo(f"podtemplate, version {__version__}")
        ctx.exit()


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_version,
              help="Show the version and exit.")
@debug_option
def main() -> None:
    """Render Kubernetes manifests for tasks that carry full pod templates."""


def _print_warnings(context: RenderContext) -> None:
    for warning in context.warnings:
        click.echo(f"warning: {warning}", err=True)


class _Spooled:
    """Text held in memory up to 8 MiB (encoded, one byte per ASCII character), then in a
    temporary file: what render writes to standard output, all of it rendered before any
    is written (``tempfile`` imported only for an output that large)."""

    _LIMIT = 8 << 20

    def __init__(self) -> None:
        self._size = 0
        self._file: IO[str] = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="")

    @property
    def _spilled(self) -> bool:
        return self._size > self._LIMIT

    def __enter__(self) -> _Spooled:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def write(self, text: str) -> int:
        held = self._spilled
        self._size += len(text)
        if self._spilled and not held:  # this text crosses the limit: to a temporary file
            import tempfile

            memory = self._file
            self._file = tempfile.TemporaryFile(mode="w+", encoding="utf-8", newline="")  # noqa: SIM115 - closed by close()
            self._file.buffer.write(memory.detach().getvalue())  # type: ignore[attr-defined]
        return self._file.write(text)

    def copy_to(self, stream: IO[str]) -> None:
        self._file.seek(0)
        while chunk := self._file.read(1 << 20):
            stream.write(chunk)

    def close(self) -> None:
        self._file.close()


def _write_stream(manifests: Iterable[dict[str, Any]], stream: IO[str] | _Spooled,
                  fmt: str) -> int:
    from ..files.yamlio import dump_yaml

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
    from ..manifest import TASK_LABEL

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
    from ..files.yamlio import dump_json, dump_yaml

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
@click.option("--clean", is_flag=True,
              help="With -o DIR: remove the files an earlier render wrote there that this "
              "render does not write (other files are left and named).")
@click.option("--run-id", "run_id", metavar="ID",
              help="Suffix every object name with -ID and label objects and pods "
              "podtemplate.io/run=ID, so the same tasks can be applied again.")
@debug_option
@clean_errors
def render(targets: tuple[str, ...], platform_file: str | None, templates: str | None,
           namespace: str | None, override: str | None, inputs: tuple[str, ...],
           output: str, fmt: str, clean: bool, run_id: str | None) -> None:
    """Render every task of TARGET (a .py file, folder or module, optionally :task).

    Output is deterministic and ready for `kubectl apply -f`. Nothing is written when
    any task fails.
    """
    from ..errors import OutputError
    from ..inputs import parse_input_pairs
    from ..render import iter_render, make_context
    from .output import stale_files, write_files
    from .targets import collect_tasks

    check_override(override)
    if not output.strip():  # Path("") is the current folder: never meant
        raise OutputError("-o is empty", fix="give a folder for one file per task "
                          "(-o . for this one), or '-' for stdout")
    if clean and output == "-":
        raise OutputError("--clean removes earlier renders' files from an output folder; "
                          "this render writes to stdout", fix="give -o DIR with --clean, or "
                          "drop --clean")
    context = make_context(platform=platform_file, templates=templates, namespace=namespace,
                           override=override, inputs=parse_input_pairs(inputs),
                           run_id=run_id)
    tasks = collect_tasks(list(targets))
    manifests = iter_render(tasks, context)
    if output == "-":
        with _Spooled() as buf:  # all rendered before the first byte is written
            _write_stream(manifests, buf, fmt)
            buf.copy_to(sys.stdout)
    else:
        files = _task_files(manifests, fmt)
        names = [name for name, _, _ in files]
        ours, others = stale_files(Path(output), names)
        write_files(Path(output), [(name, text) for name, text, _ in files],
                    remove=ours if clean else ())
        count = sum(manifest_count for _, _, manifest_count in files)
        click.echo(f"wrote {count} manifest(s) for {len(tasks)} task(s) to {output}", err=True)
        _warn_stale(output, ours if not clean else [], others)
    _print_warnings(context)


def _warn_stale(output: str, ours: list[Path], others: list[Path]) -> None:
    """Name the files beside the new ones that this render did not write: `kubectl apply
    -f DIR` would apply them too."""
    def listed(paths: list[Path]) -> str:
        names = [p.name for p in paths]
        return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")

    if ours:
        click.echo(f"warning: {output}: {len(ours)} file(s) from an earlier render that this "
                   f"render did not write: {listed(ours)} (fix: --clean removes them)",
                   err=True)
    if others:
        click.echo(f"warning: {output}: {len(others)} other file(s) beside the rendered ones: "
                   f"{listed(others)} (kubectl apply -f {output} would read them too)",
                   err=True)

"""``podtemplate crd slim``: an operator's CRD made ready to ship as package data."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from .guard import clean_errors, debug_option

__all__ = ["crd_command"]

F = TypeVar("F", bound=Callable[..., Any])

_PROVENANCE_HELP = {
    "repository": "upstream repository, OWNER/NAME",
    "path": "the file's path in the upstream repository",
    "ref": "the upstream tag or branch",
    "commit": "the upstream commit (40 hex digits)",
    "license": "the upstream licence (SPDX)",
    "operator": 'the operator and its version ("KubeRay v1.7.0")',
}


@click.group("crd")
def crd_command() -> None:
    """Operator CRDs a task type ships."""


def _provenance_options(command: F) -> F:
    for key in reversed(list(_PROVENANCE_HELP)):
        command = click.option(f"--{key}", help=_PROVENANCE_HELP[key])(command)
    return command


@crd_command.command("slim")
@click.argument("upstream", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--into", type=click.Path(path_type=Path, file_okay=False),
              help="The package's crds/ folder: write <group>_<plural>.json and its "
              ".source.json there (default: the slimmed CRD on stdout).")
@_provenance_options
@click.option("--check", is_flag=True,
              help="With --into: write nothing; exit 1 when the files there are stale.")
@debug_option
@clean_errors
def slim_command(upstream: Path, into: Path | None, check: bool, **given: str | None) -> None:
    """Slim UPSTREAM, an operator's CRD file (YAML or JSON), to ship it: only its storage
    version, every description removed (nothing the API server validates or prunes
    with). With --into, also record where it came from in a .source.json beside it; the
    provenance options default to what that file records."""
    from ..errors import CrdFileError
    from ..schemas.slim import dumps, outputs, slim_file, stale

    if into is None:
        if check:
            raise CrdFileError("--check compares files in a folder", fix="add --into DIR")
        click.echo(dumps(slim_file(upstream)[2]), nl=False)
        return
    files = outputs(upstream, into, given, check=check)
    if check:
        for path in stale(files):
            click.echo(f"stale: {path}", err=True)
        raise SystemExit(1 if stale(files) else 0)
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        click.echo(f"wrote {path}", err=True)

"""``podtemplate validate FILE...|-``: offline validation of any manifests."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..dispatch import build_plugin_manager, task_types
from ..errors import YamlError
from ..files.yamlio import load_all
from ..schemas.documents import DocumentProblem, strict_pod_check, validate_document
from ..schemas.resources import crd_index

__all__ = ["validate_command"]


@click.command("validate")
@click.argument("files", nargs=-1, required=True, metavar="FILE...|-")
def validate_command(files: tuple[str, ...]) -> None:
    """Validate manifests offline: Pods, PodTemplates and the custom resources of every
    installed task type (against the CRDs they ship), from YAML or JSON files, multi-
    document, or '-' for standard input. One line per problem: the document
    (FILE#N), the object, the field path and the rule. Exits 0 when every document is
    valid, 1 when one is not (or could not be checked), 2 when an input is unreadable."""
    index = crd_index(task_types(build_plugin_manager()).values())
    unreadable = False
    problems: list[DocumentProblem] = []
    count = 0
    for name in files:
        documents = _read(name)
        if documents is None:
            unreadable = True
            continue
        for number, document in enumerate(documents, start=1):
            count += 1
            problems += validate_document(document, f"{name}#{number}", index,
                                          strict_pod_check)
    for problem in problems:
        click.echo(str(problem))
    invalid = {p.document.split(".items[")[0] for p in problems if p.checked}
    unchecked = {p.document.split(".items[")[0] for p in problems if not p.checked} - invalid
    click.echo(f"{count} document(s): {count - len(invalid) - len(unchecked)} valid, "
               f"{len(invalid)} invalid, {len(unchecked)} not checked", err=True)
    sys.exit(2 if unreadable else 1 if problems else 0)


def _read(name: str) -> list[object] | None:
    """The documents of one input, or None after printing why it cannot be read."""
    source = "-" if name == "-" else name
    try:
        text = sys.stdin.read() if name == "-" else Path(name).read_bytes().decode("utf-8")
        return load_all(text, source=source)
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        click.echo(f"error: {source}: cannot read: {reason}", err=True)
    except YamlError as error:
        click.echo(f"error: {source}: not YAML or JSON: {error.message}", err=True)
    return None

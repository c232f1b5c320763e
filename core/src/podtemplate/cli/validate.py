"""``podtemplate validate FILE...|-``: offline validation of any manifests."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .guard import clean_errors, debug_option

if TYPE_CHECKING:
    import pluggy

    from ..platform import Platform
    from ..policy import Violation

__all__ = ["validate_command"]


@click.command("validate")
@click.argument("files", nargs=-1, required=True, metavar="FILE...|-")
@click.option("--server", "server", is_flag=True,
              help="Ask a real cluster instead: each document is server-side applied with "
              "dryRun=All and fieldValidation=Strict (nothing is written); its causes are "
              "the problems. Documents without a namespace go to the context's namespace.")
@click.option("--kubeconfig", type=click.Path(dir_okay=False),
              help="kubeconfig for --server (default: $KUBECONFIG, else ~/.kube/config).")
@click.option("--context", help="kubeconfig context for --server (default: its current one).")
@click.option("--platform", "platform_file",
              help="platform.yaml whose policy the pods must also pass (every violation "
              "is one line; locked fields cannot be judged in a finished manifest).")
@debug_option
def validate_command(files: tuple[str, ...], server: bool, kubeconfig: str | None,
                     context: str | None, platform_file: str | None) -> None:
    """Validate manifests offline: Pods, PodTemplates and the custom resources of every
    installed task type (against the CRDs they ship; the pod templates inside them, like
    every pod, with the API server's pod rules), from YAML or JSON files, multi-
    document, or '-' for standard input. One line per problem: the document
    (FILE#N), the object, the field path and the rule. Exits 0 when every document is
    valid, 1 when one is not (or could not be checked) or breaks the platform's policy, 2
    when an input (or the platform file, or the cluster with --server) is unreadable."""
    if not server and (kubeconfig or context):
        raise click.UsageError("--kubeconfig and --context go with --server")
    clean_errors(_validate)(files, platform_file, server, kubeconfig, context)


def _validate(files: tuple[str, ...], platform_file: str | None, server: bool = False,
              kubeconfig: str | None = None, context: str | None = None) -> None:
    from ..dispatch import build_plugin_manager, task_types
    from ..platform import load_platform
    from ..schemas.documents import DocumentProblem, api_pod_check, validate_document
    from ..schemas.resources import crd_index

    manager = build_plugin_manager()
    platform = load_platform(platform_file) if platform_file else None
    index = crd_index(task_types(manager).values())
    api_client, namespace = None, "default"
    if server:
        from ..cluster import connect, context_namespace
        from .validate_server import server_problems

        api_client = connect(kubeconfig, context)
        namespace = context_namespace(kubeconfig, context)
    unreadable = False
    empty: list[str] = []  # inputs without a document: a command before them failed?
    problems: list[DocumentProblem] = []
    read: list[tuple[str, object]] = []
    count = 0
    for name in files:
        documents = _read(name)
        if documents is None:
            unreadable = True
            continue
        if not documents and name not in empty:
            empty.append(name)
        for number, document in enumerate(documents, start=1):
            count += 1
            read.append((f"{name}#{number}", document))
            if api_client is not None:
                problems += server_problems(document, f"{name}#{number}", api_client,
                                            namespace, lambda line: click.echo(line, err=True))
            else:
                problems += validate_document(document, f"{name}#{number}", index,
                                              api_pod_check)
    if empty:
        click.echo(f"error: {', '.join(empty)}: no documents to validate (fix: give a file "
                   "with manifests; in a pipe, check that the command before it succeeded)",
                   err=True)
    if not count and not unreadable:
        sys.exit(1)
    for problem in problems:
        click.echo(str(problem))
    violations = _policy_violations(read, platform, manager) if platform else {}
    for line in (line for lines in violations.values() for line in lines):
        click.echo(line)
    invalid = {p.document.split(".items[")[0] for p in problems if p.checked}
    unchecked = {p.document.split(".items[")[0] for p in problems if not p.checked} - invalid
    against = set(violations) - invalid - unchecked
    summary = (f"{count} document(s): {count - len(invalid | unchecked | against)} valid, "
               f"{len(invalid)} invalid, {len(unchecked)} not checked")
    if platform is not None:
        total = sum(map(len, violations.values()))
        summary += (f", {len(against)} against the policy ({total} policy violation(s) in "
                    f"{len(violations)} document(s))")
    if empty:
        summary += f", {len(empty)} input(s) without a document"
    click.echo(summary, err=True)
    sys.exit(2 if unreadable else 1 if problems or violations or empty else 0)


def _policy_violations(documents: list[tuple[str, object]], platform: Platform,
                       manager: pluggy.PluginManager) -> dict[str, list[str]]:
    """The platform policy over the pods of every document that is a manifest: each
    document's violations as ``FILE#N (Kind name): field.path: rule: value [policy]``."""
    from ..policy.manifests import check_manifests

    found: dict[str, list[str]] = {}
    for where, document in documents:
        if not isinstance(document, dict):
            continue
        lines = [_policy_line(where, document, v)
                 for v in check_manifests([(where, document)], platform, manager)]
        if lines:
            found[where] = lines
    return found


def _policy_line(where: str, document: dict[str, object], violation: Violation) -> str:
    from ..policy.violations import NOT_SET, compact

    metadata = document.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    what = " ".join(str(part) for part in (document.get("kind"), name) if part)
    pod = violation.role if violation.role and violation.role != document.get("kind") else ""
    path = f"{pod}.{violation.path}" if pod else violation.path
    value = "not set" if violation.value is NOT_SET else f"value {compact(violation.value)}"
    fix = f" (fix: {violation.fix})" if violation.fix else ""
    return f"{where} ({what}): {path}: {violation.rule}: {value}{fix} [policy]"


def _read(name: str) -> list[object] | None:
    """The documents of one input, or None after printing why it cannot be read."""
    from ..errors import YamlError
    from ..files.yamlio import load_all

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

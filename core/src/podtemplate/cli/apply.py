"""``podtemplate apply``: render, then server-side apply what was rendered."""

from __future__ import annotations

import sys
from typing import Any

import click

from .guard import clean_errors, debug_option
from .options import render_inputs

__all__ = ["apply_command"]


@click.command("apply")
@debug_option
@render_inputs
@click.option("--run-id", "run_id", metavar="ID",
              help="As for render: suffix every object name with -ID.")
@click.option("--dry-run", "dry_run", type=click.Choice(["none", "server"]), default="none",
              show_default=True, help="'server': the API server judges every object and "
              "says what would change; nothing is stored.")
@click.option("--force-conflicts", "force", is_flag=True,
              help="Take fields another field manager owns (kubectl's --force-conflicts).")
@click.option("--kubeconfig", help="kubeconfig file (default: platform.yaml kubeconfig, "
              "$KUBECONFIG, ~/.kube/config; in a pod, its service account).")
@click.option("--context", "kube_context", help="kubeconfig context (default: the current one).")
def apply_command(targets: tuple[str, ...], platform_file: str | None, templates: str | None,
                  namespace: str | None, override: str | None, inputs: tuple[str, ...],
                  run_id: str | None, dry_run: str, force: bool, kubeconfig: str | None,
                  kube_context: str | None) -> None:
    """Render every task of TARGET, then server-side apply the objects (field manager
    'podtemplate'), in dependency order. One line per object: created, configured or
    unchanged. Takes every option of render. Nothing is sent when the render fails.
    Exits 0 when everything applied, 1 when the server refused an object (one line: the
    object, the field path, the server's reason; a real apply stops there and names what
    was already applied), 2 for bad input."""
    clean_errors(_apply)(targets, platform_file, templates, namespace, override, inputs,
                         run_id, dry_run == "server", force, kubeconfig, kube_context)


def _apply(targets: tuple[str, ...], platform_file: str | None, templates: str | None,
           namespace: str | None, override: str | None, inputs: tuple[str, ...],
           run_id: str | None, dry_run: bool, force: bool, kubeconfig: str | None,
           kube_context: str | None) -> None:
    from ..cluster.apply import apply_manifests, apply_order, object_ref
    from ..cluster.session import default_namespace, open_cluster
    from ..inputs import parse_input_pairs
    from ..platform import load_platform
    from ..render import make_context, render_all
    from .targets import collect_tasks

    platform = load_platform(platform_file, templates=templates, namespace=namespace,
                             kubeconfig=kubeconfig, context=kube_context)
    context = make_context(platform=platform, override=override,
                           inputs=parse_input_pairs(inputs), run_id=run_id)
    manifests: list[dict[str, Any]] = render_all(collect_tasks(list(targets)), context)
    for warning in context.warnings:
        click.echo(f"warning: {warning}", err=True)
    api_client = open_cluster(platform.kubeconfig, platform.context)
    space = platform.namespace or default_namespace(platform.kubeconfig, platform.context)
    done: list[str] = []
    refused = 0
    refs = [object_ref(m) for m in apply_order(manifests)]
    try:
        for outcome in apply_manifests(api_client, manifests, namespace=space,
                                       dry_run=dry_run, force=force):
            if outcome.action != "refused":
                click.echo(outcome.line(dry_run))
                done.append(outcome.ref)
                continue
            refused += 1
            where = f" (namespace {outcome.namespace})" if outcome.namespace else ""
            click.echo(f"error: {outcome.ref}{where}: {outcome.problem}", err=True)
    except KeyboardInterrupt:  # Ctrl-C: what the cluster already has is said, not denied
        asked = len(done) + refused
        sending, unsent = refs[asked:asked + 1], refs[asked + 1:]
        said = ("a server dry run: nothing was stored" if dry_run else
                f"applied before the interruption: {', '.join(done) or 'nothing'}; "
                f"maybe applied (being sent): {', '.join(sending) or 'nothing'}; "
                f"not sent: {', '.join(unsent) or 'nothing'}")
        click.echo(f"\ninterrupted: {said}", err=True)
        sys.exit(130)
    if not refused:
        return
    if not dry_run:
        unsent = refs[len(done) + 1:]
        click.echo(f"error: applied before the refusal: {', '.join(done) or 'nothing'}; "
                   f"not sent: {', '.join(unsent) or 'nothing'}", err=True)
    sys.exit(1)

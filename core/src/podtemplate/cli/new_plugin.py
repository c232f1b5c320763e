"""``podtemplate new-plugin``: a new task type's distribution, from its operator's CRD."""

from __future__ import annotations

from pathlib import Path

import click

from .guard import clean_errors, debug_option

__all__ = ["new_plugin_command"]


@click.command("new-plugin")
@click.argument("name")
@click.option("--kind", required=True, help="The custom resource's kind (MPIJob).")
@click.option("--api-version", "api_version", required=True, metavar="GROUP/VERSION",
              help="The custom resource's apiVersion (kubeflow.org/v2beta1).")
@click.option("--roles", required=True, metavar="ROLE[=PATH],...",
              help="The pod roles, in manifest order (launcher,worker); PATH places a "
              "role's pod template where the CRD does not show it "
              "(worker=spec.workerTemplate).")
@click.option("--crd", "crd", required=True, type=click.Path(path_type=Path, dir_okay=False),
              help="The operator's CRD file (YAML or JSON), shipped slimmed as package data.")
@click.option("--into", type=click.Path(path_type=Path, file_okay=False), default=Path("."),
              show_default=True, help="Where to write the podtemplate-NAME folder.")
@debug_option
@clean_errors
def new_plugin_command(name: str, kind: str, api_version: str, roles: str, crd: Path,
                       into: Path) -> None:
    """Write podtemplate-NAME, a complete distribution for the task type NAME: pyproject
    with its entry point, config, roles, build, plugin class, the CRD as package data,
    py.typed, and tests that run the conformance kit (they pass as written)."""
    from ..scaffold import new_plugin, parse_roles

    root, written, plan = new_plugin(name, kind, api_version, parse_roles(roles), crd, into)
    for path in written:
        click.echo(f"wrote {path}", err=True)
    for role, template_path in plan.roles.items():
        click.echo(f"role {role}: its pod template at {template_path}", err=True)
    if plan.keyed:
        keys = ", ".join(plan.keyed.values())
        some = f"keys {keys} are" if len(plan.keyed) > 1 else f"key {keys} is"
        click.echo(f"check: the replica map {some} guessed from the role names (the "
                   f"CRD does not list them); if {plan.kind}'s operator expects others, edit "
                   "TEMPLATE_PATHS and REPLICAS_PATHS in roles.py", err=True)
    click.echo(f"next: pip install -e '{root}[test]' && cd {root} && pytest", err=True)

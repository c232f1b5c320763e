"""``podtemplate coverage`` and ``podtemplate plugins``: what the installed plugins are and
how much of a pod template reaches each of their pods."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from .guard import clean_errors, debug_option

__all__ = ["coverage_command", "plugins_command"]


@click.command("coverage")
@click.option("--plugin", "plugins", multiple=True, metavar="NAME",
              help="A task type (or its distribution) to cover; repeatable. Default: all.")
@click.option("--format", "fmt", type=click.Choice(["table", "markdown", "json", "html"]),
              default="table", show_default=True)
@click.option("--output", "-o", default="-", show_default=True,
              help="'-' for stdout, or a file to write.")
@click.option("--schema", type=click.Path(dir_okay=False, exists=True),
              help="Kubernetes OpenAPI document to build the probe from (default: the "
              "pod schema podtemplate ships).")
@click.option("--allow-unverified", is_flag=True,
              help="Exit 0 even when a task type's custom resources cannot be checked "
              "against its CRD (shown as unverified).")
@debug_option
def coverage_command(plugins: tuple[str, ...], fmt: str, output: str,
                     schema: str | None, allow_unverified: bool) -> None:
    """The matrix of task type x role x field: applied, operator-owned, unsupported
    (reason) or LOST. Exits 1 when a field is LOST, a conformance check fails, or a task
    type is unverified (no CRD to check its custom resources) without --allow-unverified."""
    clean_errors(_coverage)(plugins, fmt, output, schema, allow_unverified)


def _coverage(plugins: tuple[str, ...], fmt: str, output: str, schema: str | None,
              allow_unverified: bool) -> None:
    from ..conformance.probe import build_probe, default_probe
    from ..coverage.html import to_html
    from ..coverage.matrix import coverage
    from ..coverage.text import to_json, to_markdown, to_table
    from ..schemas.source import load_schema_source
    from .output import write_file

    probe = build_probe(load_schema_source(schema)) if schema else default_probe()
    report = coverage(_select(plugins), probe=probe, allow_unverified=allow_unverified)
    writer = {"table": to_table, "markdown": to_markdown, "json": to_json, "html": to_html}
    text = writer[fmt](report)
    if output == "-":
        click.echo(text, nl=False)
    else:
        write_file(Path(output), text)
        click.echo(f"wrote {output}", err=True)
    if report.failed:
        click.echo(f"coverage: {report.lost} field(s) LOST; "
                   f"{sum(len(p.problems) for p in report.plugins)} conformance failure(s); "
                   f"{len(report.unverified)} task type(s) unverified", err=True)
        sys.exit(1)


def _select(names: tuple[str, ...]) -> list[str] | None:
    """Task types named directly or through their distribution."""
    from ..dispatch import build_plugin_manager, task_types
    from ..errors import PluginError

    if not names:
        return None
    installed = task_types(build_plugin_manager())
    chosen: list[str] = []
    for name in names:
        matches = [t for t, info in installed.items() if name in (t, info.distribution)]
        if not matches:
            raise PluginError(f"no installed plugin named {name!r}",
                              fix=f"choose from: {', '.join(sorted(installed))}")
        chosen += [m for m in matches if m not in chosen]
    return chosen


@click.command("plugins")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@debug_option
def plugins_command(fmt: str) -> None:
    """Installed plugins: distribution, version, task types and their roles."""
    clean_errors(_plugins)(fmt)


def _plugins(fmt: str) -> None:
    from ..dispatch import build_plugin_manager, plugin_infos

    manager = build_plugin_manager()
    entries: list[dict[str, Any]] = []
    for info in plugin_infos(manager):
        entries.append({
            "plugin": info.name, "distribution": info.distribution, "version": info.version,
            "taskTypes": [_task_type(manager, t) for t in info.task_types],
        })
    if fmt == "json":
        click.echo(json.dumps(entries, indent=2))
        return
    for entry in entries:
        click.echo(f"{entry['plugin']}  {entry['distribution']} {entry['version']}")
        for task_type in entry["taskTypes"]:
            roles = ", ".join(task_type["roles"]) or task_type.get("rolesError", "-")
            crd = "".join(f", CRD {c['file']} ({c['operator']})" for c in task_type["crds"])
            click.echo(f"  {task_type['name']}: {task_type['apiVersion']} "
                       f"{task_type['kind']}{crd}; roles: {roles}")


def _crd_entry(location: str) -> dict[str, Any]:
    from ..schemas.crd import shipped_crd

    crd = shipped_crd(location)
    return {"file": crd.file, "apiVersions": list(crd.api_versions()), "kind": crd.kind,
            "operator": crd.operator, "license": crd.source.get("license")}


def _task_type(manager: Any, task_type: Any) -> dict[str, Any]:
    from ..dispatch import define_roles, make_sample_task
    from ..errors import PodTemplateError
    from ..render import make_context

    entry: dict[str, Any] = {"name": task_type.name, "kind": task_type.kind,
                             "apiVersion": task_type.api_version,
                             "crds": [_crd_entry(ref) for ref in task_type.crds],
                             "description": task_type.description, "roles": []}
    try:
        task = make_sample_task(manager, task_type.name)
        roles = define_roles(task, make_context(plugin_manager=manager))
        entry["roles"] = [role.name for role in roles]
    except PodTemplateError as error:
        entry["rolesError"] = f"(roles unknown: {error})"
    return entry

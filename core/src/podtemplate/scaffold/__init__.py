"""``podtemplate new-plugin``: a complete task-type distribution from an operator's CRD.

:func:`new_plugin` checks the request against the CRD (kind, API version, where each
role's pod template sits), then writes the distribution of :mod:`.files` and the CRD,
slimmed, as its package data. Its conformance kit passes as written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from ..errors import ScaffoldError
from ..schemas.slim import dumps, slim_file
from .crd_paths import replicas_path, restart_path, role_paths, skeleton, storage_schema
from .files import Plan, files

__all__ = ["new_plugin", "parse_roles", "plan"]

_NAME = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")


def _role_fix(role: str) -> str:
    """A role named as an operator's replica map keys it (``JobRunner``) is written
    lowercase with dashes; the key is derived from that again."""
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", role.strip()).lower()
    if _NAME.fullmatch(name) and len(name) <= 63:
        return f"--roles {name}; a replica map's key {role} is derived from it"
    return "name roles like worker, job-runner"


def parse_roles(text: str) -> list[tuple[str, str | None]]:
    """``a,b`` or ``a=spec.x.template,b`` as (role, template path or None) pairs."""
    pairs: list[tuple[str, str | None]] = []
    for item in (part.strip() for part in text.split(",")):
        role, _, path = item.partition("=")
        if not _NAME.fullmatch(role) or len(role) > 63:
            raise ScaffoldError(f"role name {role!r} is not a lowercase DNS-1123 label",
                                field="--roles", fix=_role_fix(role))
        pairs.append((role, path.strip() or None))
    roles = [role for role, _ in pairs]
    if len(set(roles)) != len(roles):
        raise ScaffoldError("a role is named twice", field="--roles",
                            fix="name each role once")
    return pairs


def plan(name: str, kind: str, api_version: str, roles: Sequence[tuple[str, str | None]],
         crd: Path) -> tuple[Plan, str]:
    """The plan of the distribution, and the slimmed CRD's text."""
    if not _NAME.fullmatch(name) or len(name) > 40:
        raise ScaffoldError(f"task type name {name!r} is not a lowercase name such as "
                            "'mpi' or 'my-job'", field="NAME",
                            fix="use lowercase letters, digits and dashes, a letter first")
    _, _, slimmed = slim_file(crd)
    names, group = slimmed["spec"]["names"], slimmed["spec"]["group"]
    version = slimmed["spec"]["versions"][0]["name"]
    if names.get("kind") != kind:
        raise ScaffoldError(f"the CRD is of kind {names.get('kind')!r}, not {kind!r}",
                            file=str(crd), field="--kind", fix=f"--kind {names.get('kind')}")
    if api_version != f"{group}/{version}":
        raise ScaffoldError(f"the CRD stores {group}/{version}, not {api_version}",
                            file=str(crd), field="--api-version",
                            fix=f"--api-version {group}/{version}")
    schema = storage_schema(slimmed)
    paths, keyed = role_paths(schema, roles)
    spec_schema = (schema.get("properties") or {}).get("spec") or {}
    on_paths = {path.split(".")[1] for path in paths.values()
                if path.startswith("spec.") and path.count(".") >= 2}
    replicas = {role: found for role, path in paths.items()
                if (found := replicas_path(schema, path)) is not None}
    return (Plan(name=name, kind=kind, api_version=api_version, roles=paths,
                 replicas=replicas, keyed=keyed,
                 restarts={role: found for role, path in paths.items()
                           if (found := restart_path(schema, path)) is not None},
                 crd_file=f"{group}_{names['plural']}.json",
                 spec=skeleton(spec_schema, on_paths)), dumps(slimmed))


def new_plugin(name: str, kind: str, api_version: str, roles: Sequence[tuple[str, str | None]],
               crd: Path, into: Path) -> tuple[Path, list[Path], Plan]:
    """Write the distribution ``podtemplate-<name>`` into ``into``; returns its folder,
    the files written and the plan they follow. Nothing is written when anything is
    wrong."""
    layout, crd_text = plan(name, kind, api_version, roles, crd)
    root = into / layout.distribution
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise ScaffoldError(f"{root} exists and is not empty", field="--into",
                            fix="remove it, or write into another folder with --into")
    texts = {root / path: text for path, text in files(layout).items()}
    texts[root / "src" / layout.package / "crds" / layout.crd_file] = crd_text
    for path, text in texts.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root, list(texts), layout

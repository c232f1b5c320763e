"""``podtemplate validate --server``: the verdicts of a real cluster's API server (a
dry-run server-side apply of each document), in offline validate's format."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..cluster import dry_run
from ..schemas.documents import (
    NOT_CHECKED,
    DocumentProblem,
    describe,
    list_items,
    not_an_object,
)

__all__ = ["server_problems"]


def server_problems(document: Any, where: str, api_client: Any, namespace: str,
                    warn: Callable[[str], None]) -> list[DocumentProblem]:
    """Every problem the server finds in one parsed document (each item of a ``v1 List``
    on its own); a kind the server does not serve is *not checked*. The server's warnings
    (a deprecated label, say) go to ``warn``, one line each."""
    problems = not_an_object(document, where)
    if problems:
        return problems
    items = list_items(document, where)
    if items is not None:
        return [problem for item, at in items
                for problem in server_problems(item, at, api_client, namespace, warn)]
    what = describe(document)
    verdict = dry_run(api_client, document, namespace=namespace)
    for text in verdict.warnings:
        warn(f"{where} ({what}): warning: {text}")
    if verdict.accepted:
        return []
    if verdict.status == 404 and verdict.reason == "NotFound" and verdict.causes[0].field == "kind":
        return [DocumentProblem(where, what, "", NOT_CHECKED, verdict.message)]
    return [DocumentProblem(where, what, cause.field, f"server {cause.reason or verdict.reason}",
                            cause.message or verdict.message) for cause in verdict.causes]

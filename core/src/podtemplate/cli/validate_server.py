"""``podtemplate validate --server``: the verdicts of a real cluster's API server (a
dry-run server-side apply of each document), in offline validate's format."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..cluster import dry_run
from ..schemas.documents import NOT_CHECKED, DocumentProblem

__all__ = ["server_problems"]


def server_problems(document: Any, where: str, api_client: Any,
                    namespace: str) -> list[DocumentProblem]:
    """Every problem the server finds in one parsed document (each item of a ``v1 List``
    on its own); a kind the server does not serve is *not checked*."""
    if not isinstance(document, Mapping):
        return [DocumentProblem(where, "", "", "document", f"a {type(document).__name__}, not "
                                "a Kubernetes object (a mapping with apiVersion and kind)")]
    api_version, kind = document.get("apiVersion"), document.get("kind")
    metadata = document.get("metadata")
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    what = " ".join(str(part) for part in (kind, name) if part)
    missing = [key for key, value in (("apiVersion", api_version), ("kind", kind))
               if not isinstance(value, str) or not value]
    if missing:
        return [DocumentProblem(where, what, "", "document",
                                f"no {' and no '.join(missing)}: every Kubernetes object "
                                "names its apiVersion and kind")]
    if api_version == "v1" and kind == "List":
        return [problem for number, item in enumerate(document.get("items") or ())
                for problem in server_problems(item, f"{where}.items[{number}]", api_client,
                                               namespace)]
    verdict = dry_run(api_client, document, namespace=namespace)
    if verdict.accepted:
        return []
    if verdict.status == 404 and verdict.reason == "NotFound" and verdict.causes[0].field == "kind":
        return [DocumentProblem(where, what, "", NOT_CHECKED, verdict.message)]
    return [DocumentProblem(where, what, cause.field, f"server {cause.reason or verdict.reason}",
                            cause.message or verdict.message) for cause in verdict.causes]

"""The API server's own verdict on a manifest: a server-side apply (or, for an object
with only ``generateName``, a create) with ``dryRun=All`` and ``fieldValidation=Strict``.
Nothing is written; decoding, defaulting, admission and validation all run, and for a
custom resource the CRD's schema, pruning and CEL rules."""

from __future__ import annotations

import json
import re
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .connect import Answer, request, status_error

__all__ = ["FIELD_MANAGER", "Cause", "Verdict", "answer_verdict", "dry_run", "rbac_refusal",
           "resource_path"]

FIELD_MANAGER = "podtemplate"
_RESOURCES: weakref.WeakKeyDictionary[Any, dict[str, dict[str, tuple[str, bool]] | None]] = (
    weakref.WeakKeyDictionary())
# strict decoding errors name each unknown or duplicate field in the Status message
_RBAC = re.compile(r'is forbidden: User "[^"]*" cannot ')
_STRICT = re.compile(r'(unknown|duplicate) field "([^"]*)"')
_UNDECLARED = re.compile(r'(\.\S+): field not declared in schema')
_SEGMENT = re.compile(r'\.([^.\[]+)|\[((?:[^\]"]|"(?:[^"\\]|\\.)*")*)\]')
_KEY_VALUE = re.compile(r'([^,=]*)=("(?:[^"\\]|\\.)*"|[^,]*)')


@dataclass(frozen=True)
class Cause:
    """One reason the server gives: a field path (``spec.containers[0].image``; empty
    for the object as a whole), the server's reason (``FieldValueRequired``...) and its
    message."""

    field: str
    reason: str
    message: str


@dataclass(frozen=True)
class Verdict:
    """The server's verdict on one manifest. ``object`` is the object as the server would
    have stored it (defaulted, pruned) when accepted."""

    accepted: bool
    status: int
    reason: str = ""
    message: str = ""
    causes: tuple[Cause, ...] = ()
    warnings: tuple[str, ...] = ()
    object: Mapping[str, Any] | None = field(default=None, repr=False)


def _discovery(api_client: Any, api_version: str) -> dict[str, tuple[str, bool]] | None:
    """``{kind: (plural, namespaced)}`` of one group version, or None when not served."""
    cached = _RESOURCES.setdefault(api_client, {})
    if api_version not in cached:
        path = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
        answer = request(api_client, "GET", path)
        if answer.status == 404:
            cached[api_version] = None
        elif not answer.ok:
            raise status_error(answer, f"discover the resources of {api_version}")
        else:
            cached[api_version] = {
                item["kind"]: (item["name"], bool(item.get("namespaced")))
                for item in answer.body.get("resources", ()) if "/" not in item["name"]}
    return cached[api_version]


def resource_path(api_client: Any, manifest: Mapping[str, Any],
                  namespace: str = "default") -> str | None:
    """The collection path of ``manifest``'s kind (``/api/v1/namespaces/ns/pods``), or
    None when the server does not serve that kind."""
    api_version, kind = manifest.get("apiVersion"), manifest.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return None
    resources = _discovery(api_client, api_version)
    if resources is None or kind not in resources:
        return None
    plural, namespaced = resources[kind]
    base = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
    metadata = manifest.get("metadata") if isinstance(manifest.get("metadata"), Mapping) else {}
    space = (metadata or {}).get("namespace") or namespace
    return f"{base}/namespaces/{space}/{plural}" if namespaced else f"{base}/{plural}"


def dry_run(api_client: Any, manifest: Mapping[str, Any], *,
            namespace: str = "default") -> Verdict:
    """The server's verdict on ``manifest`` (in its own namespace, else ``namespace``):
    server-side apply as field manager ``podtemplate`` with ``force``, ``dryRun=All`` and
    ``fieldValidation=Strict``; a create when it has no name. Raises ClusterError only
    when the server cannot be asked (unreachable, 401, 403)."""
    collection = resource_path(api_client, manifest, namespace)
    if collection is None:
        return Verdict(False, 404, "NotFound",
                       f"the server serves no kind {manifest.get('kind')!r} in apiVersion "
                       f"{manifest.get('apiVersion')!r}",
                       (Cause("kind", "NotFound", "no such kind on this server (is its CRD "
                              "installed?)"),))
    metadata = manifest.get("metadata")
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    query = [("dryRun", "All"), ("fieldValidation", "Strict"), ("fieldManager", FIELD_MANAGER)]
    if isinstance(name, str) and name:
        answer = request(api_client, "PATCH", f"{collection}/{name}", body=manifest,
                         query=[*query, ("force", "true")],
                         content_type="application/apply-patch+yaml")
    else:
        answer = request(api_client, "POST", collection, body=manifest, query=query)
    if answer.status == 401 or (answer.status == 403 and rbac_refusal(answer)):
        raise status_error(answer, f"{'apply' if name else 'create'} {collection}")
    # a 403 from admission (a missing ServiceAccount) is a verdict on the manifest
    return answer_verdict(answer, manifest)


def rbac_refusal(answer: Answer) -> bool:
    """Whether a 403 is RBAC's (the user may not) rather than an admission plugin's."""
    message = answer.body.get("message") if isinstance(answer.body, Mapping) else None
    return bool(_RBAC.search(str(message or "")))


def _manifest_path(path: str, manifest: Mapping[str, Any]) -> str:
    """Server-side apply's field path (``.spec.containers[name="main"].image``) as the
    manifest's (``spec.containers[0].image``): a list item named by its keys becomes its
    index in the manifest."""
    text = ""
    node: Any = manifest
    for key, selector in _SEGMENT.findall(path):
        if key:
            text += f".{key}" if text else key
            node = node.get(key) if isinstance(node, Mapping) else None
            continue
        index = _item_index(selector, node)
        text += f"[{selector if index is None else index}]"
        node = node[index] if index is not None and isinstance(node, list) else None
    return text


def _item_index(selector: str, items: Any) -> int | None:
    """The index in ``items`` of the item ``selector`` names (``name="main"``, ``3``,
    ``="value"``), or None."""
    if not isinstance(items, list):
        return None
    if selector.isdigit():
        return int(selector) if int(selector) < len(items) else None
    wanted = {}
    for key, value in _KEY_VALUE.findall(selector):
        try:
            wanted[key] = json.loads(value)
        except ValueError:
            return None
    for index, item in enumerate(items):
        if ("" in wanted and item == wanted[""]) or (
                isinstance(item, Mapping) and wanted
                and all(item.get(k) == v for k, v in wanted.items())):
            return index
    return None


def answer_verdict(answer: Answer, manifest: Mapping[str, Any]) -> Verdict:
    body = answer.body if isinstance(answer.body, Mapping) else {}
    if answer.ok:
        return Verdict(True, answer.status, warnings=answer.warnings, object=body)
    message = str(body.get("message") or "")
    details = body.get("details") if isinstance(body.get("details"), Mapping) else {}
    causes = tuple(Cause(str(c.get("field") or ""), str(c.get("reason") or ""),
                         str(c.get("message") or ""))
                   for c in (details or {}).get("causes") or () if isinstance(c, Mapping))
    if not causes:  # an unknown field: a strict decoding error, or SSA's typed patch error
        causes = tuple(Cause(path.lstrip("."), f"{kind.capitalize()}Field", f"{kind} field")
                       for kind, path in _STRICT.findall(message))
        causes += tuple(Cause(_manifest_path(path, manifest), "UnknownField",
                              "unknown field (not declared in the schema)")
                        for path in _UNDECLARED.findall(message))
    return Verdict(False, answer.status, str(body.get("reason") or ""), message,
                   causes or (Cause("", str(body.get("reason") or answer.status), message),),
                   answer.warnings)


"""The cluster's PodTemplates, read for a render (``templates: cluster``; the plugin that
makes this store is :mod:`.store`). Each namespace is listed at most once per render
(one LIST, all pages), the first time a template is looked up in it; an object is parsed
(and validated) only when a task uses it, so one broken template fails only the tasks
that name it. Its ``source`` is ``namespace/name (resourceVersion N)``: ``explain`` names
it where a folder template names file:line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ClusterError, PodTemplateError
from ..files.store import object_source
from ..model.templates import PodTemplate
from .connect import request, status_error
from .defaults import without_server_defaults

__all__ = ["ClusterTemplateStore"]

_PAGE = "500"


class ClusterTemplateStore:
    """The PodTemplates of a cluster, by namespace, read through ``api_client``."""

    #: How a missing template is added (the fix of find_template's error).
    add_hint = ("create it in one of those namespaces (kubectl apply -f a kind: PodTemplate "
                "file, as for Flyte)")

    def __init__(self, api_client: Any) -> None:
        self._api = api_client
        self._listed: dict[str, dict[str, Mapping[str, Any]]] = {}
        self._parsed: dict[tuple[str, str], PodTemplate] = {}
        #: Every LIST this store made, by namespace (tests read it).
        self.lists: list[str] = []

    def get(self, namespace: str, name: str) -> PodTemplate | None:
        item = self._objects(namespace).get(name)
        if item is None:
            return None
        key = (namespace, name)
        if key not in self._parsed:
            self._parsed[key] = _template(namespace, name, item)
        return self._parsed[key]

    def names(self) -> list[tuple[str, str]]:
        """Every (namespace, name) of the namespaces listed so far: the namespaces in
        lookup order, the names of each sorted."""
        return [(ns, name) for ns, items in self._listed.items() for name in sorted(items)]

    def _objects(self, namespace: str) -> dict[str, Mapping[str, Any]]:
        if namespace not in self._listed:
            self._listed[namespace] = self._list(namespace)
        return self._listed[namespace]

    def _list(self, namespace: str) -> dict[str, Mapping[str, Any]]:
        self.lists.append(namespace)
        items: dict[str, Mapping[str, Any]] = {}
        token = ""
        while True:
            query = [("limit", _PAGE)] + ([("continue", token)] if token else [])
            answer = request(self._api, "GET", f"/api/v1/namespaces/{namespace}/podtemplates",
                             query=query)
            if answer.status == 403:
                raise _forbidden(namespace, answer.body)
            if not answer.ok:
                raise status_error(answer, f"list the PodTemplates of namespace {namespace}")
            body = answer.body if isinstance(answer.body, Mapping) else {}
            for item in body.get("items") or ():
                items[str(item["metadata"]["name"])] = item
            token = str((body.get("metadata") or {}).get("continue") or "")
            if not token:
                return items


def _forbidden(namespace: str, body: Any) -> ClusterError:
    message = body.get("message") if isinstance(body, Mapping) else None
    who = f" ({' '.join(str(message).split())})" if message else ""
    return ClusterError(
        f"permission denied (403) to list PodTemplates in namespace {namespace}{who}",
        fix=f"ask a cluster admin for a Role in {namespace} allowing get and list on "
        "podtemplates (kubectl create role podtemplate-reader --verb=get,list "
        f"--resource=podtemplates -n {namespace}, and a RoleBinding to your user), or use "
        "--context with a user that has one")


def _template(namespace: str, name: str, item: Mapping[str, Any]) -> PodTemplate:
    """The object's ``.template`` as a PodTemplate whose source names the object, without
    what the server defaulted (cluster/defaults.py)."""
    metadata = item.get("metadata") or {}
    source = object_source(namespace, name, str(metadata.get("resourceVersion") or "?"))
    body = item.get("template") or {}
    pod_metadata = {k: v for k, v in (body.get("metadata") or {}).items()
                    if k in ("labels", "annotations")}
    document = {"apiVersion": "v1", "kind": "PodTemplate",
                "metadata": {"name": name, "namespace": namespace},
                "template": {"metadata": pod_metadata,
                             "spec": without_server_defaults(body.get("spec") or {})}}
    try:
        return PodTemplate.from_manifest(document, source=source)
    except PodTemplateError as error:
        raise error.located(file=source) from None

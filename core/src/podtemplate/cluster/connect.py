"""Connecting to a cluster from a kubeconfig, and the requests podtemplate makes to it,
with every failure as one :class:`~podtemplate.errors.ClusterError` line carrying the fix."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlencode

from ..errors import ClusterError

__all__ = ["Answer", "config_module", "connect", "context_namespace", "kubeconfig_path", "request",
           "status_error"]

_TIMEOUT = 30.0


class Answer(NamedTuple):
    """One HTTP answer of the API server: status, decoded JSON body (None when the body
    is not JSON) and the ``Warning`` headers' texts."""

    status: int
    body: Any
    warnings: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


def kubeconfig_path(kubeconfig: str | os.PathLike[str] | None) -> Path:
    """The kubeconfig to read: ``kubeconfig``, else the first file of ``$KUBECONFIG``,
    else ``~/.kube/config``."""
    if kubeconfig is not None:
        return Path(kubeconfig)
    listed = [part for part in os.environ.get("KUBECONFIG", "").split(os.pathsep) if part]
    return Path(listed[0]) if listed else Path.home() / ".kube" / "config"


def connect(kubeconfig: str | os.PathLike[str] | None = None,
            context: str | None = None) -> Any:
    """A ``kubernetes.client.ApiClient`` for ``context`` (default: the kubeconfig's current
    context) of ``kubeconfig`` (default: ``$KUBECONFIG``, else ``~/.kube/config``), after
    one request that proves the server answers and accepts the credentials."""
    from kubernetes import client as k8s
    from kubernetes.config.config_exception import ConfigException

    k8s_config = config_module()

    path = kubeconfig_path(kubeconfig)
    if not path.is_file():
        raise ClusterError(f"kubeconfig '{path}' not found",
                           fix="pass --kubeconfig FILE or set KUBECONFIG to your cluster's "
                           "kubeconfig")
    try:
        contexts, current = k8s_config.list_kube_config_contexts(config_file=str(path))
    except (ConfigException, OSError, ValueError, TypeError, AttributeError) as error:
        raise ClusterError(f"kubeconfig '{path}' cannot be read: {_line(error)}",
                           fix="check the file is a kubeconfig (kubectl config view)") from None
    names = [entry.get("name") for entry in contexts or () if isinstance(entry, Mapping)]
    chosen = context or (current or {}).get("name")
    if chosen not in names:
        known = ", ".join(f"'{name}'" for name in names) or "none"
        raise ClusterError(f"context '{chosen}' is not in kubeconfig '{path}' (contexts: {known})",
                           fix="pass --context with one of them (kubectl config get-contexts)")
    configuration = k8s.Configuration()
    try:
        k8s_config.load_kube_config(config_file=str(path), context=chosen,
                                    client_configuration=configuration, persist_config=False)
    except (ConfigException, OSError, ValueError, TypeError) as error:
        raise ClusterError(f"kubeconfig '{path}', context '{chosen}': {_line(error)}",
                           fix="repair the context's cluster and user entries") from None
    return vetted_client(configuration)


def vetted_client(configuration: Any) -> Any:
    """An ``ApiClient`` on ``configuration``, after one request that proves the server
    answers and accepts the credentials (a ClusterError line otherwise)."""
    from kubernetes import client as k8s

    configuration.retries = 1
    api_client = k8s.ApiClient(configuration)
    answer = request(api_client, "GET", "/version")
    if not answer.ok:
        raise status_error(answer, "read the server's version")
    return api_client


def context_namespace(kubeconfig: str | os.PathLike[str] | None = None,
                      context: str | None = None) -> str:
    """The namespace of ``context`` (default: the current one), else ``default``; call
    after :func:`connect` has vetted the kubeconfig and context."""
    contexts, current = config_module().list_kube_config_contexts(
        config_file=str(kubeconfig_path(kubeconfig)))
    chosen = context or (current or {}).get("name")
    for entry in contexts or ():
        if entry.get("name") == chosen:
            return str((entry.get("context") or {}).get("namespace") or "default")
    return "default"


def request(api_client: Any, method: str, path: str, *, body: Any = None,
            query: Sequence[tuple[str, str]] = (),
            content_type: str = "application/json") -> Answer:
    """One request with the client's credentials and TLS settings. Raises ClusterError
    only when the server cannot be reached; any HTTP status is an :class:`Answer`."""
    import urllib3

    configuration = api_client.configuration
    headers = {"Accept": "application/json", "Content-Type": content_type,
               "User-Agent": "podtemplate"}
    query_params: list[tuple[str, str]] = list(query)
    for setting in configuration.auth_settings().values():  # the bearer token, if any
        if setting.get("in") == "header" and setting.get("value"):
            headers[setting["key"]] = setting["value"]
    url = configuration.host + path + (f"?{urlencode(query_params)}" if query_params else "")
    data = None if body is None else json.dumps(body)
    try:
        response = api_client.rest_client.pool_manager.request(
            method, url, body=data, headers=headers, timeout=_TIMEOUT, preload_content=True)
    except urllib3.exceptions.HTTPError as error:
        raise ClusterError(f"cannot reach the API server at {configuration.host}: "
                           f"{_reason(error)}",
                           fix="check that the cluster is running and that the kubeconfig's "
                           "server address and certificate authority are right") from None
    try:
        decoded = json.loads(response.data) if response.data else None
    except ValueError:
        decoded = None
    return Answer(response.status, decoded, _warnings(response.headers))


def config_module() -> Any:
    """``kubernetes.config`` (its loaders are untyped)."""
    from kubernetes import config

    return config


def status_error(answer: Answer, doing: str) -> ClusterError:
    """The ClusterError for an answer that is not a success."""
    message = _line(answer.body.get("message")) if isinstance(answer.body, Mapping) else ""
    if answer.status == 401:
        return ClusterError(f"the API server refused the credentials (401 Unauthorized) while "
                            f"trying to {doing}",
                            fix="log in again or refresh the token or certificate in the "
                            "kubeconfig")
    if answer.status == 403:
        return ClusterError(f"permission denied (403) to {doing}: {message}",
                            fix="ask a cluster admin for an RBAC role that allows it, or use "
                            "--context with a user that has one")
    return ClusterError(f"the API server answered {answer.status} to '{doing}': "
                        f"{message or 'no message'}",
                        fix="check the server's logs or retry")


def _warnings(headers: Any) -> tuple[str, ...]:
    """``Warning: 299 - "text"`` headers as their texts."""
    values = headers.getlist("Warning") if hasattr(headers, "getlist") else []
    texts = []
    for value in values:
        code, _, rest = value.partition(" ")
        _agent, _, text = rest.partition(" ")
        if not code.isdigit():
            text = value
        if text.startswith('"') and text.endswith('"'):
            text = text[1:-1].replace('\\"', '"').replace("\\\\", "\\")
        texts.append(text)
    return tuple(texts)


def _reason(error: Exception) -> str:
    reason = getattr(error, "reason", None)
    text = str(reason or error)
    if "Connection refused" in text:
        return "connection refused"
    if "CERTIFICATE_VERIFY_FAILED" in text or "SSLError" in text:
        return f"TLS verification failed ({_line(text)[-120:]})"
    return _line(text)[-200:]


def _line(value: object) -> str:
    return " ".join(str(value or "").split())

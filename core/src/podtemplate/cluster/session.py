"""Which cluster a command talks to: a kubeconfig's context (:func:`.connect.connect`),
or, inside a pod with no kubeconfig, the pod's own service account, as kubectl and
client-go do."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..errors import ClusterError
from .connect import (
    config_module,
    connect,
    context_namespace,
    kubeconfig_path,
    vetted_client,
)

__all__ = ["IN_CLUSTER_NAMESPACE", "default_namespace", "in_pod", "open_cluster"]

# Where Kubernetes mounts a pod's service account namespace.
IN_CLUSTER_NAMESPACE = Path("/var/run/secrets/kubernetes.io/serviceaccount/namespace")


def in_pod() -> bool:
    """Whether this process runs in a pod (Kubernetes sets KUBERNETES_SERVICE_HOST)."""
    return bool(os.environ.get("KUBERNETES_SERVICE_HOST"))


def _use_in_cluster(kubeconfig: str | os.PathLike[str] | None, context: str | None) -> bool:
    """No kubeconfig asked for or found, and a pod around us."""
    return (kubeconfig is None and context is None and in_pod()
            and not kubeconfig_path(None).is_file())


def open_cluster(kubeconfig: str | os.PathLike[str] | None = None,
                 context: str | None = None) -> Any:
    """A ``kubernetes.client.ApiClient``: the kubeconfig's ``context`` (both default as
    kubectl's), or in a pod without a kubeconfig, the pod's service account. Every
    failure is one ClusterError line with the fix."""
    if not _use_in_cluster(kubeconfig, context):
        return connect(kubeconfig, context)
    from kubernetes import client as k8s
    from kubernetes.config.config_exception import ConfigException

    configuration = k8s.Configuration()
    try:
        config_module().load_incluster_config(client_configuration=configuration)
    except (ConfigException, OSError) as error:
        raise ClusterError(f"in-cluster configuration cannot be read: {error}",
                           fix="mount the pod's service account token "
                           "(automountServiceAccountToken: true) or pass --kubeconfig") from None
    return vetted_client(configuration)


def default_namespace(kubeconfig: str | os.PathLike[str] | None = None,
                      context: str | None = None) -> str:
    """The namespace objects without one go to: the context's (kubectl's rule), in a pod
    the pod's own; ``default`` otherwise. Call after :func:`open_cluster`."""
    if _use_in_cluster(kubeconfig, context):
        try:
            return IN_CLUSTER_NAMESPACE.read_text(encoding="utf-8").strip() or "default"
        except OSError:
            return "default"
    return context_namespace(kubeconfig, context)

"""podtemplate and a real cluster: :func:`connect` reads a kubeconfig and returns a
``kubernetes.client.ApiClient`` (each failure one ClusterError line with the fix), and
:func:`dry_run` asks the API server for its verdict on a manifest without writing it."""

from __future__ import annotations

from .connect import Answer, connect, context_namespace, kubeconfig_path, request, status_error
from .dryrun import FIELD_MANAGER, Cause, Verdict, dry_run, resource_path

__all__ = ["FIELD_MANAGER", "Answer", "Cause", "Verdict", "connect", "context_namespace", "dry_run",
           "kubeconfig_path", "request", "resource_path", "status_error"]

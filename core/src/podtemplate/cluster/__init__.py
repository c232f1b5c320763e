"""podtemplate and a real cluster: :func:`connect` reads a kubeconfig and returns a
``kubernetes.client.ApiClient`` (each failure one ClusterError line with the fix), and
:func:`dry_run` asks the API server for its verdict on a manifest without writing it.

The names of ``dryrun`` are imported on first use (PEP 562): a render that reads no
cluster loads the built-in cluster store's plugin module only."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _on_first_use

# Imported now: the submodule ``connect`` would otherwise shadow the function of its name.
from .connect import Answer, connect, context_namespace, kubeconfig_path, request, status_error

if TYPE_CHECKING:
    from .dryrun import FIELD_MANAGER, Cause, Verdict, dry_run, resource_path

_LATER = dict.fromkeys(("FIELD_MANAGER", "Cause", "Verdict", "dry_run", "resource_path"),
                       ".dryrun")

__all__ = ["FIELD_MANAGER", "Answer", "Cause", "Verdict", "connect", "context_namespace", "dry_run",
           "kubeconfig_path", "request", "resource_path", "status_error"]


__getattr__ = _on_first_use(__name__, _LATER)

"""podtemplate and a real cluster: :func:`connect` reads a kubeconfig and returns a
``kubernetes.client.ApiClient`` (each failure one ClusterError line with the fix), and
:func:`dry_run` asks the API server for its verdict on a manifest without writing it.

The names of ``dryrun`` are imported on first use (PEP 562): a render that reads no
cluster loads the built-in cluster store's plugin module only."""

from __future__ import annotations

import importlib as _importlib
from typing import TYPE_CHECKING, Any

# Imported now: the submodule ``connect`` would otherwise shadow the function of its name.
from .connect import Answer, connect, context_namespace, kubeconfig_path, request, status_error

if TYPE_CHECKING:
    from .dryrun import FIELD_MANAGER, Cause, Verdict, dry_run, resource_path

_LATER = ("FIELD_MANAGER", "Cause", "Verdict", "dry_run", "resource_path")

__all__ = ["FIELD_MANAGER", "Answer", "Cause", "Verdict", "connect", "context_namespace", "dry_run",
           "kubeconfig_path", "request", "resource_path", "status_error"]


def __getattr__(name: str) -> Any:
    if name not in _LATER:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(".dryrun", __name__), name)
    globals()[name] = value
    return value

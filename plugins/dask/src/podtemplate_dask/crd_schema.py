"""The DaskJob CRD's pod schema (Kubernetes 1.21) at render time.

The API server prunes every field a CRD's structural schema does not know, so a newer pod
field (``spec.os``, ``resizePolicy``, ``schedulingGates``...) set in a template would vanish
without a word once applied; with kubectl's default strict field validation the apply
fails instead. This module strips such fields from a role's resolved pod and returns their
paths, so the plugin warns about each one: the manifest then says exactly what the
cluster will run, applies cleanly, and nothing is dropped silently.

Which fields those are, core's CRD check says (:func:`podtemplate.plugin.crd_pod_schema`,
from the CRD this plugin ships in ``crds/``): the same schema nodes that validate every
DaskJob at render.
"""

from __future__ import annotations

import copy
from typing import Any

from podtemplate.plugin import CrdPodSchema, crd_pod_schema

from .config import ROLE_PATHS

__all__ = ["CRD", "SIDECAR_ONLY_FIELDS", "newer_fields", "strip_unknown_fields"]

CRD = "podtemplate_dask:crds/kubernetes.dask.org_daskjobs.json"
SIDECAR_ONLY_FIELDS = ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe")


def _schema(role: str) -> CrdPodSchema:
    return crd_pod_schema(CRD, ROLE_PATHS[role])


def newer_fields(role: str) -> tuple[str, ...]:
    """The fields of the current Kubernetes pod the CRD prunes in ``role``'s pod, as
    declarations (``[*]``: on every container, volume... of the pod)."""
    return _schema(role).newer_fields()


def strip_unknown_fields(pod: dict[str, Any], role: str) -> list[str]:
    """Remove, in place, every field of ``pod`` (a role's PodTemplateSpec) that the CRD's
    schema for ``role`` does not know; return their paths, list items named by their
    ``name`` (``spec.containers[worker].resizePolicy``) or else by index."""
    pruned = _schema(role).pruned(pod)
    if not pruned:
        return []
    # The pod may share subtrees with its templates: it gets its own copy of them first
    # (a rare path: only a pod with a field the CRD lacks gets here).
    for key in list(pod):
        pod[key] = copy.deepcopy(pod[key])
    stripped = [_remove(pod, segments) for segments in pruned]
    _strip_sidecar_only_fields(pod, stripped)
    return stripped


def _remove(pod: dict[str, Any], segments: tuple[str | int, ...]) -> str:
    """Delete the field at ``segments`` and return its path, items named."""
    node: Any = pod
    shown = ""
    for segment in segments[:-1]:
        node = node[segment]
        if isinstance(segment, int):
            name = node.get("name") if isinstance(node, dict) else None
            shown += f"[{name if isinstance(name, str) and name else segment}]"
        else:
            shown += f".{segment}" if shown else segment
    last = segments[-1]
    del node[last]
    return f"{shown}.{last}" if shown else str(last)


def _strip_sidecar_only_fields(pod: dict[str, Any], stripped: list[str]) -> None:
    """An init container whose ``restartPolicy: Always`` the CRD prunes is no longer a
    sidecar, and the API server refuses hooks and probes on it: they go too."""
    for index, container in enumerate((pod.get("spec") or {}).get("initContainers") or ()):
        if container.get("restartPolicy") == "Always":
            continue
        label = container.get("name") or str(index)
        for key in SIDECAR_ONLY_FIELDS:
            if container.pop(key, None) is not None:
                stripped.append(f"spec.initContainers[{label}].{key}")

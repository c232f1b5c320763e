"""Server-side apply of rendered manifests, as ``kubectl apply --server-side`` does it:
field manager ``podtemplate``, strict field validation, ``force`` only when asked, and
each object's outcome (created, configured, unchanged) told by comparing the object
before and after (with ``--dry-run=server``, the server's dry-run result against the live
object).

Objects go in dependency order (:data:`KIND_ORDER`): what others refer to first (a
namespaced TrainingRuntime before the TrainJob naming it, a ConfigMap before the pod
mounting it); render order otherwise. A real apply stops at the first refusal, so no
object goes in without what comes before it; a dry run judges every object.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .connect import Answer, request, status_error
from .dryrun import FIELD_MANAGER, answer_verdict, rbac_refusal, resource_path

__all__ = ["KIND_ORDER", "Outcome", "apply_manifests", "apply_order", "object_ref"]

# Kinds other objects refer to, by rank (lower goes first); every other kind (Pod,
# PyTorchJob, TrainJob, RayJob...) comes last, in render order.
KIND_ORDER: Mapping[str, int] = {
    "Namespace": 0, "CustomResourceDefinition": 0,
    "ServiceAccount": 1, "Secret": 1, "ConfigMap": 1, "PersistentVolumeClaim": 1,
    "PodTemplate": 1,
    "ClusterTrainingRuntime": 2, "TrainingRuntime": 2,
    "Service": 3,
}
_LAST = max(KIND_ORDER.values()) + 1

Action = Literal["created", "configured", "unchanged", "refused"]


@dataclass(frozen=True)
class Outcome:
    """What happened to one object: ``ref`` as kubectl names it
    (``pytorchjob.kubeflow.org/train``), its namespace (None for a cluster-scoped
    object), the action, and for a refusal one line: the field path and the server's
    reason."""

    ref: str
    namespace: str | None
    action: Action
    problem: str | None = None

    def line(self, dry_run: bool) -> str:
        return f"{self.ref} {self.action}{' (server dry run)' if dry_run else ''}"


def object_ref(manifest: Mapping[str, Any]) -> str:
    """``kind.group/name``, lowercased kind, as kubectl prints objects."""
    api_version = str(manifest.get("apiVersion") or "")
    group = api_version.rpartition("/")[0]
    kind = str(manifest.get("kind") or "").lower()
    name = (manifest.get("metadata") or {}).get("name")
    return f"{kind}{'.' + group if group else ''}/{name}"


def apply_order(manifests: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """``manifests`` in dependency order (:data:`KIND_ORDER`), render order kept within
    a rank."""
    return sorted(manifests, key=lambda m: KIND_ORDER.get(str(m.get("kind")), _LAST))


def apply_manifests(api_client: Any, manifests: Iterable[Mapping[str, Any]], *,
                    namespace: str, dry_run: bool = False, force: bool = False
                    ) -> Iterator[Outcome]:
    """Apply each manifest in dependency order (objects without a namespace go to
    ``namespace``), yielding its outcome as it is known. A real apply stops after the
    first refusal; a dry run goes on. Raises ClusterError only when the server cannot be
    asked at all (unreachable, 401)."""
    for manifest in apply_order(manifests):
        outcome = _apply_one(api_client, manifest, namespace, dry_run=dry_run, force=force)
        yield outcome
        if outcome.action == "refused" and not dry_run:
            return


def _apply_one(api_client: Any, manifest: Mapping[str, Any], namespace: str, *,
               dry_run: bool, force: bool) -> Outcome:
    ref = object_ref(manifest)
    collection = resource_path(api_client, manifest, namespace)
    if collection is None:
        return Outcome(ref, None, "refused",
                       f"kind: the server serves no kind {manifest.get('kind')} in apiVersion "
                       f"{manifest.get('apiVersion')} (fix: install the operator and its CRD "
                       "on the cluster)")
    space = collection.split("/namespaces/")[1].split("/")[0] \
        if "/namespaces/" in collection else None
    path = f"{collection}/{manifest['metadata']['name']}"
    before = request(api_client, "GET", path)
    if before.status == 401:
        raise status_error(before, f"read {ref}")
    live = before.body if before.ok else None
    query = [("fieldManager", FIELD_MANAGER), ("fieldValidation", "Strict")]
    query += [("force", "true")] * force + [("dryRun", "All")] * dry_run
    answer = request(api_client, "PATCH", path, body=dict(manifest), query=query,
                     content_type="application/apply-patch+yaml")
    if answer.status == 401:
        raise status_error(answer, f"apply {ref}")
    if not answer.ok:
        return Outcome(ref, space, "refused", refusal(answer, manifest))
    if live is None:
        return Outcome(ref, space, "created")
    same = _compared(live) == _compared(answer.body)
    return Outcome(ref, space, "unchanged" if same else "configured")


def _compared(body: Any) -> Any:
    """What tells an apply that changed something from one that did not: the object
    without its resourceVersion, its status (controllers write it meanwhile) and the
    time stamps of its managedFields (set only when a manager's fields change)."""
    data: dict[str, Any] = copy.deepcopy(dict(body)) if isinstance(body, Mapping) else {}
    data.pop("status", None)
    metadata = data.get("metadata") or {}
    metadata.pop("resourceVersion", None)
    for entry in metadata.get("managedFields") or ():
        entry.pop("time", None)
    return data


def refusal(answer: Answer, manifest: Mapping[str, Any]) -> str:
    """One line for a refused apply: each field path and the server's reason, and the
    fix."""
    verdict = answer_verdict(answer, manifest)
    parts = []
    for cause in verdict.causes:
        field = cause.field.lstrip(".")
        text = cause.message or cause.reason
        parts.append(f"{field}: {text}" if field else text)
    reason = verdict.reason or str(verdict.status)
    said = "; ".join(dict.fromkeys(parts)) or verdict.message
    if verdict.status == 409 and reason == "Conflict":
        fix = ("rerun with --force-conflicts to take these fields from their manager, or "
               "leave them to it (drop them from the task's templates)")
    elif verdict.status == 403 and rbac_refusal(answer):
        fix = "ask a cluster admin for an RBAC role that allows patch on this resource"
    elif verdict.status == 403:  # admission: a ServiceAccount, PriorityClass... missing
        fix = "create what the server names, or correct the field that names it"
    else:
        fix = "correct the field where it is set (podtemplate explain --field shows where)"
    return f"{said} [{reason}] (fix: {fix})"

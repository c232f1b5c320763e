"""The CRD check at render through its fast paths (``schemas/_fast.py``: proofs of role
pods, the walk that only says yes or no) renders, refuses and warns exactly as through
the plain paths, for every task type with a CRD, with templates its CRD takes and ones it
refuses (a pruned field, a wrong type), on the task and on a role."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from podtemplate import (
    PodTemplate,
    PodTemplateError,
    Role,
    build_plugin_manager,
    make_context,
    render_task,
    task,
)
from podtemplate.schemas import _fast, resources
from podtemplate_dask import Dask
from podtemplate_pytorch import PyTorch
from podtemplate_ray import Ray
from podtemplate_spark import Spark

IMAGE = "ghcr.io/acme/train:1"
RICH = {
    "volumes": [{"name": "data", "emptyDir": {"sizeLimit": "1Gi"}},
                {"name": "creds", "secret": {"secretName": "creds"}}],
    "containers": [
        {"name": "primary", "volumeMounts": [{"name": "data", "mountPath": "/data"}],
         "env": [{"name": "TEAM", "value": "ads"}]},
        {"name": "log-shipper", "image": "fluent/fluent-bit:3.0",
         "resources": {"requests": {"cpu": "50m"}, "limits": {"memory": "128Mi"}}}],
    "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
    "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": "zone", "operator": "In", "values": ["a"]}]}]}}},
}
# Unknown to the pod schemas of the shipped CRDs (Kubernetes 1.35 fields).
PRUNED = {"workloadRef": {"name": "train", "podGroup": "workers"}}
NEWER = {"os": {"name": "linux"}}
TEMPLATES = {"none": None, "rich": RICH, "pruned": PRUNED, "newer": NEWER}
CONFIGS: dict[str, Callable[[PodTemplate | None], Any]] = {
    "pytorch": lambda role: PyTorch(worker=Role(replicas=2, pod_template=role)),
    "dask": lambda role: Dask(workers=Role(replicas=2, pod_template=role)),
    "ray": lambda role: Ray(head=Role(pod_template=role)),
    "spark": lambda role: Spark(executor=Role(replicas=2, pod_template=role)),
}


def _template(name: str) -> PodTemplate | None:
    spec = TEMPLATES[name]
    return None if spec is None else PodTemplate(copy.deepcopy(spec))


def _render(config: str, own: str, role: str) -> tuple[Any, list[Any]]:
    @task(image=IMAGE, pod_template=_template(own),
          task_config=CONFIGS[config](_template(role)))
    def job() -> None: ...

    context = make_context(plugin_manager=build_plugin_manager())
    try:
        outcome: Any = copy.deepcopy(render_task(job, context))
    except PodTemplateError as error:
        outcome = (type(error), str(error))
    return outcome, [(w.message, w.task, w.role, w.field) for w in context.warnings]


@pytest.mark.parametrize("config", sorted(CONFIGS))
@pytest.mark.parametrize(("own", "role"), [("none", "none"), ("rich", "rich"),
                                           ("pruned", "none"), ("rich", "pruned"),
                                           ("newer", "rich"), ("rich", "newer")])
def test_fast_and_plain_paths_render_alike(config: str, own: str, role: str,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    compared: list[bool] = []
    fast_proofs, fast_valid = _fast.proven_pods, _fast.surely_valid

    def both_proofs(*args: Any) -> frozenset[int]:
        found = fast_proofs(*args)
        assert found == resources.proven_pods(*args)
        compared.append(bool(found))
        return found

    def both_verdicts(manifest: Any, crd: Any, skip: frozenset[int]) -> bool:
        verdict = fast_valid(manifest, crd, skip)
        assert verdict is (not resources.validate_custom_resource(manifest, crd, skip=skip))
        return verdict

    monkeypatch.setattr(_fast, "proven_pods", both_proofs)
    monkeypatch.setattr(_fast, "surely_valid", both_verdicts)
    fast = _render(config, own, role)
    assert compared, "the CRD check did not run"
    # The plain paths alone: every pod walked unless plainly proven, every resource walked.
    monkeypatch.setattr(_fast, "proven_pods", resources.proven_pods)
    monkeypatch.setattr(_fast, "surely_valid", lambda *args: False)
    assert _render(config, own, role) == fast

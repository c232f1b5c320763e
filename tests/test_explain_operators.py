"""Explain and the operators' own fields (issue 22): what a task type takes out of a pod
as it builds its manifest is named, with the layer that had set it and the reason."""

from __future__ import annotations

from pathlib import Path

from podtemplate import Platform, PodTemplate, Role, explain, task
from podtemplate_dask import Dask
from podtemplate_pytorch import PyTorch

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_what_the_operators_own_is_explained_where_a_task_type_takes_it_out() -> None:
    """Issue 22: a template's pod restartPolicy goes to the PyTorchJob's replica spec, and
    Dask's operator-owned env vars are stripped; explain names both as taken out by the
    task type, with the layer that had set them and the declared reason."""
    never = PodTemplate({"restartPolicy": "Never"})
    train = task(name="train", image="t:1", pod_template=never,
                 task_config=PyTorch())(lambda: None)
    crunch = task(name="crunch", image="t:1",
                  env={"DASK_SCHEDULER_ADDRESS": "tcp://elsewhere:8786"},
                  task_config=Dask())(lambda: None)
    platform = Platform(defaultImage="python:3.11")
    removed = {(t["task"], r["role"], item["path"]): item["detail"]
               for t in explain([train, crunch], platform=platform)["tasks"]
               for r in t["roles"] for item in r["removed"]}
    for role in ("master", "worker"):
        detail = removed[("train", role, "spec.restartPolicy")]
        assert "taken out of the pod template by the pytorch task type" in detail
        assert "task-template" in detail and f"{role.title()}.restartPolicy" in detail
    for role, container in (("job-runner", "job"), ("worker", "worker")):
        path = f"spec.containers[{container}].env[DASK_SCHEDULER_ADDRESS].value"
        assert "set by the dask-kubernetes operator on every container when absent" in \
            removed[("crunch", role, path)]
    assert not [key for key in removed if key[1] == "scheduler"]


def test_a_trainer_node_template_is_explained_as_the_worker_roles() -> None:
    """Under ``taskTypes.pytorch.operator: trainer`` the ``node`` pods are made from the
    ``worker=Role(...)`` the user wrote: the template that role names is explained as the
    worker role's, not as one a role 'node' (which no user code has) named."""
    worker = Role(replicas=2, pod_template_name="pytorch-a100-worker")
    train = task(name="train", image="t:1", task_config=PyTorch(worker=worker))(lambda: None)
    for operator, role in (("trainer", "node"), ("training-operator", "worker")):
        platform = Platform(defaultImage="python:3.11", templates=str(EXAMPLES / "templates"),
                            fallbackNamespace="platform",
                            taskTypes={"pytorch": {"operator": operator}})
        (explained,) = explain(train, platform=platform)["tasks"]
        (values,) = [r["values"] for r in explained["roles"] if r["role"] == role]
        details = {v["detail"] for v in values if v["layer"] == "role-template"
                   and "pytorch-a100-worker" in (v["detail"] or "")}
        assert details, values
        if operator == "trainer":
            assert all("named by the worker role" in d and "role 'node'" in d
                       for d in details), details
        else:
            assert all("named by role 'worker'" in d for d in details), details

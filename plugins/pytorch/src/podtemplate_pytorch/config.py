"""The ``task_config`` of a PyTorch task: ``PyTorch``, ``RunPolicy`` and ``Elastic``.

Everything the Training Operator would reject is rejected here, when the task is defined.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal

from podtemplate import ConfigModel, DefinitionError, PodTemplate, Role
from podtemplate.plugin import (
    check_dns1035_label,
    check_one_primary,
    check_quantity,
    parse_quantity,
    warn_alias,
)
from pydantic import Field, field_validator, model_validator

from .flytekit import elastic_arguments, pytorch_arguments

__all__ = ["CONTAINER_NAME", "Elastic", "PyTorch", "RestartPolicyName", "RunPolicy",
           "check_primary_name", "longest_pod_names"]

# The Training Operator finds the training container of every replica by this name.
CONTAINER_NAME = "pytorch"
_INT32_MAX = 2**31 - 1

Count = Annotated[int, Field(strict=True, ge=1, le=_INT32_MAX)]
NonNegative = Annotated[int, Field(strict=True, ge=0, le=_INT32_MAX)]
_NPROC_WORDS = ("auto", "cpu", "gpu")
# A replica's restartPolicy, as the Training Operator takes it (ExitCode: restart on a
# retryable exit code only; the pods themselves then run with Never).
RestartPolicyName = Literal["Always", "OnFailure", "Never", "ExitCode"]
# The Training Operator names each pod and Service <job>-<replica type>-<index>;
# Trainer v2's JobSet names each pod's hostname <job>-node-0-<index>. Each is a DNS label.
_MAX_POD_NAME = 63


class RunPolicy(ConfigModel):
    """``spec.runPolicy`` of the PyTorchJob: what happens to the job and its pods.

    - ``clean_pod_policy``: which pods to delete when the job ends: ``"None"``,
      ``"Running"`` or ``"All"``.
    - ``backoff_limit``: retries before the job is marked failed.
    - ``active_deadline_seconds``: how long the job may run before it is stopped.
    - ``ttl_seconds_after_finished``: when a finished job is deleted.
    """

    clean_pod_policy: Literal["None", "Running", "All"] | None = None
    backoff_limit: NonNegative | None = None
    active_deadline_seconds: Annotated[int, Field(strict=True, ge=1)] | None = None
    ttl_seconds_after_finished: NonNegative | None = None

    def to_k8s(self) -> dict[str, Any]:
        fields = {
            "cleanPodPolicy": self.clean_pod_policy,
            "backoffLimit": self.backoff_limit,
            "activeDeadlineSeconds": self.active_deadline_seconds,
            "ttlSecondsAfterFinished": self.ttl_seconds_after_finished,
        }
        return {key: value for key, value in fields.items() if value is not None}


class Elastic(ConfigModel):
    """An elastic job (``spec.elasticPolicy``): workers only, between ``min_replicas`` and
    ``max_replicas``, joined by torchrun's rendezvous. The workers run the task function
    under ``torchrun``, which reads the rendezvous settings the operator passes in.

    ``nproc_per_node`` (processes per pod: a number, ``"auto"``, ``"cpu"`` or ``"gpu"``)
    becomes ``spec.nprocPerNode``; ``max_restarts`` is torchrun's restart budget;
    ``rdzv_configs`` (``{"timeout": 900, "join_timeout": 900}``, as flytekit spells them)
    are the rendezvous settings, ``elasticPolicy.rdzvConf`` (the operator hands them to
    torchrun as ``--rdzv-conf``). flytekit's ``nnodes=2`` / ``nnodes="1:4"`` is taken for
    the range, with a warning.

    ``standalone=True`` (one node: ``min_replicas=max_replicas=1``) runs no PyTorchJob but
    one ``v1 Pod`` whose torchrun starts the ``nproc_per_node`` processes with a local
    rendezvous, as flytekit runs ``Elastic(nnodes=1)`` (its ``python-task``, no operator
    needed); flytekit's ``nnodes=1`` sets it.
    """

    min_replicas: Count
    max_replicas: Count
    nproc_per_node: Count | Literal["auto", "cpu", "gpu"] | None = None
    rdzv_backend: Literal["c10d", "etcd", "etcd-v2"] = "c10d"
    max_restarts: NonNegative | None = None
    rdzv_configs: dict[str, str] | None = None
    standalone: bool = False

    @model_validator(mode="before")
    @classmethod
    def _flytekit_spellings(cls, data: Any) -> Any:
        return elastic_arguments(data)

    @field_validator("nproc_per_node", mode="before")
    @classmethod
    def _nproc(cls, value: Any) -> Any:
        if value is None or value in _NPROC_WORDS or (
                type(value) is int and 1 <= value <= _INT32_MAX):
            return value
        raise DefinitionError(
            f"nproc_per_node must be a positive number, 'auto', 'cpu' or 'gpu', got {value!r}",
            field="task_config.elastic.nproc_per_node",
            fix="give the processes per pod, e.g. nproc_per_node=8 or 'gpu' (one per GPU)")

    @field_validator("rdzv_configs", mode="before")
    @classmethod
    def _rdzv_configs(cls, value: Any) -> dict[str, str] | None:
        """Keys and values as torchrun's ``--rdzv-conf key=value,...`` reads them: a number
        is its text (flytekit's own default is ``{"timeout": 900, "join_timeout": 900}``)."""
        if value is None:
            return None
        field = "task_config.elastic.rdzv_configs"
        if not isinstance(value, Mapping):
            raise DefinitionError(f"rdzv_configs must be a dict, got {type(value).__name__}",
                                  field=field, fix="write rdzv_configs={'timeout': 900}")
        out: dict[str, str] = {}
        for key, item in value.items():
            text = str(item) if type(item) in (int, float, str) else None
            if not isinstance(key, str) or not key or text is None or any(
                    mark in f"{key}{text}" for mark in ",="):
                raise DefinitionError(
                    f"rdzv_configs entry {key!r}: {item!r} is not a name and a number or "
                    "text without ',' or '='", field=f"{field}.{key}",
                    fix="write rdzv_configs={'timeout': 900, 'join_timeout': 900}")
            out[key] = text
        return out

    @model_validator(mode="after")
    def _min_not_above_max(self) -> Elastic:
        if self.standalone and (self.min_replicas, self.max_replicas) != (1, 1):
            raise DefinitionError(
                f"a standalone elastic job runs one pod, but its range is "
                f"{self.min_replicas}..{self.max_replicas}",
                field="task_config.elastic.standalone",
                fix="set min_replicas=1, max_replicas=1, or drop standalone")
        if self.min_replicas > self.max_replicas:
            raise DefinitionError(
                f"min_replicas ({self.min_replicas}) is greater than max_replicas "
                f"({self.max_replicas})", field="task_config.elastic.min_replicas",
                fix="set min_replicas <= max_replicas")
        return self

    def podtemplate_task_config(self) -> PyTorch:
        """flytekit's ``@task(task_config=Elastic(...))``: the elastic PyTorch job."""
        return _elastic_job(self)

    def to_k8s(self) -> dict[str, Any]:
        policy: dict[str, Any] = {"minReplicas": self.min_replicas,
                                  "maxReplicas": self.max_replicas,
                                  "rdzvBackend": self.rdzv_backend}
        if self.max_restarts is not None:
            policy["maxRestarts"] = self.max_restarts
        if self.rdzv_configs:
            policy["rdzvConf"] = [{"key": key, "value": value}
                                  for key, value in self.rdzv_configs.items()]
        return policy


def _elastic_job(elastic: Elastic) -> PyTorch:
    """flytekit's elastic task: as on Flyte, the job starts ``max_replicas`` workers
    (flytekit's ``replicas=self.max_nodes``)."""
    warn_alias("task_config=Elastic(...)", "task_config=PyTorch(elastic=Elastic(...))")
    if elastic.standalone:
        return PyTorch(elastic=elastic)
    return PyTorch(elastic=elastic, worker=Role(replicas=elastic.max_replicas))


class PyTorch(ConfigModel):
    """Distributed PyTorch as a Kubeflow ``PyTorchJob`` (Training Operator v1).

    ``master`` and ``worker`` are :class:`podtemplate.Role` configs, each resolved on its
    own over the task's template and settings. ``worker.replicas`` is the number of
    workers (default 1; with ``elastic``, ``min_replicas``). A job without ``elastic``
    also runs exactly one master, rank 0. Every replica gets a memory-backed emptyDir at
    /dev/shm (PyTorch data loaders need more than the container runtime's 64Mi; flytekit
    mounts one by default too), unsized - bounded by the pod's memory limit - unless a
    template already mounts something there; ``shm_size="16Gi"`` sizes it (and owns it),
    ``shm_size=False`` leaves /dev/shm alone. ``restart_policy`` is each replica's restart
    policy (``Always``, ``OnFailure``, ``Never`` or the operator's ``ExitCode``); unset, a
    template's pod ``restartPolicy`` is used, else ``Never`` (as on Flyte).
    """

    task_type: ClassVar[str] = "pytorch"

    master: Role | None = None
    worker: Role | None = None
    run_policy: RunPolicy | None = None
    elastic: Elastic | None = None
    shm_size: str | Literal[False] | None = None
    restart_policy: RestartPolicyName | None = None

    @model_validator(mode="before")
    @classmethod
    def _no_workers_shortcut(cls, data: Any) -> Any:
        data = pytorch_arguments(data)
        if isinstance(data, Mapping) and "workers" in data:
            raise DefinitionError("PyTorch has no argument 'workers'", field="task_config.workers",
                                  fix=f"give the count as worker=Role(replicas={data['workers']})")
        return data

    @field_validator("shm_size", mode="before")
    @classmethod
    def _shm_size(cls, value: Any) -> str | Literal[False] | None:
        if value is None or value is True:
            return None
        if value is False:
            return False
        size = check_quantity(value, field="task_config.shm_size")
        if parse_quantity(size) <= 0:
            raise DefinitionError(f"shm_size must be positive, got {size!r}",
                                  field="task_config.shm_size", fix='give a size such as "8Gi"')
        return size

    @model_validator(mode="after")
    def _consistent(self) -> PyTorch:
        if self.master is not None and self.master.replicas not in (None, 1):
            raise DefinitionError(
                f"master replicas must be 1, got {self.master.replicas}",
                field="task_config.master.replicas",
                fix="drop replicas from the master role; scale with worker=Role(replicas=N)")
        if self.elastic is not None:
            self._check_elastic(self.elastic)
        for name, role in (("master", self.master), ("worker", self.worker)):
            if role is not None and role.pod_template is not None:
                check_primary_name(role.pod_template, f"task_config.{name}.pod_template")
        return self

    def _check_elastic(self, elastic: Elastic) -> None:
        if elastic.standalone and self.worker is not None:
            raise DefinitionError(
                "a standalone elastic job is one pod, with no worker role",
                field="task_config.worker",
                fix="give the pod's image, resources and template on @task, and drop worker=")
        if self.master is not None:
            raise DefinitionError(
                "an elastic job has no master role", field="task_config.master",
                fix="drop master=...: elastic workers meet through rendezvous, or drop elastic")
        replicas = self.worker.replicas if self.worker is not None else None
        if replicas is not None and not elastic.min_replicas <= replicas <= elastic.max_replicas:
            raise DefinitionError(
                f"worker replicas {replicas} is outside the elastic range "
                f"{elastic.min_replicas}..{elastic.max_replicas}",
                field="task_config.worker.replicas",
                fix="set replicas between min_replicas and max_replicas, or leave it unset")

    def worker_replicas(self) -> int:
        """How many workers the job starts with."""
        if self.worker is not None and self.worker.replicas is not None:
            return self.worker.replicas
        return self.elastic.min_replicas if self.elastic is not None else 1

    def max_workers(self) -> int:
        """The most workers the job can ever have (names must fit them all)."""
        return self.elastic.max_replicas if self.elastic is not None else self.worker_replicas()

    def check_task_name(self, name: str) -> None:
        # Training Operator v1.9.4 pkg/webhooks/pytorch/pytorchjob_webhook.go and Trainer
        # v2.3.0 (TrainJob CEL rule) both require a DNS-1035 name: Services are named
        # after the job.
        check_dns1035_label(name, what="PyTorch task name",
                            why="the operator names Services after the job")
        for longest in longest_pod_names(name, self):
            if len(longest) > _MAX_POD_NAME:
                raise DefinitionError(
                    f"the job's pods would be named like {longest!r}, longer than "
                    f"{_MAX_POD_NAME} characters", field="name",
                    fix="shorten the task name to at most "
                    f"{_MAX_POD_NAME - len(longest) + len(name)} characters (@task(name=...))")


def longest_pod_names(name: str, config: PyTorch) -> tuple[str, str]:
    """The longest pod name under each operator: the Training Operator's
    ``<job>-worker-<index>`` and Trainer v2's ``<job>-node-0-<index>`` (one node per
    master and worker), whichever the platform picks."""
    nodes = config.max_workers() + (0 if config.elastic is not None else 1)
    return f"{name}-worker-{config.max_workers() - 1}", f"{name}-node-0-{nodes - 1}"


def check_primary_name(template: PodTemplate, field: str) -> None:
    """Reject a template holding both its own primary container and a separate
    ``pytorch`` container: both would become the operator's one ``pytorch`` container.

    A primary container with another name alone is fine: it is renamed to ``pytorch``
    (the operator's name wins) and the render warns.
    """
    check_one_primary(template, CONTAINER_NAME, field)

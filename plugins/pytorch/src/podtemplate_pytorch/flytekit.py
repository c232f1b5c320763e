"""flytekitplugins-kfpytorch's spellings, kept for ported code (docs/from-flytekit.md),
each with a one-time warning naming ours: ``Worker(...)``/``Master(...)`` are roles (their
``restart_policy`` their replica's), ``RestartPolicy``/``CleanPodPolicy`` members are the
operator's strings, ``PyTorch(num_workers=N)`` is ``worker=Role(replicas=N)``,
``PyTorch(increase_shared_mem=False)`` is ``shm_size=False``; ``Elastic``'s ``nnodes=2`` or
``nnodes="1:4"`` is the worker range ``min_replicas``/``max_replicas`` (``nnodes=1``: one
pod running torchrun standalone, as flytekit runs it), its ``rdzv_configs`` (flytekit's
default ``{"timeout": 900, "join_timeout": 900}`` when not given) the job's
``elasticPolicy.rdzvConf``. The other arguments
of flytekit's own in-process launcher are refused with what to write instead."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any, Literal

from podtemplate import DefinitionError, Resources, Role
from podtemplate.plugin import refuse_config_keys, warn_alias

__all__ = ["FLYTEKIT_RDZV_CONFIGS", "CleanPodPolicy", "Master", "RestartPolicy", "Worker",
           "elastic_arguments", "pytorch_arguments", "replica_restart_policy"]


class RestartPolicy(enum.StrEnum):
    """flytekit's replica restart policies, as the Training Operator spells them."""

    ALWAYS = "Always"
    FAILURE = "OnFailure"
    NEVER = "Never"


class CleanPodPolicy(enum.StrEnum):
    """flytekit's clean-pod policies (``RunPolicy(clean_pod_policy=...)``)."""

    NONE = "None"
    ALL = "All"
    RUNNING = "Running"


class Replica(Role):
    """A role written as flytekit's ``Worker``/``Master``: its ``restart_policy`` is its
    replica spec's, as Flyte's ToReplicaSpecWithOverrides sets it per replica."""

    restart_policy: Literal["Always", "OnFailure", "Never", "ExitCode"] | None = None


def _replica(kind: str, image: str | None, requests: Resources | None,
             limits: Resources | None, replicas: int | None,
             restart_policy: RestartPolicy | str | None) -> Role:
    warn_alias(f"{kind}(...)", "Role(...)")
    fields: dict[str, Any] = {"image": image, "requests": requests, "limits": limits,
                              "replicas": replicas}
    given = {key: value for key, value in fields.items() if value is not None}
    if restart_policy is None:
        return Role(**given)
    return Replica.model_validate({**given, "restart_policy": restart_policy})


def Worker(image: str | None = None, requests: Resources | None = None,
           limits: Resources | None = None, replicas: int | None = None,
           restart_policy: RestartPolicy | str | None = None) -> Role:
    """flytekit's worker replica spec: a :class:`podtemplate.Role`."""
    return _replica("Worker", image, requests, limits, replicas, restart_policy)


def Master(image: str | None = None, requests: Resources | None = None,
           limits: Resources | None = None, replicas: int | None = None,
           restart_policy: RestartPolicy | str | None = None) -> Role:
    """flytekit's master replica spec: a :class:`podtemplate.Role`."""
    return _replica("Master", image, requests, limits, replicas, restart_policy)


def pytorch_arguments(data: Any) -> Any:
    """``PyTorch(...)`` keywords with flytekit's spellings turned into ours."""
    if not isinstance(data, Mapping):
        return data
    out = dict(data)
    if "num_workers" in out:
        _num_workers(out, out.pop("num_workers"))
    if "increase_shared_mem" in out:
        increase = out.pop("increase_shared_mem")
        if "shm_size" in out:
            raise DefinitionError("PyTorch(increase_shared_mem=...) and shm_size both given",
                                  field="task_config.increase_shared_mem",
                                  fix="write shm_size= only (False drops /dev/shm)")
        warn_alias("PyTorch(increase_shared_mem=...)", "PyTorch(shm_size=...)")
        if increase is False:
            out["shm_size"] = False
    return out


def _num_workers(out: dict[str, Any], count: Any) -> None:
    worker = out.get("worker")
    replicas = worker.replicas if isinstance(worker, Role) else (
        worker.get("replicas") if isinstance(worker, Mapping) else None)
    if replicas is not None and replicas != count:
        raise DefinitionError(f"PyTorch(num_workers={count!r}) and worker replicas "
                              f"{replicas!r} both given", field="task_config.num_workers",
                              fix=f"write worker=Role(replicas={count}) only")
    if type(count) is not int or count < 1:
        raise DefinitionError(f"PyTorch(num_workers=...) must be a count, got {count!r}",
                              field="task_config.num_workers",
                              fix="write worker=Role(replicas=N) with N >= 1")
    warn_alias("PyTorch(num_workers=N)", "PyTorch(worker=Role(replicas=N))")
    if isinstance(worker, Role):
        out["worker"] = worker.model_copy(update={"replicas": count})
    elif isinstance(worker, Mapping):
        out["worker"] = {**worker, "replicas": count}
    else:
        out["worker"] = Role(replicas=count)


def replica_restart_policy(role: Role | None) -> str | None:
    """The restart policy of a replica written as flytekit's ``Worker``/``Master``."""
    return role.restart_policy if isinstance(role, Replica) else None


_FLYTEKIT_ONLY = {
    "start_method": "drop start_method=: torchrun starts the worker processes in each pod",
    "monitor_interval": "drop monitor_interval=: torchrun's default applies",
    "increase_shared_mem": "drop increase_shared_mem=: /dev/shm is memory-backed by default; "
    "PyTorch(shm_size=False) turns it off, shm_size='16Gi' sizes it",
    "run_policy": "give it to the job: PyTorch(run_policy=RunPolicy(...))",
}


# flytekitplugins-kfpytorch Elastic's default rdzv_configs.
FLYTEKIT_RDZV_CONFIGS = {"timeout": 900, "join_timeout": 900}


def elastic_arguments(data: Any) -> Any:
    """``Elastic(...)`` keywords with flytekit's ``nnodes`` turned into the range."""
    if not isinstance(data, Mapping):
        return data
    refuse_config_keys(data, _FLYTEKIT_ONLY, call="Elastic", where="task_config.elastic")
    if "nnodes" not in data:
        return data
    out = dict(data)
    nnodes = out.pop("nnodes")
    low, high = _range(nnodes)
    if "min_replicas" in out or "max_replicas" in out:
        raise DefinitionError("Elastic(nnodes=...) and min_replicas/max_replicas both given",
                              field="task_config.elastic.nnodes",
                              fix=f"write min_replicas={low}, max_replicas={high} only")
    warn_alias("Elastic(nnodes=...)", "Elastic(min_replicas=..., max_replicas=...)")
    out["min_replicas"], out["max_replicas"] = low, high
    # flytekit's own defaults, which its launcher passes to torch's rendezvous.
    out.setdefault("rdzv_configs", dict(FLYTEKIT_RDZV_CONFIGS))
    if nnodes == 1 and not isinstance(nnodes, bool):  # flytekit: a plain pod, no operator
        out.setdefault("standalone", True)
    return out


def _range(nnodes: Any) -> tuple[Any, Any]:
    """``2`` → (2, 2); ``"1:4"`` → (1, 4), as torchrun reads ``--nnodes``."""
    if isinstance(nnodes, int) and not isinstance(nnodes, bool):
        return nnodes, nnodes
    if isinstance(nnodes, str):
        low, sep, high = nnodes.partition(":")
        if low.strip().isdigit() and (not sep or high.strip().isdigit()):
            return int(low), int(high) if sep else int(low)
    raise DefinitionError(f"Elastic: nnodes {nnodes!r} is not a count or a MIN:MAX range",
                          field="task_config.elastic.nnodes",
                          fix="write nnodes=2 or nnodes='1:4' (or min_replicas/max_replicas)")

"""flytekitplugins-kfpytorch's ``Elastic`` spellings, kept for ported code
(docs/from-flytekit.md): ``nnodes=2`` or ``nnodes="1:4"`` is the worker range
``min_replicas``/``max_replicas`` (with a one-time warning); the arguments of flytekit's own
in-process launcher are refused with what to write instead."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from podtemplate import DefinitionError
from podtemplate.plugin import refuse_config_keys, warn_alias

__all__ = ["elastic_arguments"]

_FLYTEKIT_ONLY = {
    "start_method": "drop start_method=: torchrun starts the worker processes in each pod",
    "monitor_interval": "drop monitor_interval=: torchrun's default applies",
    "rdzv_configs": "drop rdzv_configs=: the operator sets the rendezvous; choose its "
    "backend with rdzv_backend=",
    "increase_shared_mem": "drop increase_shared_mem=: /dev/shm is memory-backed by default; "
    "PyTorch(shm_size=False) turns it off, shm_size='16Gi' sizes it",
    "run_policy": "give it to the job: PyTorch(run_policy=RunPolicy(...))",
}


def elastic_arguments(data: Any) -> Any:
    """``Elastic(...)`` keywords with flytekit's ``nnodes`` turned into the range."""
    if not isinstance(data, Mapping):
        return data
    refuse_config_keys(data, _FLYTEKIT_ONLY, call="Elastic", where="task_config.elastic")
    if "nnodes" not in data:
        return data
    out = dict(data)
    low, high = _range(out.pop("nnodes"))
    if "min_replicas" in out or "max_replicas" in out:
        raise DefinitionError("Elastic(nnodes=...) and min_replicas/max_replicas both given",
                              field="task_config.elastic.nnodes",
                              fix=f"write min_replicas={low}, max_replicas={high} only")
    warn_alias("Elastic(nnodes=...)", "Elastic(min_replicas=..., max_replicas=...)")
    out["min_replicas"], out["max_replicas"] = low, high
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

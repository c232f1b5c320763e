"""``--input NAME=VALUE``: typed from the task function's signature at render time."""

from __future__ import annotations

import inspect
import json
import typing
from collections.abc import Mapping
from typing import Any

from .errors import InputError, brief
from .model.plaindata import plain_copy
from .model.task import Task
from .stash import StashKey

__all__ = ["parse_input_pairs", "inputs_for", "check_required_inputs", "check_inputs_known"]

# Kept on a task: the parameters of its function without a default.
_REQUIRED = StashKey["tuple[str, ...]"]("the parameters a task's function requires")


def parse_input_pairs(pairs: list[str] | tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise InputError(f"--input {brief(pair)} is not NAME=VALUE",
                             fix="write --input epochs=3")
        out[name] = value
    return out


def _convert(text: str, annotation: Any, field: str) -> Any:
    origin = typing.get_origin(annotation) or annotation
    if annotation in (inspect.Parameter.empty, str, Any):
        return text
    if annotation is bool:
        lowered = text.lower()
        if lowered in ("true", "1", "yes"):
            return True
        if lowered in ("false", "0", "no"):
            return False
        raise ValueError(text)
    if annotation in (int, float):
        return annotation(text)
    if origin in (list, dict, tuple):
        try:
            value = json.loads(text)
        except RecursionError:
            raise ValueError("nested too deeply") from None
        if not isinstance(value, list if origin in (list, tuple) else dict):
            raise ValueError(text)
        return plain_copy(value, root=field, error=InputError)  # bounded depth and size
    raise ValueError(f"unsupported parameter type {annotation!r}")


def inputs_for(task: Task, raw: Mapping[str, str]) -> dict[str, Any]:
    """The inputs of ``raw`` this task takes, converted to its parameter types."""
    if not raw:  # first: a render without --input needs no (costly) signature
        return {}
    signature = task.signature
    if signature is None:
        return {}
    hints = typing.get_type_hints(task.fn) if task.fn is not None else {}
    out: dict[str, Any] = {}
    for name, text in raw.items():
        parameter = signature.parameters.get(name)
        if parameter is None:
            continue
        annotation = hints.get(name, parameter.annotation)
        try:
            out[name] = _convert(text, annotation, f"inputs.{name}")
        except InputError as error:
            raise error.located(task=task.name) from None
        except (ValueError, TypeError):
            type_name = getattr(annotation, "__name__", str(annotation))
            raise InputError(f"--input {name}={brief(text)} is not a valid {type_name}",
                             task=task.name, field=f"inputs.{name}",
                             fix=f"give a {type_name} value") from None
    return out


def check_inputs_known(tasks: list[Task], raw: Mapping[str, str]) -> None:
    """Every ``--input`` must be a parameter of at least one selected task."""
    for name in raw:
        if not any(t.signature is not None and name in t.signature.parameters for t in tasks):
            known = sorted({p for t in tasks if t.signature for p in t.signature.parameters})
            raise InputError(f"--input {brief(name)} is not a parameter of any selected task",
                             field=f"inputs.{name}",
                             fix=f"use one of: {', '.join(known) or 'no parameters'}")


def check_required_inputs(task: Task, given: Mapping[str, Any]) -> None:
    """Every parameter of the task's function without a default has an ``--input``: a
    pod calling ``fn(**inputs)`` without one would fail as it starts."""
    missing = [name for name in task.compiled(_REQUIRED, lambda: _required(task))
               if name not in given]
    if not missing:
        return
    names = ", ".join(repr(name) for name in missing)
    plural = "s" if len(missing) > 1 else ""
    raise InputError(f"input{plural} {names} of the function {'have' if plural else 'has'} "
                     "no --input and no default: the pod would fail as it starts",
                     task=task.name, field=f"inputs.{missing[0]}",
                     fix=" ".join(f"--input {name}=VALUE" for name in missing)
                     + " (or a default in the function's signature)")


def _required(task: Task) -> tuple[str, ...]:
    """The parameters of the task's function that take no default, in order: known once
    per task (the function does not change; ``inspect.signature`` is costly per role)."""
    signature = task.signature
    if signature is None:
        return ()
    plain = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return tuple(name for name, parameter in signature.parameters.items()
                 if parameter.kind in plain and parameter.default is inspect.Parameter.empty)

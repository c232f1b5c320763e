"""Task names and the object names derived from them (docs/from-flytekit.md, "Names").

A task name is what a Python user writes: ``task_1``, ``Calc.Area``, ``train-model``.
The Kubernetes objects of a task are named by one rule, :func:`derive_object_name`:

1. lowercase; every run of characters other than ``a-z`` and ``0-9`` (``_``, ``.``,
   ``-``) becomes one ``-``; leading and trailing ``-`` are dropped;
2. a name longer than the limit (63, a DNS-1123 label, or the task type's operator's
   own, ``object_name_limit`` of its config: 47 for a RayJob) keeps its first characters and
   ends with ``-`` and six hex digits of the SHA-256 of the task name as written, so
   two long names differing only at the end stay apart, render after render.

A task's object name depends only on the task itself (its name: the function's, or an
explicit ``name=``) and the platform (its task type's limit, the run id); never on what
else is rendered with it, so re-applying after adding a module changes no name. The
module is not part of it: how a file is imported (``etl`` or ``jobs.etl``) depends on the
command line, and a name must not. Two tasks of one render that would get the same name
are an error naming both (:func:`check_object_names`), never a silent rename. With a run
id every object name ends with ``-<run id>``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import InvalidNameError, PodTemplateError, TargetError, brief
from .names import MAX_OBJECT_NAME
from .templates import ConfigModel

if TYPE_CHECKING:
    from .task import Task

__all__ = ["MAX_OBJECT_NAME", "MAX_RUN_ID", "check_final_names", "check_object_names",
           "check_run_id", "object_name_limit",
           "check_task_name", "derive_object_name", "name_digest", "with_run_id"]

MAX_RUN_ID = 20
MAX_TASK_NAME = 253
_DIGEST = 6
_TASK_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
_NOT_NAME = re.compile(r"[^a-z0-9]+")
_RUN_ID = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def check_task_name(name: object) -> str:
    """A task name: letters, digits, ``_``, ``.`` and ``-`` (any Python identifier, a
    dotted one, or an object name), with at least one letter or digit."""
    if (not isinstance(name, str) or len(name) > MAX_TASK_NAME
            or not _TASK_NAME.fullmatch(name) or not _NOT_NAME.sub("", name.lower())):
        raise InvalidNameError(
            f"task name {brief(name)} is not valid", field="name",
            fix="use letters, digits, '_', '.' and '-' (a Python identifier such as "
            "'task_1' or 'Calc.Area' will do), at most 253 characters")
    return name


def name_digest(text: str) -> str:
    """Six hex digits of the SHA-256 of ``text``: stable across runs and machines."""
    return hashlib.sha256(text.encode()).hexdigest()[:_DIGEST]


def derive_object_name(name: str, limit: int = MAX_OBJECT_NAME) -> str:
    """The object name of the task name ``name`` (the rule in the module docstring)."""
    derived = _NOT_NAME.sub("-", name.lower()).strip("-")
    if len(derived) <= limit:
        return derived
    return _truncate(derived, limit, name_digest(name))


def _truncate(derived: str, limit: int, digest: str) -> str:
    return f"{derived[: limit - len(digest) - 1].rstrip('-')}-{digest}"


def object_name_limit(task_config: object) -> int:
    """The longest object name the task type's operator accepts (its config's
    ``object_name_limit``; a DNS-1123 label for a config that states none)."""
    return task_config.object_name_limit if isinstance(task_config, ConfigModel) \
        else MAX_OBJECT_NAME


def check_run_id(run_id: object) -> str:
    if (not isinstance(run_id, str) or len(run_id) > MAX_RUN_ID
            or not _RUN_ID.fullmatch(run_id)):
        raise InvalidNameError(
            f"run id {brief(run_id)} is not valid", field="run_id",
            fix=f"use at most {MAX_RUN_ID} lowercase letters, digits and '-', starting and "
            "ending with a letter or digit (e.g. --run-id r42)")
    return run_id


def with_run_id(name: str, run_id: str | None, limit: int = MAX_OBJECT_NAME) -> str:
    """``name`` with ``-<run_id>`` appended, shortened (with a hash of ``name``) so that
    the whole stays within ``limit``."""
    if not run_id:
        return name
    room = limit - len(run_id) - 1
    head = name if len(name) <= room else _truncate(name, room, name_digest(name))
    return f"{head}-{run_id}"


def check_object_names(tasks: Sequence[Task]) -> None:
    """Refuse two tasks that would name their objects alike (the module docstring). The
    same task given twice is one task."""
    seen: dict[str, Task] = {}
    for task in tasks:
        other = seen.setdefault(task.object_name, task)
        if other is not task:
            raise TargetError(
                f"tasks {_described(other)} and {_described(task)} would both name their "
                f"objects {task.object_name!r}", task=task.name,
                fix="give one of them its own name= (e.g. @task(name=...) or "
                "ContainerTask(name=...)); object names never change with what else is "
                "rendered")


def _described(task: Task) -> str:
    site = task.defined_at
    where = f"{site.file}:{site.line}" if site is not None and site.line else \
        (task.module or "?")
    return f"{task.name!r} ({where})"


def check_final_names(tasks: Sequence[Task], run_id: str | None) -> None:
    """The operator's name rule (``task_config.check_task_name``) on the names a run id
    gives. A task's ``object_name`` was checked when the task was made, so only the run
    id's suffix is left to judge."""
    if not run_id:
        return
    for task in tasks:
        final = with_run_id(task.object_name, run_id, object_name_limit(task.task_config))
        if isinstance(task.task_config, ConfigModel) and final != task.object_name:
            try:
                task.task_config.check_task_name(final)
            except PodTemplateError as error:
                raise error.located(task=task.name) from None

"""Task names and the object names derived from them (docs/from-flytekit.md, "Names").

A task name is what a Python user writes: ``task_1``, ``Calc.Area``, ``train-model``.
The Kubernetes objects of a task are named by one rule, :func:`derive_object_name`:

1. lowercase; every run of characters other than ``a-z`` and ``0-9`` (``_``, ``.``,
   ``-``) becomes one ``-``; leading and trailing ``-`` are dropped;
2. a name longer than the limit (63, a DNS-1123 label, or the task type's operator's
   own, ``object_name_limit`` of its config: 47 for a RayJob) keeps its first characters and
   ends with ``-`` and six hex digits of the SHA-256 of the task name as written, so
   two long names differing only at the end stay apart, render after render.

A render then makes the names of the tasks it renders unique (:func:`assign_object_names`):
tasks whose derived names collide are qualified by the shortest tail of their module path
that tells them apart (``shell.t1`` → ``shell-t1``), or by a hash of the task name when
they share a module. With a run id every object name ends with ``-<run id>``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import InvalidNameError, PodTemplateError, TargetError, brief
from .names import MAX_OBJECT_NAME
from .templates import ConfigModel

if TYPE_CHECKING:
    from .task import Task

__all__ = ["MAX_OBJECT_NAME", "MAX_RUN_ID", "assign_object_names", "check_final_names",
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


def assign_object_names(tasks: Sequence[Task]) -> list[Task]:
    """The tasks with object names unique among them (the module docstring): a task whose
    derived name no other task shares keeps it. Two tasks with one module and one name
    are an error: they are the same task defined twice."""
    groups: dict[str, list[Task]] = defaultdict(list)
    for task in {id(task): task for task in tasks}.values():  # a task given twice is one
        groups[task.object_name].append(task)
    renamed: dict[int, str] = {}
    for base, group in groups.items():
        if len(group) > 1:
            renamed.update(_qualified(base, group))
    out = [dataclasses.replace(task, object_name=renamed[id(task)]) if id(task) in renamed
           else task for task in tasks]
    seen: dict[str, Task] = {}
    for task, given in zip(out, tasks, strict=True):
        other = seen.setdefault(task.object_name, given)
        if other is not given:
            raise TargetError(
                f"tasks {other.name!r} and {task.name!r} would both name their objects "
                f"{task.object_name!r}", task=task.name,
                fix="give one of them another name=")
    return out


def check_final_names(tasks: Sequence[Task], run_id: str | None) -> None:
    """The operator's name rule (``task_config.check_task_name``) on the names a run id
    gives. A task's ``object_name`` was checked when the task was made (a module-qualified
    one too: :func:`assign_object_names` makes a new task), so only the run id's suffix
    is left to judge."""
    if not run_id:
        return
    for task in tasks:
        final = with_run_id(task.object_name, run_id, object_name_limit(task.task_config))
        if isinstance(task.task_config, ConfigModel) and final != task.object_name:
            try:
                task.task_config.check_task_name(final)
            except PodTemplateError as error:
                raise error.located(task=task.name) from None


def _qualified(base: str, group: list[Task]) -> dict[int, str]:
    identities = [(task.module or "", task.name) for task in group]
    if len(set(identities)) < len(identities):
        module, name = next(i for i in identities if identities.count(i) > 1)
        raise TargetError(f"two tasks named {name!r} in module {module or '?'}",
                          task=name, fix="give one of them another name=")
    modules = {task.module or "" for task in group}
    if len(modules) == len(group):
        depth = _distinguishing_depth(sorted(modules))
        return {id(task): derive_object_name(f"{_tail(task.module or '', depth)}.{task.name}",
                                             object_name_limit(task.task_config))
                for task in group}
    # Same module (or names colliding only once derived): the name's own hash separates.
    return {id(task): _hashed(base, f"{task.module}:{task.name}",
                              object_name_limit(task.task_config)) for task in group}


def _hashed(base: str, identity: str, limit: int) -> str:
    digest = name_digest(identity)
    if len(base) + len(digest) + 1 > limit:
        return _truncate(base, limit, digest)
    return f"{base}-{digest}"


def _tail(module: str, depth: int) -> str:
    return ".".join(module.split(".")[-depth:])


def _distinguishing_depth(modules: list[str]) -> int:
    """The fewest trailing parts of the module paths that are all different."""
    deepest = max(len(module.split(".")) for module in modules)
    for depth in range(1, deepest + 1):
        if len({_tail(module, depth) for module in modules}) == len(modules):
            return depth
    return deepest

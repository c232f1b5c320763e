"""Generate the task list: which task types are installed and N tasks over them."""

from __future__ import annotations

import random
from collections.abc import Sequence

from podtemplate import Task
from podtemplate.dispatch import task_types

from .builders import BUILDERS, BuildInput
from .timing import plugin_manager
from .workload import (
    full_role_template,
    inline_template,
    role_template,
    task_settings,
    template_pool,
)

__all__ = ["available_types", "generate_tasks", "tasks_for_module", "ROLE_NAMES"]

# Role names that get a shared role template (layer 5), on every distributed type.
ROLE_NAMES = ("master", "worker", "scheduler", "driver", "executor", "head", "submitter")
# Task types whose roles each get their own full template in the realistic mix.
OWN_ROLE_TEMPLATES = {"spark": ("driver", "executor"), "ray": ("head", "worker", "submitter")}


def available_types(requested: Sequence[str] | None = None) -> tuple[list[str], list[str]]:
    """(types to run, notes about types skipped): installed types that have a builder,
    in a stable order, optionally limited to ``requested``."""
    installed = set(task_types(plugin_manager()))
    notes: list[str] = []
    wanted = list(requested) if requested else sorted(installed | set(BUILDERS))
    types: list[str] = []
    for name in wanted:
        if name not in installed:
            notes.append(f"task type {name!r} is not installed: skipped "
                         f"(pip install -e plugins/{name})")
        elif name not in BUILDERS:
            notes.append(f"task type {name!r} is installed but has no workload builder: "
                         "skipped (add one to benchmarks/builders.py)")
        else:
            problem = _try_builder(name)
            if problem:
                notes.append(f"task type {name!r}: its workload builder failed ({problem}): "
                             "skipped")
            else:
                types.append(name)
    return types, notes


def _try_builder(task_type: str) -> str | None:
    """None if one task of the type builds (the plugin's API may have moved on)."""
    try:
        generate_tasks(1, [task_type], seed=0, module="probe")
    except Exception as error:  # any failure means: skip the type, with the reason
        return f"{type(error).__name__}: {error}"
    return None


def generate_tasks(n: int, types: Sequence[str], *, seed: int, module: str,
                   first: int = 0, realistic: bool = False) -> list[Task]:
    """Tasks ``first`` .. ``first + n - 1``, task types taken round robin.

    Task ``i`` depends only on ``seed`` and ``i``, so the first N tasks of a 10N run are
    the N tasks of an N run. ``realistic``: every task its own template (instead of one
    of a pool of 16 shared ones), and every Spark and Ray role its own full template.
    """
    pool = template_pool(seed)
    roles_rng = random.Random(f"{seed}:roles")
    role_templates = {role: role_template(roles_rng, role) for role in ROLE_NAMES}
    tasks: list[Task] = []
    for index in range(first, first + n):
        task_type = types[index % len(types)]
        rng = random.Random(f"{seed}:{index}")
        own = inline_template(rng, index) if realistic else None
        settings = task_settings(rng, f"{task_type}-{index:06d}", pool, own=own)
        roles = role_templates
        if realistic and task_type in OWN_ROLE_TEMPLATES:
            roles = {**role_templates, **{role: full_role_template(rng, role, index)
                                          for role in OWN_ROLE_TEMPLATES[task_type]}}
        given = BuildInput(rng=rng, settings=settings, module=module,
                           attribute=f"task_{index:06d}", role_templates=roles)
        tasks.append(BUILDERS[task_type](given))
    return tasks


def tasks_for_module(module: str, n: int, seed: int, types: Sequence[str]
                     ) -> dict[str, Task]:
    """Module globals for a generated task module (the CLI renders its tasks)."""
    tasks = generate_tasks(n, types, seed=seed, module=module)
    return {f"task_{index:06d}": task for index, task in enumerate(tasks)}

"""How a function task's container runs the function: the executor entrypoint."""

from __future__ import annotations

from typing import Any

from .context import RenderContext
from .errors import DefinitionError
from .executor import executor_command
from .inputs import check_required_inputs, inputs_for
from .merge.aliases import PRIMARY_CONTAINER
from .model.task import Task

__all__ = ["function_entrypoint"]


def function_entrypoint(task: Task, context: RenderContext, container_name: str = PRIMARY_CONTAINER
                        ) -> dict[str, Any]:
    """A container fragment whose command/args run ``task``'s function through the core
    executor with the render's ``--input`` values. Its name is ``container_name``."""
    if task.fn is None or not task.module or not task.attribute:
        raise DefinitionError("this task has no Python function to run", task=task.name,
                              fix="use @task on a module-level function")
    inputs = inputs_for(task, context.inputs)
    check_required_inputs(task, inputs)
    command, args = executor_command(task.module, task.attribute, inputs)
    return {"name": container_name, "command": list(command), "args": list(args)}

"""What the driver runs: the application's type, main file, main class and arguments.

A function task (``@task(task_config=Spark(...))``) runs its function through the core
executor via the launcher (see :mod:`podtemplate_spark.launcher`); a
``SparkApplicationTask`` runs a jar, Python or R file given by the user.
"""

from __future__ import annotations

from dataclasses import dataclass

from podtemplate import DefinitionError, RenderContext, Task, function_entrypoint

from .config import ApplicationType, Spark
from .launcher import DEFAULT_MAIN_APPLICATION_FILE
from .roles import CONTAINER_NAMES, DRIVER

__all__ = ["Application", "application_for", "infer_type"]


@dataclass(frozen=True)
class Application:
    type: ApplicationType
    main_application_file: str
    main_class: str | None
    arguments: tuple[str, ...]



def infer_type(main_application_file: str) -> ApplicationType:
    """``Python`` for ``.py``, ``R`` for ``.R``, else ``Scala`` (the operator runs Java and
    Scala applications the same way: a jar and a main class)."""
    lowered = main_application_file.lower()
    if lowered.endswith(".py"):
        return "Python"
    if lowered.endswith(".r"):
        return "R"
    return "Scala"


def check_task(task: Task) -> None:
    """Task settings that a Spark container cannot take."""
    for name in ("command", "args"):
        if getattr(task, name) is not None:
            raise DefinitionError(
                f"{name} is not used by Spark tasks: Spark starts its own container",
                task=task.name, field=name,
                fix="pass application arguments as Spark(arguments=[...]) or --input values")


def application_for(task: Task, config: Spark, context: RenderContext) -> Application:
    """The application part of the SparkApplication of ``task``."""
    if task.fn is not None:
        return _function_application(task, config, context)
    if config.main_application_file is None:
        raise DefinitionError("a Spark application without a function needs a main file",
                              task=task.name, field="task_config.main_application_file",
                              fix="give main_application_file='local:///opt/app/app.jar'")
    main_file = config.main_application_file
    return Application(type=config.application_type or infer_type(main_file),
                       main_application_file=main_file, main_class=config.main_class,
                       arguments=config.arguments or ())


def _function_application(task: Task, config: Spark, context: RenderContext) -> Application:
    wrong = {"main_class": config.main_class, "arguments": config.arguments}
    for name, value in wrong.items():
        if value is not None:
            raise DefinitionError(
                f"{name} is for JVM applications; a function task runs its function",
                task=task.name, field=f"task_config.{name}",
                fix=f"drop {name}; pass function inputs with --input NAME=VALUE")
    if config.application_type not in (None, "Python"):
        raise DefinitionError(
            f"a function task is a Python application, not {config.application_type}",
            task=task.name, field="task_config.application_type",
            fix="drop application_type, or use SparkApplicationTask for a JVM application")
    entry = function_entrypoint(task, context, CONTAINER_NAMES[DRIVER])
    return Application(type="Python",
                       main_application_file=config.main_application_file
                       or DEFAULT_MAIN_APPLICATION_FILE,
                       main_class=None, arguments=tuple(entry["args"]))

"""The options every command that renders takes, declared once (render, explain)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

__all__ = ["render_inputs", "check_override"]

F = TypeVar("F", bound=Callable[..., Any])

# Paths are plain strings: the loaders check them and say what is wrong in one line
# (click's own checks print a usage block).
_OPTIONS = (
    click.argument("targets", nargs=-1, required=True),
    click.option("--platform", "platform_file",
                 help="platform.yaml of the admin's settings."),
    click.option("--templates",
                 help="Folder of kind: PodTemplate files (overrides platform.yaml)."),
    click.option("--namespace", help="Namespace of rendered objects and first template lookup."),
    click.option("--override",
                 help="A pod template merged over every task as the run override."),
    click.option("--input", "inputs", multiple=True, metavar="NAME=VALUE",
                 help="A task input, typed from the function's signature. Repeatable."),
)


def render_inputs(command: F) -> F:
    """TARGET... --platform --templates --namespace --override --input, in that order."""
    for option in reversed(_OPTIONS):
        command = option(command)
    return command


def check_override(override: str | None) -> None:
    """``--override`` takes one file: a folder is named as the option's, with the option
    that takes folders."""
    from pathlib import Path

    from ..errors import TemplateFileError

    if override and Path(override).is_dir():
        raise TemplateFileError("--override is a folder; it takes one pod template file",
                                file=override, fix="give one YAML file; a folder of named "
                                "templates is --templates")

"""The CLI's guard and its ``--debug`` flag, shared by every command."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

import click

from ..guard import as_our_error, debug_requested
from ..limits import DEBUG_VARIABLE

__all__ = ["clean_errors", "debug_option"]

F = TypeVar("F", bound=Callable[..., Any])
_DEBUG_KEY = "podtemplate.debug"


def _debug() -> bool:
    context = click.get_current_context(silent=True)
    flagged = context is not None and context.meta.get(_DEBUG_KEY, False)
    return bool(flagged) or debug_requested()


def clean_errors(command: F) -> F:
    """The CLI's guard. Bad input prints one line and exits 2, never a traceback; a bug
    prints one line asking for a report and exits 70. Nothing is written either way (the
    commands write only once everything is rendered). ``--debug`` or PODTEMPLATE_DEBUG=1
    adds the traceback."""

    @wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except BrokenPipeError:  # the reader (| head) left: not an error of ours
            with contextlib.suppress(OSError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(1)
        except Exception as failure:
            error = as_our_error(failure)
            if _debug():
                import traceback

                traceback.print_exception(failure, file=sys.stderr)
            for line in error.lines():  # one per problem (every policy violation)
                click.echo(f"error: {line}", err=True)
            sys.exit(error.exit_code)

    return run  # type: ignore[return-value]


def _set_debug(context: click.Context, _: click.Parameter, value: bool) -> None:
    if value:
        context.meta[_DEBUG_KEY] = True


debug_option = click.option(
    "--debug", is_flag=True, expose_value=False, is_eager=True, callback=_set_debug,
    help=f"Show the traceback behind an error (also: {DEBUG_VARIABLE}=1).")



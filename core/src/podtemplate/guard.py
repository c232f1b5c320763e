"""The one guard at every entry point: whatever goes wrong becomes a
:class:`PodTemplateError` with one line saying what, where and the fix.

Bad input is our error as raised. Input too deep or too large for Python itself (a
``RecursionError`` or ``MemoryError`` that a check upstream did not catch) is still bad
input. Anything else is a bug: an :class:`InternalError` that says so and asks for a
report; the original exception stays chained for ``--debug``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from .errors import DefinitionError, InternalError, PodTemplateError
from .limits import DEBUG_VARIABLE

__all__ = ["as_our_error", "guarded", "debug_requested", "REPORT"]

F = TypeVar("F", bound=Callable[..., Any])

REPORT = "please report it, with the output of the same command run with --debug"


def as_our_error(error: BaseException) -> PodTemplateError:
    """``error`` as the one error type; ours pass through unchanged."""
    if isinstance(error, PodTemplateError):
        return error
    if isinstance(error, RecursionError):
        return DefinitionError("the input is nested too deeply to process",
                               fix="flatten the data (a real pod spec is ~15 levels deep)")
    if isinstance(error, MemoryError):
        return DefinitionError("the input is too large to process in the memory available",
                               fix="split it, or give the process more memory")
    detail = str(error).splitlines()[0][:200] if str(error) else ""
    return InternalError(
        f"internal error: {type(error).__name__}{': ' + detail if detail else ''} "
        "(a bug in podtemplate or a plugin, not in your input)", fix=REPORT)


def guarded(function: F) -> F:
    """Run ``function`` so that every exception it lets out is ours (the cause chained)."""

    @wraps(function)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except PodTemplateError:
            raise
        except Exception as error:
            raise as_our_error(error) from error

    return run  # type: ignore[return-value]


def debug_requested() -> bool:
    """Whether tracebacks were asked for by the environment (``PODTEMPLATE_DEBUG=1``)."""
    return os.environ.get(DEBUG_VARIABLE, "").strip().lower() not in ("", "0", "false", "no")

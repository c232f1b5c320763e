"""The one guard at every entry point: whatever goes wrong becomes a
:class:`PodTemplateError` with one line saying what, where and the fix.

Bad input is our error as raised. Input too deep or too large for Python itself (a
``RecursionError`` or ``MemoryError`` that a check upstream did not catch) is still bad
input. Anything else is a bug: an :class:`InternalError` that says so and asks for a
report; the original exception stays chained for ``--debug``.

An entry point also pauses the cyclic garbage collector while it makes many objects and
few cycles (:func:`collector_paused`): a render, and the ``podtemplate`` command as a
whole, its imports included.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any, TypeVar

from .errors import DefinitionError, InternalError, PodTemplateError, did_you_mean
from .limits import DEBUG_VARIABLE

__all__ = ["as_our_error", "call_mistake", "collector_paused", "guarded", "debug_requested",
           "REPORT"]

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
            if isinstance(error, TypeError):  # the call itself may not fit the signature
                mistake = call_mistake(function, args, kwargs)
                if mistake is not None:
                    raise mistake from error
            raise as_our_error(error) from error

    return run  # type: ignore[return-value]


def call_mistake(function: Callable[..., Any], args: tuple[Any, ...],
                 kwargs: dict[str, Any]) -> DefinitionError | None:
    """The caller's mistake when ``args`` and ``kwargs`` do not fit ``function``'s
    signature (an unknown keyword, with the one a typo meant; a missing or extra
    argument), else None: a ``TypeError`` from inside a call that fits is a bug."""
    import inspect

    try:
        signature = inspect.signature(function)
        signature.bind(*args, **kwargs)
    except TypeError as error:
        mistake = str(error)
    except ValueError:  # no signature to judge the call by
        return None
    else:
        return None
    name = function.__qualname__.removesuffix(".__init__")
    parameters = signature.parameters
    named = [p.name for p in parameters.values()
             if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name not in ("self", "cls")]
    takes_any = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    unknown = [key for key in kwargs if key not in named and not takes_any]
    fix = f"see help({name}) for the accepted arguments"
    if not unknown:
        return DefinitionError(f"{name}: {mistake}", fix=fix)
    meant = did_you_mean(unknown[0], named)
    if meant is None:
        return DefinitionError(f"{name} has no argument {unknown[0]!r}", field=unknown[0],
                               fix=fix)
    return DefinitionError(f"{name} has no argument {unknown[0]!r}; did you mean {meant!r}?",
                           field=unknown[0], fix=f"write {meant}=")


def debug_requested() -> bool:
    """Whether tracebacks were asked for by the environment (``PODTEMPLATE_DEBUG=1``)."""
    return os.environ.get(DEBUG_VARIABLE, "").strip().lower() not in ("", "0", "false", "no")


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off inside, restored as it was afterwards, also on
    error. A render makes many objects and few cycles (reference counting frees its
    garbage): left on, the collector's passes over the whole heap cost as much as the
    render itself on a large task set, and about a twentieth of a one-task CLI run
    (its passes over what the imports made)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()

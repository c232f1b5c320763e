"""Importing a user's task module under guard: its prints go to stderr (never into the
manifests on stdout), ``sys.exit`` is an error rather than a silent empty success, an
endless import ends at the timeout, and a file beside the tasks that would shadow an
installed module (a ``kubernetes.py``) is refused before anything is imported."""

from __future__ import annotations

import contextlib
import importlib
import importlib.machinery
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from ..errors import TargetError
from ..limits import limits, variable_for

__all__ = ["guarded_import", "check_no_shadowing"]

T = TypeVar("T")


class _ImportTimeout(BaseException):
    """Raised into the importing code by the timer; a BaseException so that the module's
    own ``except Exception`` does not swallow it."""


def _module_names(folder: Path) -> list[str]:
    """Top-level module names a folder on sys.path provides (files and regular packages;
    a folder without ``__init__.py`` shadows nothing: a regular package wins over it)."""
    names = []
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return []
    for entry in entries:
        if entry.suffix == ".py" and entry.stem.isidentifier():
            names.append(entry.stem)
        elif entry.is_dir() and entry.name.isidentifier() and (entry / "__init__.py").exists():
            names.append(entry.name)
    return names


def _elsewhere(name: str, folder: Path) -> str | None:
    """Where ``name`` is importable from outside ``folder``, or None."""
    if name in sys.builtin_module_names or name in sys.stdlib_module_names:
        return "the standard library"
    loaded = sys.modules.get(name)
    origin = getattr(loaded, "__file__", None) if loaded is not None else None
    if origin and not Path(origin).resolve().is_relative_to(folder):
        return str(origin)
    others = [p for p in sys.path if Path(p or ".").resolve() != folder]
    spec = importlib.machinery.PathFinder.find_spec(name, others)
    if spec is not None and spec.origin not in (None, "namespace"):
        return spec.origin
    return None


def check_no_shadowing(folder: Path, target: str) -> None:
    """Refuse to put ``folder`` first on sys.path if a module in it has the name of an
    installed or standard module: every later import of that name would get the file."""
    folder = folder.resolve()
    for name in _module_names(folder):
        where = _elsewhere(name, folder)
        if where is not None:
            raise TargetError(
                f"{folder / name}{'' if (folder / name).is_dir() else '.py'} would shadow "
                f"the installed module {name!r} ({where}); refused", file=target,
                fix=f"rename {name!r} beside your tasks (for example to {name}_tasks)")


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """Everything printed while importing goes to stderr, at the Python level and, when
    stdout is the process's descriptor 1, at the descriptor level (C code, os.write)."""
    sys.stdout.flush()
    descriptor = None
    try:
        if sys.stdout.fileno() == 1 and sys.stderr.fileno() == 2:
            descriptor = os.dup(1)
            os.dup2(2, 1)
    except (AttributeError, OSError, ValueError):  # a test runner's stream: no descriptor
        descriptor = None
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        with contextlib.suppress(Exception):
            sys.stderr.flush()
        if descriptor is not None:
            os.dup2(descriptor, 1)
            os.close(descriptor)


@contextlib.contextmanager
def _timeout(seconds: float) -> Iterator[None]:
    """Interrupt the body after ``seconds`` (where a timer signal is available: the main
    thread of a POSIX process; elsewhere the body runs unbounded)."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not \
            threading.main_thread():
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise _ImportTimeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def guarded_import(step: Callable[[], T], target: str) -> T:
    """Run ``step`` (a find_spec or an import of the user's module) under the guard."""
    seconds = limits().import_timeout
    bytecode = sys.dont_write_bytecode
    sys.dont_write_bytecode = True  # no __pycache__ left beside the user's tasks
    try:
        with _stdout_to_stderr(), _timeout(seconds):
            return step()
    except _ImportTimeout:
        raise TargetError(f"importing took longer than {seconds:g} s (an endless loop or "
                          "a blocking call at import time?)", file=target,
                          fix="move slow work into the task function, or raise "
                          f"{variable_for('import_timeout')}=<seconds>") from None
    except SystemExit as stop:
        raise TargetError(f"the module called sys.exit({stop.code!r}) while being imported",
                          file=target, fix="guard script code with "
                          "if __name__ == '__main__':") from None
    finally:
        sys.dont_write_bytecode = bytecode

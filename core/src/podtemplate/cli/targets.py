"""Render targets: Python files, folders or modules, optionally ``:task``."""

from __future__ import annotations

import gc
import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from ..errors import MissingPluginError, PodTemplateError, TargetError, brief
from ..model.task import Task
from .importing import check_no_shadowing, guarded_import
from .statements import collecting_definitions

__all__ = ["collect_tasks", "load_module"]


def _module_name_for(path: Path) -> tuple[str, Path]:
    """Dotted module name of a file and the folder to put on sys.path for it: walk up
    through packages (folders with __init__.py)."""
    path = path.resolve()
    parts = [path.stem]
    folder = path.parent
    while (folder / "__init__.py").exists():
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts), folder


def _import_error(target: str, error: BaseException) -> PodTemplateError:
    if isinstance(error, PodTemplateError):
        return error.located(file=target)
    missing = error.name or "" if isinstance(error, ModuleNotFoundError) else ""
    if missing.startswith("podtemplate_"):
        kind = missing.split(".")[0].removeprefix("podtemplate_")
        return MissingPluginError(f"the task type '{kind}' is not installed", file=target,
                                  fix=f"pip install podtemplate-{kind}")
    where = _user_line(error)
    return TargetError(f"importing failed: {type(error).__name__}: {_one_line(error)}"
                       f"{' at ' + where if where else ''}",
                       file=target, fix="fix the error in the module")


def _one_line(error: BaseException) -> str:
    """The error's message on one line: a pydantic ValidationError (a model of a
    library, such as the kubernetes client's) as its model, first field and problem."""
    errors = getattr(error, "errors", None)
    title = getattr(error, "title", None)
    if callable(errors) and isinstance(title, str):
        try:
            found = list(errors())
        except Exception:  # not pydantic's after all
            found = []
        if found:
            first = found[0]
            field = ".".join(str(part) for part in first.get("loc", ()))
            more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
            return (f"{title}({field}={brief(first.get('input'))}): "
                    f"{str(first.get('msg', '')).lower()}{more}")
    return " ".join(str(error).split())


def _user_line(error: BaseException) -> str | None:
    """``file:line`` of the user's code where ``error`` arose: the deepest frame outside
    the standard library, installed packages and podtemplate (``os.environ['X']`` fails
    in ``<frozen os>``, but the line to fix is the user's)."""
    if isinstance(error, SyntaxError) and error.filename:
        return f"{error.filename}:{error.lineno}"
    import sysconfig  # here, on the way out: a render that fails to import is rare
    import traceback

    ours = str(Path(__file__).resolve().parents[1])
    theirs = {sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib",
                                                     "platlib")}
    frames = traceback.extract_tb(error.__traceback__) if error.__traceback__ else []
    for frame in reversed(frames):
        name = frame.filename
        if name.startswith("<") or name.startswith((ours, *theirs)):
            continue
        return f"{name}:{frame.lineno}"
    return f"{frames[-1].filename}:{frames[-1].lineno}" if frames else None


def load_module(target: str) -> ModuleType:
    path = Path(target)
    if path.suffix == ".py" or path.exists():
        if not path.is_file():
            raise TargetError("not a regular file" if path.exists() else "file not found",
                              file=target,
                              fix="give an existing .py file, folder or an importable module")
        name, root = _module_name_for(path)
        loaded = sys.modules.get(name)
        loaded_from = Path(getattr(loaded, "__file__", "") or "").resolve()
        if loaded is not None and loaded_from != path.resolve():
            raise TargetError(f"a different module named {name!r} is already imported "
                              f"from {loaded.__file__}", file=target,
                              fix="rename the file or its package so module names differ")
        if str(root) not in sys.path:
            check_no_shadowing(root, target)
            sys.path.insert(0, str(root))
        importlib.invalidate_caches()
    else:
        name = target
        if not all(part.isidentifier() for part in name.split(".")):  # .jobs, etl/jobs
            here = path.with_suffix(".py") if path.name and path.suffix == "" else None
            raise TargetError("not a .py file, a folder or a module name", file=target, fix=(
                f"give the file, {here}" if here is not None and here.is_file() else
                "give a .py file path, a folder, or a dotted module name (package.module)"))
    try:
        spec = guarded_import(lambda: importlib.util.find_spec(name), target)
    except ModuleNotFoundError:
        spec = None
    except (ImportError, ValueError) as error:  # a parent package failed, or a bad name
        raise _import_error(target, error) from error
    if spec is None:
        here = Path(*name.split(".")).with_suffix(".py") if name.strip(".") else None
        raise TargetError("module not found", file=target, fix=(
            f"give the file, {here}, or run with PYTHONPATH=. to import it as a module"
            if here is not None and here.is_file() else "give a .py file path, or a module "
            "importable from here (an installed package, or one under PYTHONPATH)"))
    try:
        with collecting_definitions(name):  # every refusal of the module, in one render
            return guarded_import(lambda: importlib.import_module(name), target)
    except TargetError:
        raise
    except Exception as error:  # chained: --debug shows the user's traceback
        raise _import_error(target, error) from error


def _tasks_of(module: ModuleType) -> list[tuple[str, Task]]:
    return [(attr, value) for attr, value in vars(module).items() if isinstance(value, Task)]


def collect_tasks(targets: list[str]) -> list[Task]:
    """The tasks of each target in order; ``file.py:name`` selects one task (by attribute
    or task name); a folder means each of its ``.py`` files not starting with ``_`` (and
    ``folder:name`` the task of that name in each module that has one)."""
    tasks: list[Task] = []
    for target in targets:
        spec, _, selector = target.rpartition(":") if _has_selector(target) else (target, "", "")
        spec = spec or target
        folder = Path(spec).is_dir()
        files = sorted(Path(spec).glob("*.py")) if folder else [None]
        selected = 0
        for file in files:
            if file is not None and file.name.startswith("_"):
                continue
            module_target = str(file) if file is not None else spec
            found = _tasks_of(load_module(module_target))
            if selector:
                found = [(a, t) for a, t in found if selector in (a, t.name)]
                if not found and not folder:
                    raise TargetError(f"task {brief(selector)} not found", file=module_target,
                                      fix="name a task defined in the module")
            selected += len(found)
            tasks.extend(t for _, t in found)
        if selector and folder and not selected:  # folder:t1 takes every module's t1
            raise TargetError(f"task {brief(selector)} not found in any module of the folder",
                              file=spec, fix="name a task defined in one of its modules")
    if not tasks:
        raise TargetError("no tasks found", file=", ".join(targets),
                          fix="define tasks with @task (or a plugin's task class) in the "
                          "module, or point at the file that does")
    seen: dict[tuple[str, str], Task] = {}
    for task in tasks:  # a task is its module and name: two modules may both have t1
        identity = (task.module or "", task.name)
        if identity in seen and seen[identity] is not task:
            raise TargetError(f"two tasks are named {task.name!r} in module "
                              f"{task.module or '?'}", task=task.name,
                              fix="give one of them another name= so their objects differ")
        seen[identity] = task
    # The modules and task definitions live as long as the command: frozen, the
    # collector's full passes no longer walk them while the tasks render.
    gc.freeze()
    return list(seen.values())


def _has_selector(target: str) -> bool:
    head, sep, tail = target.rpartition(":")
    return bool(sep) and bool(tail) and "/" not in tail and "\\" not in tail and len(head) > 1

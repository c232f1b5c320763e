"""The shape the code base keeps: plugins use core through its three public modules only,
no plugin hook asks whether a task is its own, and core's top level stays small."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import podtemplate
import podtemplate.plugin
import podtemplate.testing
import pytest

REPO = Path(__file__).resolve().parents[1]
CORE = Path(podtemplate.__file__).resolve().parent
PUBLIC = {"podtemplate", "podtemplate.plugin", "podtemplate.testing"}
PLUGIN_FILES = sorted(p for p in (REPO / "plugins").glob("*/**/*.py")
                      if not {".venv", "build"} & set(p.parts))
# `task.task_type != "x"`, `task_type == TASK_TYPE.name`...: the guard dispatch replaced.
GUARD = re.compile(r"\btask_type\s*[!=]=|[!=]=\s*(?:task\.)?task_type\b")


def core_imports(source: str) -> list[tuple[int, str]]:
    """(line, module) of every import of a ``podtemplate`` module (not ``podtemplate_x``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found += [(node.lineno, name) for name in names
                  if name == "podtemplate" or name.startswith("podtemplate.")]
    return found


def test_the_import_check_sees_private_imports() -> None:
    source = "from podtemplate.merge import merge\nimport podtemplate.model.names\n"
    assert core_imports(source) == [(1, "podtemplate.merge"), (2, "podtemplate.model.names")]
    assert core_imports("from podtemplate_dask import Dask\nimport podtemplate\n") == [
        (2, "podtemplate")]


@pytest.mark.parametrize("path", PLUGIN_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_plugins_import_only_the_public_modules_of_core(path: Path) -> None:
    private = [f"{path.relative_to(REPO)}:{line}: {module}"
               for line, module in core_imports(path.read_text()) if module not in PUBLIC]
    assert not private, ("plugins may import podtemplate, podtemplate.plugin and "
                         "podtemplate.testing only: " + "; ".join(private))


def test_no_plugin_source_asks_whether_a_task_is_its_own() -> None:
    sources = [*(REPO / "plugins").glob("*/src/**/*.py"), CORE / "python_task.py"]
    guards = [f"{path.relative_to(REPO)}:{number}: {line.strip()}"
              for path in sources
              for number, line in enumerate(path.read_text().splitlines(), 1)
              if GUARD.search(line)]
    assert GUARD.search("    if task.task_type != TASK_TYPE.name:")
    assert not guards, "core dispatches each task to its own plugin: " + "; ".join(guards)


def test_core_top_level_stays_small() -> None:
    modules = sorted(p.name for p in CORE.glob("*.py"))
    assert len(modules) <= 20, modules


@pytest.mark.parametrize("module", [podtemplate, podtemplate.plugin, podtemplate.testing],
                         ids=lambda m: m.__name__)
def test_every_public_name_exists(module: object) -> None:
    names = module.__all__  # type: ignore[attr-defined]
    assert len(names) == len(set(names))
    assert [name for name in names if not hasattr(module, name)] == []

"""The shape the code base keeps: plugins use core through its three public modules only,
per-task hooks reach their own plugin through pluggy (so no hook asks whether a task is
its own), built-ins load by one path, and core's top level stays small."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pluggy
import podtemplate
import podtemplate.plugin
import podtemplate.testing
import pytest
from podtemplate.dispatch import (
    BUILTIN_PLUGINS,
    PER_TASK_HOOKS,
    build_plugin_manager,
    task_types,
)

REPO = Path(__file__).resolve().parents[1]
CORE = Path(podtemplate.__file__).resolve().parent
PUBLIC = {"podtemplate", "podtemplate.plugin", "podtemplate.testing"}
PLUGIN_FILES = sorted(p for p in (REPO / "plugins").glob("*/**/*.py")
                      if not {".venv", "build"} & set(p.parts))


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


def test_per_task_hooks_reach_only_the_plugin_of_the_task_type_through_pluggy() -> None:
    """The dispatch that spares every hook body asking whether a task is its own: for
    each installed type, each per-task hook is a pluggy hook caller (so tracing and
    monitoring see it) holding the declaring plugin's implementation alone."""
    manager = build_plugin_manager()
    for name in task_types(manager):
        owner = manager.owners[name]
        for hook in PER_TASK_HOOKS:
            caller = manager.hook_for(hook, name)
            assert isinstance(caller, pluggy.HookCaller)
            assert [impl.plugin for impl in caller.get_hookimpls()] == [owner], (name, hook)


def test_built_ins_are_named_once_and_need_no_entry_point() -> None:
    pyproject = tomllib.loads((CORE.parents[1] / "pyproject.toml").read_text())
    assert "podtemplate" not in pyproject["project"].get("entry-points", {})
    manager = build_plugin_manager(load_entry_points=False)
    assert [name for name, _ in manager.list_name_plugin()] == [
        value.partition(":")[0] for value in BUILTIN_PLUGINS]
    assert "python" in task_types(manager)


def test_the_spark_launcher_imports_only_the_public_modules_of_core() -> None:
    from podtemplate_spark.launcher import LAUNCHER_SOURCE

    assert [module for _, module in core_imports(LAUNCHER_SOURCE)] == ["podtemplate.plugin"]


GENERATED = "GENERATED FILE - DO NOT EDIT"  # the first lines of a generated module say so
SOURCE_FILES = sorted(p for root in (REPO / "core", REPO / "plugins") for p in root.rglob("*.py")
                      if not {".venv", "build"} & set(p.parts))


def test_no_hand_written_module_is_over_500_lines() -> None:
    """A module a newcomer reads in one sitting, in core and the plugins, their tests
    too; a generated one (the merge's list rules) says so in its first lines, with the
    script that makes it."""
    long = []
    for path in SOURCE_FILES:
        lines = path.read_text(encoding="utf-8").splitlines()
        if len(lines) > 500 and not any(GENERATED in line for line in lines[:5]):
            long.append(f"{path}: {len(lines)} lines")
    assert len(SOURCE_FILES) > 150 and long == []


def test_core_top_level_stays_small() -> None:
    modules = sorted(p.name for p in CORE.glob("*.py"))
    assert len(modules) <= 20, modules


@pytest.mark.parametrize("module", [podtemplate, podtemplate.plugin, podtemplate.testing],
                         ids=lambda m: m.__name__)
def test_every_public_name_exists(module: object) -> None:
    names = module.__all__  # type: ignore[attr-defined]
    assert len(names) == len(set(names))
    assert [name for name in names if not hasattr(module, name)] == []

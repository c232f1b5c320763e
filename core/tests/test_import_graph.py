"""The render context is plain data at the bottom of the import graph: no cycle runs
through it, even counting the imports made for type checkers alone, and none runs among
the modules around the plugin hooks (hookspecs, context, dispatch, policy, files) when
the code runs, imports inside functions included."""

from __future__ import annotations

import ast
import copy
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import podtemplate
import pytest

PACKAGE = Path(podtemplate.__file__).parent
# Where the cycle through the render context ran (a package stands for its modules).
AROUND_THE_HOOKS = ("hookspecs", "context", "stash", "dispatch", "policy", "files")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(tree: ast.AST, module: str, is_package: bool, *, typing: bool) -> Iterator[str]:
    """What ``tree`` imports, inside functions too; with ``typing``, also what it imports
    for type checkers alone (under ``TYPE_CHECKING``)."""
    package = module if is_package else module.rpartition(".")[0]
    if not typing:
        tree = copy.deepcopy(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                node.body = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                stem = ".".join(parts[: len(parts) - node.level + 1]
                                + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            if node.module:  # ``from . import x`` imports x, the package is loaded already
                yield stem
            yield from (f"{stem}.{alias.name}" for alias in node.names)


def _packages_run(name: str, importer: str) -> Iterator[str]:
    """The packages whose ``__init__`` importing ``name`` runs first (``a.b.c`` runs
    ``a`` and ``a.b``), but those of ``importer``, which are loaded already."""
    parts = name.split(".")
    for end in range(1, len(parts)):
        package = ".".join(parts[:end])
        if importer != package and not importer.startswith(package + "."):
            yield package


def import_graph(*, typing: bool) -> dict[str, set[str]]:
    """podtemplate module -> the podtemplate modules it imports. Without ``typing`` (what
    runs), a module also imports the packages above each module it imports: their
    ``__init__`` runs first, and a cycle through one fails as any other does."""
    trees = {_module_name(path): (path, ast.parse(path.read_text(encoding="utf-8")))
             for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for module, (path, tree) in trees.items():
        found = set(_imports(tree, module, path.name == "__init__.py", typing=typing))
        if not typing:
            found.update(package for name in list(found) if name in trees
                         for package in _packages_run(name, module))
        graph[module] = {name for name in found if name in trees and name != module}
    return graph


def _cycle(graph: dict[str, set[str]], through: Callable[[str], bool]) -> list[str] | None:
    """A cycle of ``graph`` through a module that ``through`` accepts, if there is one."""
    for start in sorted(filter(through, graph)):
        seen: set[str] = set()
        stack = [(start, [start])]
        while stack:
            module, path = stack.pop()
            for other in sorted(graph.get(module, ())):
                if other == start:
                    return [*path, start]
                if other not in seen:
                    seen.add(other)
                    stack.append((other, [*path, other]))
    return None


def _around_the_hooks(module: str) -> bool:
    parts = module.split(".")
    return len(parts) > 1 and parts[1] in AROUND_THE_HOOKS


def test_the_graph_tells_imports_in_functions_from_type_checking_ones() -> None:
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                     "    from .context import RenderContext\n"
                     "def f():\n    from .dispatch import task_types\n")
    seen = set(_imports(tree, "podtemplate.hookspecs", False, typing=False))
    assert "podtemplate.dispatch" in seen and "podtemplate.context" not in seen
    assert "podtemplate.context" in set(_imports(tree, "podtemplate.hookspecs", False,
                                                 typing=True))
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycle(graph, lambda m: m == "b") == ["b", "c", "a", "b"]
    assert _cycle(graph, lambda m: m == "d") is None
    assert list(_packages_run("podtemplate.resolve.kinds", "podtemplate.policy.enforce")) == [
        "podtemplate.resolve"]
    assert list(_packages_run("podtemplate.resolve.kinds", "podtemplate.resolve.pod")) == []


def test_no_cycle_runs_through_the_render_context() -> None:
    graph = import_graph(typing=True)
    assert _cycle(graph, lambda m: m == "podtemplate.context") is None
    assert graph["podtemplate.context"] <= {"podtemplate.platform", "podtemplate.stash",
                                            "podtemplate.files.store",
                                            "podtemplate.model.templates"}


def test_no_import_cycle_among_the_modules_around_the_hooks() -> None:
    assert _cycle(import_graph(typing=False), _around_the_hooks) is None


@pytest.mark.parametrize("module", ["podtemplate.context", "podtemplate.stash",
                                    "podtemplate.hookspecs", "podtemplate.dispatch",
                                    "podtemplate.policy", "podtemplate.files.store",
                                    "podtemplate.resolve.pod", "podtemplate.policy.enforce",
                                    "podtemplate.policy.manifests"])
def test_each_module_imports_on_its_own(module: str) -> None:
    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr

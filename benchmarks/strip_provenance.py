"""A build of :mod:`podtemplate.merge.engine` without provenance support, for the "explain cost
off" figure.

The fair baseline for "provenance off costs nothing" is the same merge with the
provenance machinery taken out, not another merge. So the merge's own source is
rewritten: the provenance variables (``record``, ``path`` and what derives from them)
become ``None``, parameters that carry them are removed from every definition and call,
and the branches that test them are folded away at compile time. What remains is the
merge as it would be written if it had never recorded provenance.

The rewrite relies on one convention of merge.py: provenance travels in variables of the
names in :data:`PROVENANCE_NAMES`. :func:`stripped_merge` checks that none survives.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["PROVENANCE_NAMES", "StripError", "stripped_merge", "swapped_merge"]

PROVENANCE_NAMES = frozenset({"record", "path", "cpath", "ipath", "origins"})


class StripError(Exception):
    """merge.py no longer follows the convention the rewrite relies on."""


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


class _Strip(ast.NodeTransformer):
    """Remove provenance parameters and their values; fold what becomes constant."""

    def __init__(self, removed: dict[str, list[int]]) -> None:
        self.removed = removed  # function name -> positions of removed parameters

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        node.args.args = [a for a in node.args.args if a.arg not in PROVENANCE_NAMES]
        node.args.kwonlyargs, node.args.kw_defaults = _drop_kwonly(node.args)
        self.generic_visit(node)
        if not node.body:
            node.body = [ast.Pass()]
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        positions = self.removed.get(node.func.id) if isinstance(node.func, ast.Name) else None
        if positions:
            node.args = [a for i, a in enumerate(node.args) if i not in positions]
        node.keywords = [k for k in node.keywords if k.arg not in PROVENANCE_NAMES]
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in PROVENANCE_NAMES and isinstance(node.ctx, ast.Load):
            return ast.copy_location(ast.Constant(None), node)
        return node

    def visit_Assign(self, node: ast.Assign) -> ast.AST | None:
        self.generic_visit(node)
        names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        if names and all(name in PROVENANCE_NAMES for name in names):
            # Keep a call for its effects (``origins = _union_delete(...)`` deletes items).
            has_call = any(isinstance(n, ast.Call) for n in ast.walk(node.value))
            return ast.Expr(node.value) if has_call else None
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if len(node.ops) == 1 and _is_none(node.left) and _is_none(node.comparators[0]):
            if isinstance(node.ops[0], ast.Is):
                return ast.Constant(True)
            if isinstance(node.ops[0], ast.IsNot):
                return ast.Constant(False)
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        is_and = isinstance(node.op, ast.And)
        kept: list[ast.expr] = []
        for position, value in enumerate(node.values):
            if isinstance(value, ast.Constant):
                decides = (not value.value) if is_and else bool(value.value)
                if decides:
                    # Short-circuits here: the rest never runs, and what ran before
                    # only matters if it has effects.
                    if all(_pure(v) for v in kept):
                        return ast.Constant(value.value)
                    kept.append(value)
                    break
                if position < len(node.values) - 1:
                    continue  # a neutral constant before the end changes nothing
            kept.append(value)
        if len(kept) == 1:
            return kept[0]
        node.values = kept
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Not) and isinstance(node.operand, ast.Constant):
            return ast.Constant(not node.operand.value)
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.test, ast.Constant):
            return node.body if node.test.value else node.orelse
        return node

    def visit_If(self, node: ast.If) -> Any:
        self.generic_visit(node)
        if isinstance(node.test, ast.Constant):
            return (node.body if node.test.value else node.orelse) or None
        if not node.body:
            node.body = [ast.Pass()]
        return node


_PURE_BUILTINS = frozenset({"len", "isinstance"})


def _pure(node: ast.AST) -> bool:
    """No effects but its value: no assignments, and no calls but to a few builtins."""
    for sub in ast.walk(node):
        if isinstance(sub, (ast.NamedExpr, ast.Await, ast.Yield)):
            return False
        if isinstance(sub, ast.Call) and not (isinstance(sub.func, ast.Name)
                                              and sub.func.id in _PURE_BUILTINS):
            return False
    return True


class _DropTrivialCalls(ast.NodeTransformer):
    """Remove statements that only call a function which now just returns None."""

    def __init__(self, trivial: set[str]) -> None:
        self.trivial = trivial

    def visit_Expr(self, node: ast.Expr) -> ast.AST | None:
        call = node.value
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id in self.trivial and all(_pure(a) for a in call.args)):
            return None
        return node


def _trivial_functions(tree: ast.Module) -> set[str]:
    """Module functions whose body (after the rewrite) returns None straight away."""
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            body = [s for s in node.body if not (isinstance(s, ast.Expr)
                                                 and isinstance(s.value, ast.Constant))]
            first = body[0] if body else None
            if isinstance(first, ast.Return) and (first.value is None or _is_none(first.value)):
                names.add(node.name)
    return names


def _drop_kwonly(args: ast.arguments) -> tuple[list[ast.arg], list[ast.expr | None]]:
    pairs = [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
             if a.arg not in PROVENANCE_NAMES]
    return [a for a, _ in pairs], [d for _, d in pairs]


def _removed_positions(tree: ast.Module) -> dict[str, list[int]]:
    removed: dict[str, list[int]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            positions = [i for i, a in enumerate(node.args.args) if a.arg in PROVENANCE_NAMES]
            if positions:
                removed[node.name] = positions
    return removed


def stripped_merge() -> types.ModuleType:
    """A fresh module object: podtemplate.merge.engine compiled without provenance support."""
    original = importlib.import_module("podtemplate.merge.engine")
    tree = ast.parse(inspect.getsource(original))
    tree = _Strip(_removed_positions(tree)).visit(tree)
    tree = ast.fix_missing_locations(_DropTrivialCalls(_trivial_functions(tree)).visit(tree))
    left = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} & PROVENANCE_NAMES
    if left:
        raise StripError(f"provenance names left after the rewrite: {sorted(left)}")
    module = types.ModuleType("podtemplate.merge._without_provenance")
    module.__dict__.update(__package__=original.__package__, __file__=original.__file__)
    exec(compile(tree, "<merge without provenance>", "exec"), module.__dict__)
    return module


@contextmanager
def swapped_merge(replacement: types.ModuleType) -> Iterator[None]:
    """Point every podtemplate module that imported a merge function at the replacement's
    function of the same name, for the duration of the block."""
    original = importlib.import_module("podtemplate.merge.engine")
    functions = {id(v): k for k, v in vars(original).items() if inspect.isfunction(v)}
    patched: list[tuple[types.ModuleType, str, Any]] = []
    for name, module in list(sys.modules.items()):
        if not name.startswith("podtemplate") or module is None:
            continue
        for attr, value in list(vars(module).items()):
            if id(value) in functions and hasattr(replacement, functions[id(value)]):
                patched.append((module, attr, value))
                setattr(module, attr, getattr(replacement, functions[id(value)]))
    try:
        yield
    finally:
        for module, attr, value in patched:
            setattr(module, attr, value)

"""Importing a task module one top-level statement at a time, so that every refusal of a
file is reported in one render: a statement raising a podtemplate error (an ``@task``
with a flytekit-only argument, a config flytekit spells otherwise, a template file that
does not load) is recorded
and the import goes on with the next statement; a later statement that only fails because
it names what a refused one would have defined (``t2 = t1.with_overrides(...)``) is
skipped. At the end the errors are raised together, one line each, in file order. Any
other error ends the import as usual. A module naming ``kubernetes`` runs with the
client's models taking what the flytekit-era client took (:mod:`..model.oldclient`)."""

from __future__ import annotations
import __future__

import ast
import contextlib
import importlib.machinery
import importlib.util
import sys
from collections.abc import Iterator, Sequence
from types import CodeType, ModuleType

from ..errors import DefinitionError, DefinitionErrors, PodTemplateError

__all__ = ["collecting_definitions"]


class _StatementLoader(importlib.machinery.SourceFileLoader):
    """A source loader that runs the module statement by statement (no bytecode cache)."""

    def exec_module(self, module: ModuleType) -> None:
        source = importlib.util.decode_source(self.get_data(self.path))
        tree = ast.parse(source, filename=self.path)
        flags = _future_flags(tree)
        if module.__doc__ is None:
            module.__doc__ = ast.get_docstring(tree, clean=False)
        # flytekit-era kubernetes objects (V1Toleration(value=1)...) are taken as the old
        # client took them, while the module runs (model.oldclient)
        era: contextlib.AbstractContextManager[object] = contextlib.nullcontext()
        if "kubernetes" in source:
            from ..model.oldclient import flytekit_era_models

            era = flytekit_era_models()
        with era:
            self._run(module, tree, flags)

    def _run(self, module: ModuleType, tree: ast.Module, flags: int) -> None:
        errors: list[PodTemplateError] = []
        undefined: set[str] = set()
        for statement in _split_imports(tree.body):
            code = self._compile(statement, flags)
            try:
                exec(code, module.__dict__)  # the user's module, as import runs it
            except PodTemplateError as error:
                if error.exit_code != DefinitionError.exit_code:  # an internal error
                    raise
                errors.append(self._located(error, statement))
                undefined |= _bound_names(statement)
            except NameError as error:
                if error.name not in undefined:
                    raise
                undefined |= _bound_names(statement)
        if len(errors) == 1:
            raise errors[0]
        if errors:
            raise DefinitionErrors(errors)

    def _located(self, error: PodTemplateError, statement: ast.stmt) -> PodTemplateError:
        """``error`` located at the line of this file it arose from (``three.py:8``)."""
        import traceback  # here: most modules raise nothing

        lines = [frame.lineno for frame in traceback.extract_tb(error.__traceback__)
                 if frame.filename == self.path]
        line = lines[-1] if lines else statement.lineno
        parts = error.errors if isinstance(error, DefinitionErrors) else [error]
        for part in parts:
            part.located(file=f"{self.path}:{line}")
        error.located()
        return error

    def _compile(self, statement: ast.stmt, flags: int) -> CodeType:
        single = ast.Module(body=[statement], type_ignores=[])
        code: CodeType = compile(single, self.path, "exec", flags=flags, dont_inherit=True)
        return code


def _split_imports(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements, with ``from x import a, b`` as one statement per name: a flytekit
    name refused there (``from podtemplate import Secret, task``) leaves the others bound."""
    for statement in body:
        if (isinstance(statement, ast.ImportFrom) and len(statement.names) > 1
                and statement.module != "__future__"):
            for alias in statement.names:
                single = ast.ImportFrom(module=statement.module, names=[alias],
                                        level=statement.level)
                yield ast.copy_location(single, statement)
        else:
            yield statement


def _future_flags(tree: ast.Module) -> int:
    flags = 0
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and statement.module == "__future__":
            for alias in statement.names:
                feature = getattr(__future__, alias.name, None)
                flags |= getattr(feature, "compiler_flag", 0)
    return flags


def _bound_names(statement: ast.stmt) -> set[str]:
    """The names a top-level statement binds (its definitions and assignment targets)."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {statement.name}
    names: set[str] = set()
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
    return names


class _Finder:
    """Finds exactly the target module, from its source file, with the statement loader."""

    def __init__(self, name: str) -> None:
        self.name = name

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return spec
        origin = str(spec.origin)
        return importlib.util.spec_from_file_location(
            fullname, origin, loader=_StatementLoader(fullname, origin),
            submodule_search_locations=spec.submodule_search_locations)


@contextlib.contextmanager
def collecting_definitions(name: str) -> Iterator[None]:
    """While inside, importing module ``name`` collects its definition errors."""
    finder = _Finder(name)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)

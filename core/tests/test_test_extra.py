"""``pip install podtemplate[test]`` brings every package the test API of plugin authors
(``podtemplate.testing`` and the conformance kit under it) imports."""

from __future__ import annotations

import ast
import importlib.metadata as metadata
import re
import sys
import tomllib
from pathlib import Path

import podtemplate

CORE = Path(podtemplate.__file__).resolve().parent
PYPROJECT = CORE.parents[1] / "pyproject.toml"


def _requirement_names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~\[; ]", item, maxsplit=1)[0].lower() for item in requirements}


def _imported_distributions(folder: Path) -> set[str]:
    """The distributions the modules of ``folder`` import (not the standard library)."""
    owners = metadata.packages_distributions()
    found = set()
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top == "podtemplate":
                    continue
                found.update(dist.lower() for dist in owners.get(top, [top]))
    return found


def test_the_test_extra_with_the_dependencies_covers_every_import_of_the_kit() -> None:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    declared = _requirement_names(project["dependencies"]) | _requirement_names(
        project["optional-dependencies"]["test"])
    needed = _imported_distributions(CORE / "testing") | _imported_distributions(
        CORE / "conformance")
    assert {"pytest", "cryptography"} <= needed
    assert needed - declared == set()
    assert {"pytest", "hypothesis"} <= declared

"""The generated pod table (``model/_pod_table.py``) is the table built from the shipped
pod schema (the plain path it replaces at start-up), and is what the generator makes."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from podtemplate.model import _pod_table, _podcheck
from podtemplate.schemas.source import shipped_pod_schema

REPO = Path(__file__).resolve().parents[2]
POD_JSON = "core/src/podtemplate/schemas/kubernetes/pod.json"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_pod_table",
                                                  REPO / "scripts" / "gen_pod_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_pod_table"] = module
    spec.loader.exec_module(module)
    return module


def _shape(node: tuple[object, ...], seen: dict[int, int]) -> object:
    """The table as nested data, each model numbered where first met: equal shapes mean
    equal tables with the same models shared in the same places."""
    if node[0] != "model":
        return node if node[0] in ("leaf", "any") else (node[0], _shape(node[1], seen))  # type: ignore[arg-type]
    if id(node) in seen:
        return ("model#", seen[id(node)])
    seen[id(node)] = len(seen)
    fields = node[1]
    assert isinstance(fields, dict)
    return ("model", {name: _shape(sub, seen) for name, sub in fields.items()}, node[2],
            node[3])


def test_the_generated_table_is_the_one_built_from_the_shipped_schema() -> None:
    built = _podcheck.build_pod_template_spec_table(shipped_pod_schema()["components"]["schemas"])
    assert _podcheck.pod_template_spec_table() is _pod_table.TABLE
    assert built == _pod_table.TABLE
    assert _shape(_pod_table.TABLE, {}) == _shape(built, {})
    spec = _pod_table.TABLE[1]["spec"]  # type: ignore[index]
    assert "nodeSelector" in spec[1] and spec[3]["node_selector"] == "nodeSelector"


def test_the_committed_table_is_what_the_generator_makes() -> None:
    raw = (REPO / POD_JSON).read_bytes()
    assert Path(_pod_table.__file__).read_text(encoding="utf-8") == _generator().render_text(
        raw, POD_JSON), ("_pod_table.py is stale or hand-edited: regenerate it with "
                         "python scripts/gen_kubernetes.py <the upstream OpenAPI document>")

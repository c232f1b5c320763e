"""``podtemplate.plugin`` exports the plugin API and only that: every name of its
``__all__`` is in docs/plugins.md's API reference and every name there is exported, and
no export carries core's caches (a fold's layers, a memo table, an lru_cache)."""

from __future__ import annotations

import re
from pathlib import Path

import podtemplate.plugin

DOCS = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"


def _reference_names() -> list[str]:
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("\n## API reference\n", 1)[1].split("\n## ", 1)[0]
    names = []
    for line in section.splitlines():
        if line.startswith("| `"):
            names += re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", line.split(" | ")[0])
    return names


def test_all_is_exactly_the_documented_reference() -> None:
    documented = _reference_names()
    assert len(documented) == len(set(documented))
    assert sorted(documented) == sorted(podtemplate.plugin.__all__)


def test_no_export_is_a_speed_internal() -> None:
    exported = set(podtemplate.plugin.__all__)
    assert not exported & {"Layer", "LayerKind", "layer_kinds", "task_layers",
                           "late_platform_layers", "memo", "cache"}
    for name in exported:
        value = getattr(podtemplate.plugin, name)
        assert not hasattr(value, "cache_clear"), name  # an lru_cache is core's
        assert not hasattr(value, "fact"), name  # a layer's cached facts are core's


def test_the_module_has_no_other_public_names() -> None:
    public = {name for name in vars(podtemplate.plugin) if not name.startswith("_")}
    assert public - set(podtemplate.plugin.__all__) <= {"annotations", "Decimal"}

"""Every mutant of ``scripts/mutation`` can still be planted: its text is found once in
the source it names. A change that spells a mutant's text a second time (or rewrites it)
would make CI's ``scripts/mutation --quick`` fail to plant it, not find a survivor."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _mutation_script() -> ModuleType:
    scripts = str(ROOT / "scripts")
    sys.path.insert(0, scripts)  # it imports mutants_core beside it
    try:
        spec = importlib.util.spec_from_file_location("mutation_script",
                                                      ROOT / "scripts" / "mutation.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # its dataclasses look their module up
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(scripts)


def test_every_mutant_plants_in_the_sources() -> None:
    script = _mutation_script()
    mutants = (*script.MUTATIONS, *script.CORE_MUTATIONS)
    unplanted = {m.name: why for m in mutants
                 if isinstance(why := script.plan(m, ROOT), str)}
    assert len(mutants) > 70 and unplanted == {}

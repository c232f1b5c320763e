"""How many examples a property test runs: the size written in the test under
``PODTEMPLATE_TEST_SIZE=full`` (``scripts/test --full``, what CI runs), a quarter of it
(at least 10) otherwise, so the everyday run of the whole suite stays short. Plugins'
tests may use it too: ``@settings(max_examples=examples(200))``."""

from __future__ import annotations

import os

__all__ = ["examples", "SIZE_VARIABLE", "full_size"]

SIZE_VARIABLE = "PODTEMPLATE_TEST_SIZE"


def full_size() -> bool:
    """Whether property tests run at the size written in them."""
    return os.environ.get(SIZE_VARIABLE, "").strip().lower() == "full"


def examples(full: int) -> int:
    """``full`` in a full-size run, else a quarter of it (at least 10, at most ``full``)."""
    return full if full_size() else min(full, max(10, full // 4))

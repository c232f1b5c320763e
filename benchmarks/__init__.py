"""The podtemplate performance harness (issue 9).

Run from the repository root: ``python -m benchmarks`` (N=2000) or
``python -m benchmarks --small`` (a smoke run). The last line printed is one JSON object
with every figure; docs/performance.md explains the figures and their targets.
"""

from __future__ import annotations

from .report import JSON_KEYS, TARGETS

__all__ = ["JSON_KEYS", "TARGETS"]

"""Coverage reporting: which pod-template field reaches which role of which task type.

- :mod:`.matrix`: the matrix, computed by the conformance engine;
- :mod:`.text`: terminal table, markdown and JSON; :mod:`.html`: the heat map.
"""

from __future__ import annotations

from .matrix import coverage

__all__ = ["coverage"]

"""Resolution: the layers of one role folded, in their one order, into its final pod.

- :mod:`.pod`: :func:`resolve_pod` and the order of the layers;
- :mod:`.layers`: a layer as data (label, fragment, primary container name);
- :mod:`._fast`: the fast paths (what many tasks share is folded and proven once; the
  shortcuts of one role's fold).
"""

from __future__ import annotations

from .pod import resolve_pod

__all__ = ["resolve_pod"]

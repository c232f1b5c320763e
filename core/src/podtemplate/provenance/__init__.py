"""Provenance: where every value of every pod came from (``podtemplate explain``).

- :mod:`.trace`: each role resolved with provenance and looked at after every layer; what
  each layer set, replaced and removed; :func:`explain` and the structure it returns;
- :mod:`.sources`: the layers' names, and the file, line and reason of each value;
- :mod:`.walk`: a pod into its leaf values, and a layer as written down one value's path;
- :mod:`.text`, :mod:`.html`: the table, the layer stack as patches, the page.
"""

from __future__ import annotations

from .sources import LAYERS, layer_name
from .trace import Explained, explain, explain_tasks

__all__ = ["LAYERS", "Explained", "explain", "explain_tasks", "layer_name"]

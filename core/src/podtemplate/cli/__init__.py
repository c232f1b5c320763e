"""The ``podtemplate`` command line: a thin shell over the library.

- :mod:`.main`: the group and ``render``; :mod:`.info`: ``coverage`` and ``plugins``;
- :mod:`.targets`: what a render target names (file, folder, module, ``:task``).
"""

from __future__ import annotations

from .main import main

__all__ = ["main"]

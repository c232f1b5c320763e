"""What the scripts that ship upstream schema files share with ``podtemplate crd slim``:
the JSON form of a shipped file, the facts that pin an upstream file, and writing (or
checking) the outputs."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from podtemplate.schemas.slim import dumps, pinned, stale

__all__ = ["dumps", "pinned", "write_or_check"]


def write_or_check(files: Mapping[Path, str], *, check: bool) -> int:
    """Write ``files`` (0), or with ``check`` only report the stale ones (1 if any)."""
    if check:
        found = stale(files)
        for path in found:
            print(f"stale: {path}", file=sys.stderr)
        return 1 if found else 0
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}", file=sys.stderr)
    return 0

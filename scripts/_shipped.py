"""What the scripts that ship upstream schema files share: the JSON form of a shipped
file, the facts that pin an upstream file, and writing (or checking) the outputs."""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["dumps", "pinned", "write_or_check"]


def dumps(document: Mapping[str, Any]) -> str:
    """Deterministic, reviewable JSON: sorted keys, one key per line."""
    return json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def pinned(raw: bytes) -> dict[str, Any]:
    """sha256, size and git blob id of an upstream file (``git hash-object``)."""
    return {"sha256": hashlib.sha256(raw).hexdigest(), "bytes": len(raw),
            "blob": hashlib.sha1(b"blob %d\0" % len(raw) + raw).hexdigest()}


def write_or_check(files: Mapping[Path, str], *, check: bool) -> int:
    """Write ``files`` (0), or with ``check`` only report the stale ones (1 if any)."""
    stale = [path for path, text in files.items()
             if not path.is_file() or path.read_text(encoding="utf-8") != text]
    if check:
        for path in stale:
            print(f"stale: {path}", file=sys.stderr)
        return 1 if stale else 0
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}", file=sys.stderr)
    return 0

"""The bounds every input is held to, each configurable by an environment variable.

A bound exists so that hostile or broken input fails fast with a clear error instead of
exhausting memory or time; the defaults are far above what a real platform writes.
"""

from __future__ import annotations

import os
from typing import NamedTuple

from .errors import DefinitionError

__all__ = ["Limits", "limits", "DEBUG_VARIABLE"]

# Set to 1 to see the traceback behind any error the CLI prints (as --debug does).
DEBUG_VARIABLE = "PODTEMPLATE_DEBUG"


class Limits(NamedTuple):
    """``max_file_bytes``: a YAML file (template, platform, override) larger than this is
    refused before it is parsed (the API server stores no object over 1.5 MiB, and
    parsing costs about 2 s per MiB). ``max_alias_nodes``/``max_alias_bytes``: how many nodes
    and scalar bytes aliases may add beyond the document as written (a billion-laughs
    bomb adds billions). ``max_depth``: nesting of any document or pod spec. A
    Kubernetes pod spec is about 15 levels deep. ``import_timeout``: seconds a task
    module may take to import."""

    max_file_bytes: int = 4 << 20
    max_alias_nodes: int = 1_000_000
    max_alias_bytes: int = 16 << 20
    max_depth: int = 200
    import_timeout: float = 120.0


_VARIABLES = {
    "max_file_bytes": "PODTEMPLATE_MAX_FILE_BYTES",
    "max_alias_nodes": "PODTEMPLATE_MAX_ALIAS_NODES",
    "max_alias_bytes": "PODTEMPLATE_MAX_ALIAS_BYTES",
    "max_depth": "PODTEMPLATE_MAX_DEPTH",
    "import_timeout": "PODTEMPLATE_IMPORT_TIMEOUT",
}


def limits() -> Limits:
    """The limits in force: the defaults, each overridden by its environment variable
    (read on every call, so a test or a wrapper script may set them at any time)."""
    values: dict[str, float | int] = {}
    for field, variable in _VARIABLES.items():
        text = os.environ.get(variable)
        if text is None or not text.strip():
            continue
        kind = float if field == "import_timeout" else int
        try:
            value = kind(text)
        except ValueError:
            value = -1
        if not value > 0 or value == float("inf"):
            raise DefinitionError(f"{variable}={text!r} is not a positive number",
                                  field=variable, fix=f"set {variable} to a positive number "
                                  "or unset it for the default")
        values[field] = value
    return Limits(**values)  # type: ignore[arg-type]


def variable_for(field: str) -> str:
    """The environment variable that sets the limit ``field`` (for error messages)."""
    return _VARIABLES[field]

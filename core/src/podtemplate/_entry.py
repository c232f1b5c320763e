"""The ``podtemplate`` command's entry point. It imports nothing but the standard
library before it loads the CLI, so a Ctrl-C while the CLI loads ends as one during a
command does: one line, exit 130, no traceback."""

from __future__ import annotations

import sys

__all__ = ["run"]


def run() -> None:
    """Load the CLI and run it."""
    try:
        from .cli import main
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted: nothing was written\n")
        sys.exit(130)
    main()

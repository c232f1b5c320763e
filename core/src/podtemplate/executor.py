"""Runs a task function inside its pod: ``python -m podtemplate.executor --module M
--task ATTR [--inputs JSON]``. The rendered command of every function task is this."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["executor_command", "main"]

EXECUTOR_COMMAND = ("python", "-m", "podtemplate.executor")


def executor_command(module: str, attribute: str, inputs: Mapping[str, Any] | None = None
                     ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(command, args) of a container that runs ``module.attribute(**inputs)``."""
    args = ["--module", module, "--task", attribute]
    if inputs:
        args += ["--inputs", json.dumps(dict(inputs), sort_keys=True)]
    return EXECUTOR_COMMAND, tuple(args)


def main(argv: Sequence[str] | None = None) -> int:
    import argparse  # here: a render imports this module for executor_command only

    parser = argparse.ArgumentParser(prog="podtemplate.executor",
                                     description="Run a podtemplate task function.")
    parser.add_argument("--module", required=True)
    parser.add_argument("--task", required=True)
    parser.add_argument("--inputs", default="{}")
    options = parser.parse_args(argv)
    target = getattr(importlib.import_module(options.module), options.task)
    function = getattr(target, "fn", None) or target
    result = function(**json.loads(options.inputs))
    if result is not None:
        print(json.dumps(result, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())

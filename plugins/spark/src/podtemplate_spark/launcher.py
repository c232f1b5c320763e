"""The driver's main application file of a PySpark function task.

The operator runs ``spark-submit <mainApplicationFile> <arguments>`` in the driver pod, and
spark-submit runs a Python main file as ``python <file> <arguments>``. The launcher is
that file: it hands its arguments (``--module M --task F [--inputs JSON]``) to the core
executor, which imports the task and calls its function, so the function runs exactly as
it does in a Python task; inside it ``SparkSession.builder.getOrCreate()`` returns the
application's session.

The image must hold the launcher at :data:`LAUNCHER_PATH` (or wherever
``Spark(main_application_file=...)`` points); one Dockerfile line puts it there::

    RUN python -m podtemplate_spark.launcher --write /opt/podtemplate/spark_launcher.py
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["LAUNCHER_PATH", "DEFAULT_MAIN_APPLICATION_FILE", "LAUNCHER_SOURCE",
           "write_launcher", "main"]

LAUNCHER_PATH = "/opt/podtemplate/spark_launcher.py"
DEFAULT_MAIN_APPLICATION_FILE = f"local://{LAUNCHER_PATH}"
LAUNCHER_SOURCE = '''\
"""podtemplate-spark launcher: runs a podtemplate task function in the Spark driver."""
import sys

from podtemplate.plugin import run_function_task

sys.exit(run_function_task(sys.argv[1:]))
'''


def write_launcher(path: str | Path = LAUNCHER_PATH) -> Path:
    """Write the launcher script to ``path`` (parents created); returns the path."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(LAUNCHER_SOURCE)
    return target


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m podtemplate_spark.launcher",
                                     description="Install the Spark driver launcher.")
    parser.add_argument("--write", metavar="PATH", default=LAUNCHER_PATH,
                        help=f"where to write the launcher (default {LAUNCHER_PATH})")
    options = parser.parse_args(argv)
    print(write_launcher(options.write))
    return 0


if __name__ == "__main__":
    sys.exit(main())

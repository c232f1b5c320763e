"""The conformance kit on the spark task type: every probed Pod field reaches the driver
and the executors at every layer, or is declared (owned, or mapped natively)."""

from __future__ import annotations

from podtemplate.testing import ConformanceSuite

pytest_plugins = ["podtemplate.testing"]  # the one line that enables the kit


class TestSparkConformance(ConformanceSuite):
    task_type = "spark"

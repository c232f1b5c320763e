"""The conformance kit on the container task type: every probed field reaches its pod."""

from __future__ import annotations

from podtemplate.testing import ConformanceSuite

pytest_plugins = ["podtemplate.testing"]  # the one line that enables the kit


class TestContainerConformance(ConformanceSuite):
    task_type = "container"

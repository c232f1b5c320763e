"""The conformance kit on the container task type: every probed field reaches its pod."""

from __future__ import annotations

from podtemplate.testing import ConformanceSuite


class TestContainerConformance(ConformanceSuite):
    task_type = "container"

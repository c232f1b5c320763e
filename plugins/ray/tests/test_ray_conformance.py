"""The conformance kit on the ray task type: every probe field at every layer reaches the
head, both worker groups and the submitter, or is declared with a reason."""

from __future__ import annotations

from podtemplate.testing import ConformanceSuite

pytest_plugins = ["podtemplate.testing"]  # the one line that enables the kit


class TestRayConformance(ConformanceSuite):
    task_type = "ray"

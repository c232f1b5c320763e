"""The conformance kit on the dask task type: every probe field reaches the job runner,
scheduler and worker pods, or is declared (operator-owned, or unsupported: CRD schema)."""

from __future__ import annotations

from podtemplate.testing import ConformanceSuite

pytest_plugins = ["podtemplate.testing"]  # the one line that enables the kit


class TestDaskConformance(ConformanceSuite):
    task_type = "dask"

"""The conformance kit over every installed task type: core CI fails the moment any
installed plugin loses a field, breaks its CRD or its pod shape."""

from __future__ import annotations

import pytest
from podtemplate.dispatch import build_plugin_manager, task_types
from podtemplate.testing import ConformanceSuite


def installed_task_types() -> list[str]:
    return sorted(task_types(build_plugin_manager()))


class TestInstalledConformance(ConformanceSuite):
    """One class-scoped kit per installed task type (``conformance_task_type`` is
    parametrized at collection)."""

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        if "conformance_task_type" in metafunc.fixturenames:
            metafunc.parametrize("conformance_task_type", installed_task_types(),
                                 scope="class")


def test_python_task_type_is_always_installed() -> None:
    assert "python" in installed_task_types()

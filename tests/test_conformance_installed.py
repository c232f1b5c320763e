"""The conformance kit over every installed task type: core CI fails the moment any
installed plugin loses a field, breaks its CRD or its pod shape."""

from __future__ import annotations

import pytest
from podtemplate.dispatch import build_plugin_manager, task_types
from podtemplate.testing import ConformanceSuite


def installed_task_types() -> list[str]:
    return sorted(task_types(build_plugin_manager()))


def installed_targets() -> list[tuple[str, str | None]]:
    """Every installed task type, and each of its variants (PyTorch for Trainer v2)."""
    installed = task_types(build_plugin_manager())
    return [(name, variant) for name in sorted(installed)
            for variant in (None, *installed[name].variants)]


class TestInstalledConformance(ConformanceSuite):
    """One class-scoped kit per installed task type and variant (``conformance_task_type``
    and ``conformance_variant`` are parametrized at collection)."""

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        if "conformance_task_type" in metafunc.fixturenames:
            metafunc.parametrize(
                ("conformance_task_type", "conformance_variant"), installed_targets(),
                scope="class", ids=[f"{t}[{v}]" if v else t for t, v in installed_targets()])


def test_python_task_type_is_always_installed() -> None:
    assert "python" in installed_task_types()


def test_pytorch_targets_both_operators() -> None:
    assert ("pytorch", None) in installed_targets()
    assert ("pytorch", "trainer") in installed_targets()

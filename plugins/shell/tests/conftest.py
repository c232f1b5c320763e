"""Test setup of podtemplate-shell: loads the podtemplate.testing pytest plugin.

Not with ``pytest_plugins``: pytest refuses that outside a top-level conftest, and this
one is not top-level when the whole repository is tested at once. Registering here works
for both ``pytest plugins/shell`` and a run of every test path.
"""

from __future__ import annotations

import sys

import pytest

KIT = "podtemplate.testing"


def pytest_configure(config: pytest.Config) -> None:
    if config.pluginmanager.has_plugin(KIT):
        return
    if KIT in sys.modules:  # imported by an earlier test module: too late to rewrite asserts
        config.pluginmanager.register(sys.modules[KIT], KIT)
    else:
        config.pluginmanager.import_plugin(KIT)

"""podtemplate.testing: the conformance kit and shared test assertions.

Enable in a plugin's tests with ``pytest_plugins = ["podtemplate.testing"]``. Importing
this package has no side effects.
"""

from __future__ import annotations

from .assertions import assert_valid_pod, assert_valid_pod_template, container, env_of

__all__ = ["assert_valid_pod", "assert_valid_pod_template", "container", "env_of"]

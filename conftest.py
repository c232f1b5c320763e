"""Root of the test tree: the conformance kit's pytest plugin is loaded here, before any
test module imports it, so its assertions are rewritten. Each plugin's conformance module
names it too (the one line a plugin in its own repository needs); pytest loads it once.

Property tests without their own size run 25 examples, or Hypothesis' 100 under
``PODTEMPLATE_TEST_SIZE=full`` (``scripts/test --full``, CI); those with one size it with
:func:`podtemplate.testing.examples`. No deadline: a shared machine stretches one example
now and then, which is not a failure. ``forget_task_modules`` is for the tests that import
task modules in this process."""

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

pytest_plugins = ["podtemplate.testing"]

settings.register_profile("podtemplate-everyday", max_examples=25, deadline=None)
settings.register_profile("podtemplate-full", max_examples=100, deadline=None)
# As podtemplate.testing.sizing reads it (importing that package here, before pytest loads
# it as a plugin, would keep its assertions from being rewritten).
_FULL = os.environ.get("PODTEMPLATE_TEST_SIZE", "").strip().lower() == "full"
settings.load_profile("podtemplate-full" if _FULL else "podtemplate-everyday")


@pytest.fixture
def forget_task_modules(tmp_path: Path) -> Iterator[None]:
    """The task modules a test imports from its ``tmp_path`` in this process are forgotten
    afterwards, and ``sys.path`` put back: another test's ``tasks.py`` must not meet this
    one's in ``sys.modules`` (the plugins it loaded stay: reloading them costs more)."""
    before, path = set(sys.modules), list(sys.path)
    yield
    for name in set(sys.modules) - before:
        origin = getattr(sys.modules[name], "__file__", None) or ""
        if origin.startswith(str(tmp_path)):
            del sys.modules[name]
    sys.path[:] = path

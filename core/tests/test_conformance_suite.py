"""The conformance kit as pytest tests (``ConformanceSuite``): a subclass over a broken
plugin of test_conformance_kit.py fails where that plugin loses a field, and fails every
check of rendered pods when every render of the plugin fails."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from podtemplate.testing import LAYERS

KIT_TESTS = Path(__file__).with_name("test_conformance_kit.py")  # its fixture plugins


def _run_suite(tmp_path: Path, name: str, helpers_end: str, suite: str) -> str:
    """Run ``suite`` (a ConformanceSuite subclass over the fixture plugins of
    test_conformance_kit.py, those defined before ``helpers_end``) under pytest in a
    child; its output, once it failed."""
    source = KIT_TESTS.read_text(encoding="utf-8")
    helpers = source[source.index("class PairConfig"):source.index(f"class {helpers_end}")]
    header = source[:source.index("PYTORCH_CRD =")]
    (tmp_path / name).write_text(header + helpers + textwrap.dedent(
        "from podtemplate.testing import ConformanceSuite\n\n\n") + textwrap.dedent(suite),
        encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rf", "-p", "no:cacheprovider", "--rootdir",
         str(tmp_path), "-c", "/dev/null", str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert run.returncode == 1, run.stdout + run.stderr
    return run.stdout


def test_conformance_suite_fails_the_broken_plugin_under_pytest(tmp_path: Path) -> None:
    """The pytest shell over the kit: a subclass for the tolerations-dropping plugin fails
    the probe test at every layer, the precedence and the per-role tests, and passes the
    others."""
    out = _run_suite(tmp_path, "test_broken_suite.py", "DuplicatesEnv", """
        class TestBrokenConformance(ConformanceSuite):
            task_type = "drops-tolerations"
            extra_plugins = (DropsTolerations(),)
        """)
    for layer in LAYERS:
        assert f"test_probe_reaches_every_role[{layer}] FAILED" in out or (
            f"FAILED test_broken_suite.py::TestBrokenConformance::"
            f"test_probe_reaches_every_role[{layer}]" in out), out
    # the precedence and the per-role probes set tolerations too
    for test in ("test_higher_layer_wins", "test_settings_and_roles"):
        assert f"TestBrokenConformance::{test}" in out, out
    assert "6 failed" in out and "role 'follower', spec.tolerations" in out, out


def test_a_plugin_whose_every_render_fails_passes_no_check_of_rendered_pods(
        tmp_path: Path) -> None:
    """A build that core refuses on every render (a duplicate env var) leaves the checks
    of rendered pods nothing to judge: each fails, saying so, instead of passing."""
    out = _run_suite(tmp_path, "test_refused_suite.py", "ColonLabel", """
        class TestRefusedConformance(ConformanceSuite):
            task_type = "duplicates-env"
            extra_plugins = (DuplicatesEnv(),)
        """)
    for test in ("test_every_field_is_proven", "test_manifests_match_schema",
                 "test_pods_validate", "test_primary_container_first",
                 "test_no_duplicate_keys", "test_labels_on_every_pod",
                 "test_inputs_unmutated", "test_deterministic"):
        assert f"FAILED test_refused_suite.py::TestRefusedConformance::{test}" in out, out
    assert "nothing to check: the plain sample task does not render" in out, out
    assert " passed" not in out, out

"""The HTML views in a real browser: headless Chromium opens each page at
``#selftest``, the page works its own controls (search, expand and collapse all, the
index; exceptions only, the reason of a clicked cell, the sticky field column, the width
at 1400 px) and writes PASS or what failed into the DOM, which Chromium prints.

Chromium is a test dependency like kubectl (CI installs it: .ci/run); without it the test
fails saying how to install it, never skips."""

from __future__ import annotations

import colorsys
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from podtemplate.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    pytest.fail("no Chromium to open the HTML views (fix: apt-get install -y chromium, "
                "or put chromium on the PATH)")


def _selftest(page: Path) -> str:
    """The text the page's self-test wrote, as Chromium saw it at 1400 x 900."""
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run(
            [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}",
             "--window-size=1400,900", "--virtual-time-budget=10000", "--dump-dom",
             f"{page.resolve().as_uri()}#selftest"],
            capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    found = re.search(r'<pre id="selftest"[^>]*>([^<]*)</pre>', done.stdout)
    assert found, done.stdout[-2000:]
    return found.group(1)


def test_explain_page_controls_work_in_chromium(tmp_path: Path) -> None:
    page = tmp_path / "explain.html"
    result = CliRunner().invoke(main, ["explain", str(EXAMPLES), "--platform",
                                       str(EXAMPLES / "platform.yaml"), "--format", "html",
                                       "-o", str(page)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = _selftest(page)
    assert report.startswith("selftest: PASS"), report
    values, pods = map(int, re.findall(r"(\d+) values, (\d+) pods", report)[0])
    assert values > pods > 1


def test_coverage_page_controls_work_in_chromium(tmp_path: Path) -> None:
    """Every installed task type: a map wider than the window, so the page scrolls it
    sideways and checks the field column and the section titles stay put."""
    page = tmp_path / "coverage.html"
    result = CliRunner().invoke(main, ["coverage", "--format", "html", "-o", str(page)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = _selftest(page)
    assert report.startswith("selftest: PASS"), report
    assert int(re.findall(r"scrolled (\d+) px", report)[0]) > 0, report


def test_no_layer_colour_reads_as_an_error_and_each_is_its_own() -> None:
    from podtemplate.provenance.html import COLOURS
    from podtemplate.provenance.sources import LAYERS

    assert set(LAYERS) <= set(COLOURS)
    assert len(set(COLOURS.values())) == len(COLOURS)
    for layer, colour in COLOURS.items():
        hue, _, saturation = colorsys.rgb_to_hls(*(int(colour[i:i + 2], 16) / 255
                                                   for i in (1, 3, 5)))
        assert not ((hue < 15 / 360 or hue > 345 / 360) and saturation > 0.45), layer

"""The rendered output of the bundled examples, byte for byte: a refactor that changes
what users get fails here. When a change of output is intended, regenerate the golden file
with ``bash scripts/demo --update-golden`` and commit it with the change."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "golden" / "examples.yaml"
RENDER = "from podtemplate.cli import main; main(prog_name='podtemplate')"


def test_examples_render_exactly_as_the_golden_file() -> None:
    result = subprocess.run(
        [sys.executable, "-c", RENDER, "render", "examples",
         "--platform", "examples/platform.yaml"],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("\nkind: ") > 10  # the examples rendered, not nothing
    assert result.stdout == GOLDEN.read_text(), (
        "the rendered examples differ from tests/golden/examples.yaml; if the change is "
        "intended, run `bash scripts/demo --update-golden` and commit the file")

"""docs/plugins.md builds a task type from its code blocks (```lang file=PATH). This test
writes those blocks into a folder, makes the distribution visible as if installed (its
metadata and entry point, read from the doc's pyproject.toml), and runs the doc's own
tests - the conformance kit included - in a child process."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "plugins.md"
BLOCK = re.compile(r"^```\w+ file=(\S+)\n(.*?)^```$", re.M | re.S)


def doc_files() -> dict[str, str]:
    return {path: text for path, text in BLOCK.findall(DOC.read_text())}


@pytest.fixture(scope="module")
def plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("walkthrough") / "podtemplate-sweep"
    for path, text in doc_files().items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return root


def installed_metadata(root: Path, site: Path) -> None:
    """What ``pip install`` leaves for importlib.metadata: a dist-info with the name,
    version and entry points the doc's pyproject.toml declares."""
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    dist_info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    dist_info.mkdir(parents=True)
    (dist_info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    sections = [f"[{group}]\n" + "".join(f"{name} = {value}\n" for name, value in points.items())
                for group, points in project["entry-points"].items()]
    (dist_info / "entry_points.txt").write_text("\n".join(sections))


def test_the_doc_holds_every_file_of_its_layout() -> None:
    files = doc_files()
    assert set(files) == {
        "pyproject.toml", "conftest.py", "tests/test_sweep.py",
        "src/podtemplate_sweep/__init__.py", "src/podtemplate_sweep/config.py",
        "src/podtemplate_sweep/plugin.py", "src/podtemplate_sweep/crds/example.com_sweeps.yaml"}
    layout = DOC.read_text().split("## 2.")[0]
    for path in files:
        assert Path(path).name in layout, f"{path} missing from the layout"


def test_the_pyproject_declares_the_entry_point_and_ships_the_crd(plugin: Path) -> None:
    pyproject = tomllib.loads((plugin / "pyproject.toml").read_text())
    assert pyproject["project"]["entry-points"]["podtemplate"] == {
        "sweep": "podtemplate_sweep.plugin"}
    assert pyproject["project"]["license"] == "Apache-2.0"
    assert "crds/*.yaml" in pyproject["tool"]["setuptools"]["package-data"]["podtemplate_sweep"]


def test_the_example_plugin_imports_only_public_modules(plugin: Path) -> None:
    imports = re.findall(r"^\s*(?:from|import) (podtemplate(?:\.\w+)*)(?=[\s,])",
                         "\n".join(p.read_text() for p in plugin.rglob("*.py")), re.M)
    assert "podtemplate.plugin" in imports
    assert set(imports) <= {"podtemplate", "podtemplate.plugin", "podtemplate.testing"}


def test_the_example_plugins_tests_pass(plugin: Path, tmp_path: Path) -> None:
    installed_metadata(plugin, tmp_path / "site")
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join([str(plugin / "src"), str(tmp_path / "site")])}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "error",
         "tests"], cwd=plugin, env=env, capture_output=True, text=True, timeout=300,
        check=False)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    summary = result.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"\d+ passed in .*", summary), summary  # none skipped
    assert int(summary.split()[0]) >= 12  # the kit's tests ran, not only the plugin's own

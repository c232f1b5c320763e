"""docs/plugins.md builds a task type from its code blocks (```lang file=PATH). This test
writes those blocks into a folder, makes the distribution visible as if installed (its
metadata and entry point, read from the doc's pyproject.toml), and runs the doc's own
tests - the conformance kit included - in a child process."""

from __future__ import annotations

import os
import re
import shutil
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
        "sweep": "podtemplate_sweep.plugin:SweepType"}
    assert pyproject["project"]["license"] == "Apache-2.0"
    assert "crds/*.yaml" in pyproject["tool"]["setuptools"]["package-data"]["podtemplate_sweep"]


def test_the_example_plugin_imports_only_public_modules(plugin: Path) -> None:
    imports = re.findall(r"^\s*(?:from|import) (podtemplate(?:\.\w+)*)(?=[\s,])",
                         "\n".join(p.read_text() for p in plugin.rglob("*.py")), re.M)
    assert "podtemplate.plugin" in imports
    assert set(imports) <= {"podtemplate", "podtemplate.plugin", "podtemplate.testing"}


def run_doc_tests(root: Path, site: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """The doc's tests in a child process, the plugin at ``root`` visible as installed."""
    installed_metadata(root, site)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root / "src"), str(site)])}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *options, "tests"],
        cwd=root, env=env, capture_output=True, text=True, timeout=300, check=False)


def test_the_example_plugins_tests_pass(plugin: Path, tmp_path: Path) -> None:
    result = run_doc_tests(plugin, tmp_path / "site", "-W", "error")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    summary = result.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"\d+ passed in .*", summary), summary  # none skipped
    assert int(summary.split()[0]) >= 12  # the kit's tests ran, not only the plugin's own


# The same plugin with one defect planted: the doc's own tests (the conformance kit, as a
# plugin author runs it) fail, naming the task type, the role, the field and the layer.
# defect -> ((text in plugin.py, its replacement), ...), the field the kit must name
DEFECTS: dict[str, tuple[tuple[tuple[str, str], ...], str]] = {
    "forgets-role=": ((("role=config.trial, operator_layer=operator",
                        "operator_layer=operator"),), "RoleSpec.role"),
    "owns-affinity-and-drops-it": (
        (('operator = {"spec": {"restartPolicy": "Never",',
          'operator = {"spec": {"restartPolicy": "Never", "affinity": None,'),
         ('    FieldDecl("spec.restartPolicy",',
          '    FieldDecl("spec.affinity", "the operator places the trials"),\n'
          '    FieldDecl("spec.restartPolicy",')), "spec.affinity"),
    "replaces-resources": (
        (("[function_entrypoint(task, context, TRIAL)]",
          '[{**function_entrypoint(task, context, TRIAL), "resources": {"$patch": "replace", '
          '"requests": {"cpu": "1"}}}]'),), "resources"),
    "drops-init-containers": (
        (("place(sweep, role.template_path, pods[role.name])",
          'place(sweep, role.template_path, {**pods[role.name], "spec": {k: v for k, v in '
          'pods[role.name]["spec"].items() if k != "initContainers"}})'),),
        "spec.initContainers"),
}


@pytest.mark.parametrize("defect", DEFECTS)
def test_the_example_plugin_with_a_defect_fails_the_kit(plugin: Path, tmp_path: Path,
                                                        defect: str) -> None:
    replacements, field = DEFECTS[defect]
    broken = tmp_path / "plugin"
    shutil.copytree(plugin, broken)
    source = broken / "src" / "podtemplate_sweep" / "plugin.py"
    text = source.read_text()
    for before, after in replacements:
        assert text.count(before) == 1, f"{before!r} is no longer once in the doc's plugin.py"
        text = text.replace(before, after)
    source.write_text(text)
    result = run_doc_tests(broken, tmp_path / "site", "-k", "Conformance")
    assert result.returncode == 1, result.stdout[-4000:] + result.stderr[-2000:]
    named = [line for line in result.stdout.splitlines()
             if "task type 'sweep'" in line and "role 'trial'" in line and field in line
             and "layer" in line]
    assert named, result.stdout[-4000:]

"""``podtemplate coverage`` and ``podtemplate plugins`` end to end: every format, the exit
code when a field is LOST, and the HTML heat map checked by parsing it."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping, Sequence
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pluggy
import podtemplate.conformance.kit
import podtemplate.dispatch
import pytest
from click.testing import CliRunner
from podtemplate import RenderContext, RoleSpec, Task, TaskType, hookimpl, pod_manifest
from podtemplate.cli.main import main
from podtemplate.coverage.matrix import coverage
from podtemplate.dispatch import build_plugin_manager
from podtemplate.testing import default_probe


class Lossy:
    """A one-pod task type whose build step drops the pod's tolerations."""

    @hookimpl
    def podtemplate_add_task_types(self) -> Sequence[TaskType]:
        return [TaskType("lossy", distribution="podtemplate-lossy")]

    @hookimpl
    def podtemplate_make_sample_task(self, task_type: str, pod_template: Any,
                                     pod_template_name: str | None,
                                     role_templates: Mapping[str, Any]) -> Task | None:
        if task_type != "lossy":
            return None
        return Task(name="sample-lossy", task_type="lossy", image="busybox:1",
                    pod_template=pod_template, pod_template_name=pod_template_name)

    @hookimpl
    def podtemplate_define_roles(self, task: Task, context: RenderContext
                                 ) -> list[RoleSpec] | None:
        return [RoleSpec(name="pod", template_path="")] if task.task_type == "lossy" else None

    @hookimpl
    def podtemplate_build_manifests(self, task: Task, roles: Sequence[RoleSpec],
                                    pods: Mapping[str, dict[str, Any]],
                                    context: RenderContext) -> list[dict[str, Any]] | None:
        if task.task_type != "lossy":
            return None
        pods["pod"]["spec"].pop("tolerations", None)
        return [pod_manifest(task, pods["pod"], context)]


@pytest.fixture
def with_lossy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every plugin manager the CLI builds also holds the Lossy plugin."""

    def build(extra: Sequence[object] = (), **kwargs: Any) -> pluggy.PluginManager:
        return build_plugin_manager([Lossy(), *extra], **kwargs)

    monkeypatch.setattr(podtemplate.conformance.kit, "build_plugin_manager", build)
    monkeypatch.setattr(podtemplate.dispatch, "build_plugin_manager", build)  # the CLI's


def run(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


class Cells(HTMLParser):
    """The heat map's cells (class, title, text) and anything that would load a resource."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[dict[str, str]] = []
        self.external: list[str] = []
        self.tags: set[str] = set()
        self._cell: dict[str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        found = {k: v or "" for k, v in attrs}
        self.external += [v for k, v in found.items() if k in ("src", "href")]
        if tag == "td":
            self._cell = {"class": found.get("class", ""), "title": found.get("title", ""),
                          "text": ""}
            self.cells.append(self._cell)

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell["text"] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self._cell = None


def test_json_for_the_python_task_type_has_nothing_lost() -> None:
    result = run("coverage", "--plugin", "python", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["lost"] == 0
    [python] = data["plugins"]
    assert python["roles"] == ["pod"] and python["totals"]["LOST"] == 0
    cells = {c["field"]: c for c in python["cells"]}
    assert len(cells) == len(default_probe().paths)
    assert cells["spec.tolerations"]["status"] == "applied"
    assert cells["spec.containers[primary].command"]["status"] == "operator-owned"
    assert python["percentApplied"] > 95


def test_markdown_has_totals_matrix_and_reasons() -> None:
    result = run("coverage", "--plugin", "python", "--format", "markdown")
    assert result.exit_code == 0, result.output
    text = result.output
    assert "| task type | distribution | roles | applied |" in text
    assert "| field | python/pod |" in text
    assert "| `spec.tolerations` | ✓ |" in text
    assert "- python (pod) `spec.containers[primary].args`: owned (" in text


def test_table_and_exit_code_when_a_field_is_lost(with_lossy: None) -> None:
    result = run("coverage", "--plugin", "lossy", "--plugin", "python")
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert any(line.split()[:2] == ["lossy", "podtemplate-lossy"] for line in lines)
    [lost] = [line.split() for line in lines if " LOST " in line and "lossy" in line]
    assert lost[:4] == ["lossy", "pod", "spec.tolerations", "LOST"]
    assert "coverage: 1 field(s) LOST" in result.output


def test_html_heat_map_is_self_contained_with_reasons_shown(with_lossy: None,
                                                               tmp_path: Path) -> None:
    out = tmp_path / "coverage.html"
    result = run("coverage", "--plugin", "python", "--plugin", "lossy", "--format", "html",
                 "--output", str(out))
    assert result.exit_code == 1  # lossy loses its tolerations
    page = Cells()
    page.feed(out.read_text(encoding="utf-8"))
    assert "style" in page.tags and not page.external  # an inline script, nothing fetched
    fields = default_probe().paths
    assert len(page.cells) == 2 * len(fields)  # python/pod and lossy/pod
    by_title = {cell["title"].split(":")[0]: cell for cell in page.cells}
    lost = by_title["lossy / pod / spec.tolerations"]
    assert lost["class"] == "s-lost exception" and lost["text"] == "✗"
    assert "LOST - probe value did not reach the pod" in lost["title"]
    owned = by_title["python / pod / spec.containers[primary].command"]
    assert owned["class"] == "s-owned exception" and "runs the task function" in owned["title"]
    applied = by_title["python / pod / spec.tolerations"]
    assert applied["class"] == "s-applied" and "reached the pod from the" in applied["title"]
    statuses = {cell["class"].removesuffix(" exception") for cell in page.cells}
    assert statuses <= {"s-applied", "s-owned", "s-unsupported", "s-lost"}
    assert sum(cell["class"].startswith("s-lost") for cell in page.cells) == 1
    text = out.read_text(encoding="utf-8")  # reasons without hovering: the exceptions list
    assert "<dt>spec.tolerations</dt><dd>lossy / pod: ✗ LOST - probe value did not reach" in text


def test_unknown_plugin_is_a_clean_error() -> None:
    result = CliRunner().invoke(main, ["coverage", "--plugin", "nope"])
    assert result.exit_code == 2
    assert "no installed plugin named 'nope'" in result.output


def test_library_report_matches_the_cli(with_lossy: None) -> None:
    report = coverage(["lossy"], extra_plugins=[])
    assert report.lost == 1 and report.failed
    [cell] = [c for c in report.plugins[0].cells if c.status == "LOST"]
    assert (cell.role, cell.field) == ("pod", "spec.tolerations")


def test_plugins_lists_distributions_task_types_and_roles() -> None:
    result = run("plugins")
    assert result.exit_code == 0, result.output
    assert "podtemplate.python_task  podtemplate (built in) 0." in result.output
    assert "  python: v1 Pod; roles: pod" in result.output
    data = json.loads(run("plugins", "--format", "json").output)
    python = next(entry for entry in data if entry["plugin"] == "podtemplate.python_task")
    assert python["taskTypes"][0]["roles"] == ["pod"]
    assert all(entry["version"] for entry in data)


def test_every_installed_plugin_has_nothing_lost() -> None:
    """``podtemplate coverage`` over core and every installed plugin: 0 LOST, exit 0."""
    result = run("coverage", "--format", "json")
    data = json.loads(result.output)
    lost = [(p["taskType"], c["role"], c["field"], c["reason"]) for p in data["plugins"]
            for c in p["cells"] if c["status"] == "LOST"]
    assert not lost
    assert result.exit_code == 0, [p["problems"] for p in data["plugins"]]
    assert "python" in {p["taskType"] for p in data["plugins"]}


def test_both_pytorch_operator_targets_are_rows_of_their_own() -> None:
    """Training Operator v1 (PyTorchJob) and Kubeflow Trainer v2 (TrainingRuntime +
    TrainJob, taskTypes.pytorch.operator: trainer): each its own row, nothing LOST."""
    result = run("coverage", "--plugin", "podtemplate-pytorch", "--format", "json")
    assert result.exit_code == 0, result.output
    rows = {p["taskType"]: p for p in json.loads(result.output)["plugins"]}
    assert set(rows) == {"pytorch", "pytorch[trainer]"}
    assert rows["pytorch"]["roles"] == ["master", "worker"]
    assert rows["pytorch[trainer]"]["roles"] == ["node"]
    for row in rows.values():
        assert row["totals"]["LOST"] == 0 and not row["problems"], row["problems"]
        assert {c["status"] for c in row["cells"]} >= {"applied", "operator-owned"}


def repository_distributions() -> list[str]:
    """The distributions built from this repository: core and plugins/*."""
    root = Path(__file__).resolve().parents[1]
    projects = [root / "core" / "pyproject.toml", *sorted(root.glob("plugins/*/pyproject.toml"))]
    return [tomllib.loads(p.read_text(encoding="utf-8"))["project"]["name"] for p in projects]


def test_readme_shows_the_coverage_summary_of_this_repository() -> None:
    """The README's matrix is the real one: every summary row of `coverage --format
    markdown` over this repository's task types (not whatever else is installed beside
    them) appears in it, word for word."""
    selected = [arg for name in repository_distributions() for arg in ("--plugin", name)]
    result = CliRunner().invoke(main, ["coverage", "--format", "markdown", *selected])
    assert result.exit_code == 0, result.output
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    rows = [line for line in result.output.splitlines()
            if line.startswith("| ") and "podtemplate" in line and "%" in line]
    assert len(rows) >= 7
    missing = [row for row in rows if row not in readme]
    assert not missing, f"README coverage table is stale; regenerate it: {missing}"

"""docs/from-flytekit.md: every code block renders. Each ``python`` block runs as a module
of its own and its tasks render with the example platform file (``# inputs: a=1 b=2``
in a block gives ``--input`` values); each ``yaml`` block is a platform.yaml that loads and
renders a GPU task. Every manifest is validated."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path
from typing import Any

import podtemplate
import pytest
import yaml
from podtemplate import Resources, Task, load_platform, task
from podtemplate.testing.policy_kit import assert_valid_manifest

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "from-flytekit.md"
PLATFORM = REPO / "examples" / "platform.yaml"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)
BLOCKS = [(kind, code) for kind, code in BLOCK.findall(DOC.read_text(encoding="utf-8"))]


def test_the_page_has_python_and_yaml_blocks() -> None:
    kinds = [kind for kind, _ in BLOCKS]
    assert kinds.count("python") >= 4 and kinds.count("yaml") >= 1, kinds
    assert set(kinds) <= {"python", "yaml"}, kinds  # a block of another kind is untested


def _tasks_of(code: str, index: int) -> list[Task]:
    name = f"from_flytekit_block_{index}"
    module = types.ModuleType(name)
    sys.modules[name] = module
    try:
        exec(compile(code, f"{DOC}#block{index}", "exec"), module.__dict__)
    finally:
        del sys.modules[name]
    return [value for value in vars(module).values() if isinstance(value, Task)]


def _inputs(code: str) -> dict[str, str]:
    found = re.search(r"^# inputs: (.*)$", code, re.M)
    pairs = found.group(1).split() if found else []
    return dict(pair.split("=", 1) for pair in pairs)


@pytest.mark.filterwarnings("ignore::podtemplate.migration.MigrationWarning")
@pytest.mark.parametrize("index", [i for i, (kind, _) in enumerate(BLOCKS) if kind == "python"])
def test_every_python_block_renders(index: int) -> None:
    code = BLOCKS[index][1]
    tasks = _tasks_of(code, index)
    assert tasks, f"block {index} defines no task"
    manager = podtemplate.build_plugin_manager()
    manifests = podtemplate.render(tasks, platform=PLATFORM, inputs=_inputs(code),
                                   plugin_manager=manager)
    assert len(manifests) >= len(tasks)
    for manifest in manifests:
        assert_valid_manifest(manifest, manager)


@pytest.mark.parametrize("index", [i for i, (kind, _) in enumerate(BLOCKS) if kind == "yaml"])
def test_every_yaml_block_is_a_platform_that_renders(index: int) -> None:
    data: dict[str, Any] = yaml.safe_load(BLOCKS[index][1])
    data["templates"] = str(PLATFORM.parent / data["templates"])
    platform = load_platform(None, **{
        name: data[field.alias or name]
        for name, field in podtemplate.Platform.model_fields.items()
        if (field.alias or name) in data})

    @task(image="python:3.11-slim", requests=Resources(gpu=1), accelerator="nvidia-tesla-a100")
    def gpu_job() -> None: ...

    (pod,) = podtemplate.render(gpu_job, platform=platform)
    assert_valid_manifest(pod, podtemplate.build_plugin_manager())
    assert pod["spec"]["nodeSelector"]["k8s.amazonaws.com/accelerator"] == "nvidia-tesla-a100"
    assert {"key": "nvidia.com/gpu", "operator": "Exists",
            "effect": "NoSchedule"} in pod["spec"]["tolerations"]


def test_every_flytekit_alias_named_in_the_map_is_importable() -> None:
    # The map's aliases exist where it says (a renamed alias would leave the page wrong).
    from podtemplate_dask import Scheduler, WorkerGroup
    from podtemplate_ray import AutoscalerOptions, HeadNodeConfig, RayJobConfig, WorkerNodeConfig

    for alias in (Scheduler, WorkerGroup, HeadNodeConfig, RayJobConfig, WorkerNodeConfig,
                  AutoscalerOptions):
        assert alias.__name__ in DOC.read_text(encoding="utf-8")

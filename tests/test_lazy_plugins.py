"""Plugins are imported by task type on first use: the manager knows every installed
type from its entry point, a render imports the plugins of its own tasks' types, and what
needs every type imports them all. Each case runs in a child process (a fresh
``sys.modules``)."""

from __future__ import annotations

import json
import subprocess
import sys

PLUGIN_PACKAGES = """
import sys
def plugins():
    return sorted(name for name in sys.modules
                  if name.startswith("podtemplate_") and "." not in name)
"""


def run(code: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", PLUGIN_PACKAGES + code],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_a_render_of_a_python_task_imports_no_plugin() -> None:
    found = run("""
import json
from podtemplate import Platform, render
from podtemplate.dispatch import build_plugin_manager, make_sample_task
manager = build_plugin_manager()
names = sorted(manager.installed_names())
render(make_sample_task(manager, "python"), platform=Platform(), plugin_manager=manager)
print(json.dumps({"plugins": plugins(), "names": names}))
""")
    assert found["plugins"] == []
    assert {"python", "container", "dask", "pytorch", "ray", "shell", "spark"} <= set(
        found["names"])  # type: ignore[arg-type]


def test_a_task_type_is_imported_when_its_first_task_is_met() -> None:
    found = run("""
import json
from podtemplate import Platform, render
from podtemplate.dispatch import build_plugin_manager, make_sample_task
manager = build_plugin_manager()
[app] = render(make_sample_task(manager, "spark"), platform=Platform(),
               plugin_manager=manager)
print(json.dumps({"plugins": plugins(), "kind": app["kind"]}))
""")
    assert found == {"plugins": ["podtemplate_spark"], "kind": "SparkApplication"}


def test_a_settings_section_imports_its_type_when_the_render_starts() -> None:
    found = run("""
import json
from podtemplate import Platform, make_context
make_context(platform=Platform(taskTypes={"pytorch": {"operator": "trainer"}}))
print(json.dumps({"plugins": plugins()}))
""")
    assert found == {"plugins": ["podtemplate_pytorch"]}


def test_listing_the_task_types_imports_every_plugin() -> None:
    found = run("""
import json
from podtemplate.dispatch import build_plugin_manager, task_types
types = sorted(task_types(build_plugin_manager()))
print(json.dumps({"plugins": plugins(), "types": types}))
""")
    assert found["plugins"] == [f"podtemplate_{name}" for name in found["types"]  # type: ignore[attr-defined]
                                if name != "python"]

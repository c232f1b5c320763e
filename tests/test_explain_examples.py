"""`explain` on every bundled example, every task type: each leaf of each role's pod in
the rendered manifests is explained once, with its value, and each source line points at
what it claims to (a YAML line holding the key, a Python line making the definition)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from podtemplate import explain, get_path, render
from podtemplate.cli.targets import collect_tasks
from podtemplate.dispatch import build_plugin_manager, define_roles
from podtemplate.render import make_context
from podtemplate.testing import assert_valid_pod

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
PLATFORM = EXAMPLES / "platform.yaml"
# Keyed lists and their merge keys, written out here rather than taken from podtemplate.
KEYS = {"containers": ("name",), "initContainers": ("name",), "env": ("name",),
        "volumes": ("name",), "volumeMounts": ("mountPath",), "imagePullSecrets": ("name",),
        "ports": ("containerPort", "protocol"), "hostAliases": ("ip",),
        "topologySpreadConstraints": ("topologyKey", "whenUnsatisfiable"),
        "volumeDevices": ("devicePath",), "resourceClaims": ("name",),
        "schedulingGates": ("name",), "readinessGates": ("conditionType",)}
PYTHON_DEFINITION = re.compile(r"(@task\b|\w*(PodTemplate|Role|Task|Group|Spark|task)\()")


def leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict) and value:
        for key, sub in value.items():
            yield from leaves(sub, f"{path}.{key}" if path else key)
    elif isinstance(value, list) and value and isinstance(value[0], (dict, list)):
        keys = KEYS.get(path.rsplit(".", 1)[-1])
        for pos, item in enumerate(value):
            if keys == ("containerPort", "protocol"):
                part = f"{item['containerPort']},{item.get('protocol', 'TCP')}"
            elif keys is not None and all(k in item for k in keys):
                part = ",".join(str(item[k]) for k in keys)
            else:
                part = str(pos)
            yield from leaves(item, f"{path}[{part}]")
    else:
        yield path, value


def role_pods(module: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """Each (task, role) pod template as rendered, found where its role says it is."""
    tasks = collect_tasks([str(module)])
    context = make_context(platform=PLATFORM, plugin_manager=build_plugin_manager())
    manifests = render(tasks, platform=PLATFORM)
    out = {}
    for task in tasks:
        mine = [m for m in manifests
                if m["metadata"].get("labels", {}).get("podtemplate.io/task") == task.object_name]
        for role in define_roles(task, context):
            for manifest in mine:
                template = get_path(manifest, role.template_path)
                if isinstance(template, dict) and "spec" in template:
                    if manifest["kind"] == "Pod":
                        assert_valid_pod(manifest)
                    out[task.name, role.name] = {k: template[k] for k in ("metadata", "spec")
                                                 if k in template}
                    break
    return out


def line_text(source: dict[str, Any]) -> str:
    text: str = Path(source["file"]).read_text(encoding="utf-8").splitlines()[source["line"] - 1]
    return text


@pytest.mark.parametrize("module", sorted(EXAMPLES.glob("*_tasks.py")), ids=lambda p: p.stem)
def test_every_value_of_every_example_pod_is_explained(module: Path) -> None:
    pods = role_pods(module)
    explained = explain(collect_tasks([str(module)]), platform=PLATFORM)
    roles = {(t["task"], r["role"]): r for t in explained["tasks"] for r in t["roles"]}
    assert set(roles) == set(pods)
    for key, pod in pods.items():
        values = roles[key]["values"]
        expected = dict(leaves(pod))
        assert [v["path"] for v in values if v["path"] not in expected] == [], key
        assert {v["path"]: v["value"] for v in values} == expected, key
        for path, entry in [(v["path"], e) for v in values for e in (v, *v["overridden"])]:
            source = entry["source"]
            if source is None:
                assert entry["layer"] in ("operator", "system") and entry["detail"], entry
                continue
            text = line_text(source)
            if source["file"].endswith(".py"):
                assert PYTHON_DEFINITION.search(text), (entry, text)
            elif not path.endswith("]"):
                last = path.rsplit(".", 1)[-1].split("/")[-1]
                assert last.lower() in text.lower(), (entry, text)

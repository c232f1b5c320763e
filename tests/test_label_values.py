"""Every label of every rendered object and role pod is one the API server accepts: a
label value is at most 63 characters, empty or alphanumeric at both ends with ``-``, ``_``
and ``.`` between (Kubernetes apimachinery IsValidLabelValue). KubeRay copies a worker
group's pod labels onto the pods it creates, so a ``:`` there (the role ``worker:cpu``)
kept every Ray worker pod from being created."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import podtemplate
from podtemplate.cli.targets import collect_tasks

LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def label_maps(node: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "labels" and isinstance(value, dict):
                yield f"{path}.labels", value
            else:
                yield from label_maps(value, f"{path}.{key}")
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from label_maps(item, f"{path}[{index}]")


def test_every_label_value_of_the_examples_is_valid() -> None:
    platform = podtemplate.load_platform(EXAMPLES / "platform.yaml")
    tasks = collect_tasks([str(EXAMPLES)])
    manifests = podtemplate.render(tasks, platform=platform)
    seen_roles = set()
    for manifest in manifests:
        for path, labels in label_maps(manifest):
            for key, value in labels.items():
                assert isinstance(value, str) and len(value) <= 63, (path, key, value)
                assert LABEL_VALUE.fullmatch(value), f"{manifest['kind']} {path}.{key}={value!r}"
                if key == "podtemplate.io/role":
                    seen_roles.add(value)
    assert "worker-cpu" in seen_roles or "worker-gpu" in seen_roles, seen_roles

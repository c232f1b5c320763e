"""Files a plugin's tests write: ``kind: PodTemplate`` documents for a template folder,
and task modules for the CLI to render."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

__all__ = ["pod_template_yaml", "write_task_module"]


def pod_template_yaml(name: str, spec: Mapping[str, Any], *,
                      labels: Mapping[str, str] | None = None) -> str:
    """A ``kind: PodTemplate`` document named ``name`` whose template holds ``spec`` (and
    ``labels``), as an admin keeps it in a template folder."""
    template: dict[str, Any] = {"spec": dict(spec)}
    if labels:
        template["metadata"] = {"labels": dict(labels)}
    text: str = yaml.safe_dump({"apiVersion": "v1", "kind": "PodTemplate",
                                "metadata": {"name": name}, "template": template},
                               sort_keys=False)
    return text


def write_task_module(folder: Path, stem: str, body: str) -> Path:
    """Write ``body`` (dedented) as a module in ``folder`` named after ``stem`` and the
    folder, so that each test's module has a name of its own, and return its path."""
    path = folder / f"{stem}_{folder.name.replace('-', '_')}.py"
    path.write_text(textwrap.dedent(body))
    return path

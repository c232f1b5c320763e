"""Flyte's conventions for the platform's PodTemplates (the default template and those
named by ``pod_template_name``, from a folder or from the cluster), as flyteplugins'
``flytek8s`` applies them when it merges a task's pod onto its base template (checked by
``tests/flyte_oracle``):

- The ``primary`` and ``default`` containers (and ``default-init``) are patterns for
  the task's containers, and the API server wants an image in each, so admins write a
  placeholder there (Flyte's docs: the image "is required by the API, but overridden").
  On Flyte the task's image always wins; here the task's image, else ``defaultImage``:
  the image of those containers is dropped.
- A container named ``noop`` is the placeholder an admin writes so that the server
  accepts a template with no real container (Flyte's docs: it is always dropped): it is
  dropped. (Flyte drops every other container of a base template as well; here the
  others are the admin's sidecars, kept: docs/from-flytekit.md.)
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

__all__ = ["DROPPED_CONTAINERS", "PLACEHOLDER_CONTAINERS", "with_flyte_conventions"]

PLACEHOLDER_CONTAINERS = frozenset({"primary", "default", "default-init"})
DROPPED_CONTAINERS = frozenset({"noop"})


def with_flyte_conventions(spec: Any) -> Any:
    """A copy of a platform template's pod spec with the conventions applied (above);
    ``spec`` itself when nothing changes (or when it is no mapping: the template's own
    checks refuse it)."""
    if not isinstance(spec, Mapping):
        return spec
    containers = spec.get("containers")
    init_containers = spec.get("initContainers")
    listed = [*(containers if isinstance(containers, list) else ()),
              *(init_containers if isinstance(init_containers, list) else ())]
    if not any(_applies(c) for c in listed):
        return spec
    out = copy.deepcopy(dict(spec))
    for key in ("containers", "initContainers"):
        if not isinstance(out.get(key), list):
            continue
        kept = [c for c in out[key] if not (isinstance(c, dict) and key == "containers"
                                            and c.get("name") in DROPPED_CONTAINERS)]
        for container in kept:
            if isinstance(container, dict) and container.get("name") in PLACEHOLDER_CONTAINERS:
                container.pop("image", None)
        out[key] = kept
    return out


def _applies(container: Any) -> bool:
    if not isinstance(container, Mapping):
        return False
    name = container.get("name")
    return name in DROPPED_CONTAINERS or (name in PLACEHOLDER_CONTAINERS
                                          and "image" in container)

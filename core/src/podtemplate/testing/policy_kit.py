"""Running policy over task types: a plugin manager whose template store is the test's
own, a compliant cluster template, sample tasks of any installed task type, and a render
that returns the violations it raised (validating every manifest when it passes). Used
with :mod:`.policy_corpus` to show that no layer of a task type lets a hostile template
through; a plugin's own policy tests use it the same way::

    manager = make_plugin_manager()
    platform = make_platform(write_templates(tmp_path / "templates"))
    assert violations_of(manager, sample(manager, "sweep"), platform) == []
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pluggy
from kubernetes.client import V1ConfigMap

from ..dispatch import build_plugin_manager, define_roles, make_sample_task, task_types
from ..errors import PolicyViolationError
from ..model.task import Task
from ..model.templates import PodTemplate
from ..platform import Platform
from ..policy import PodSecurityLevel, Policy, Violation
from ..render import make_context, render
from ..schemas.resources import crd_index, crd_of
from .assertions import assert_valid_custom_resource, assert_valid_pod

__all__ = ["COMPLIANT_TEMPLATE", "IMAGE", "assert_valid_manifest", "make_platform",
           "make_plugin_manager", "role_names", "sample", "violations_of",
           "write_templates"]

IMAGE = "ghcr.io/acme/python:3.11"

# The cluster default of a restricted platform: what the standard requires, given to
# the pod and, through the magic names, to every container and init container.
COMPLIANT_TEMPLATE = """
apiVersion: v1
kind: PodTemplate
metadata: {name: secure}
template:
  spec:
    securityContext:
      runAsNonRoot: true
      seccompProfile: {type: RuntimeDefault}
    containers:
      - name: default
        securityContext:
          allowPrivilegeEscalation: false
          capabilities: {drop: [ALL]}
    initContainers:
      - name: default-init
        securityContext:
          allowPrivilegeEscalation: false
          capabilities: {drop: [ALL]}
"""


def make_plugin_manager(extra_plugins: Iterable[object] = ()) -> pluggy.PluginManager:
    """A plugin manager for a test that renders: the built-in plugins, every installed
    plugin and ``extra_plugins`` (a plugin under test that is not installed), with the
    platform's own template store, so the templates of the test's ``Platform`` are the
    ones found. Not :attr:`Kit.manager <podtemplate.testing.Kit>`: the kit's manager
    holds the probe templates as its store, and a platform's ``defaultTemplate`` is not
    found there."""
    return build_plugin_manager(extra_plugins)


def write_templates(folder: Path) -> Path:
    """``folder`` holding the compliant template ``secure``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "secure.yaml").write_text(COMPLIANT_TEMPLATE, encoding="utf-8")
    return folder


def make_platform(templates: Path, level: PodSecurityLevel = "restricted", **policy: Any
                  ) -> Platform:
    """A platform whose default template is ``secure``, with the policy's keys (and
    ``interruptible``) as given."""
    fields = {k: v for k, v in policy.items() if k == "interruptible"}
    rules = {k: v for k, v in policy.items() if k != "interruptible"}
    return Platform(templates=templates, defaultTemplate="secure", defaultImage=IMAGE,
                    policy=Policy(podSecurity=level, **rules), **fields)


def sample(manager: pluggy.PluginManager, task_type: str,
           pod_template: PodTemplate | None = None,
           role_templates: Mapping[str, PodTemplate] | None = None, **changes: Any) -> Task:
    """The task type's sample task (its ``podtemplate_make_sample_task``), with the
    given templates; ``changes`` replace task fields (``interruptible=True``)."""
    task = make_sample_task(manager, task_type, pod_template=pod_template,
                            role_templates=role_templates)
    return dataclasses.replace(task, **changes) if changes else task


def role_names(manager: pluggy.PluginManager, task_type: str) -> list[str]:
    """The roles of the task type's sample task."""
    context = make_context(platform=Platform(defaultImage=IMAGE), plugin_manager=manager)
    return [role.name for role in define_roles(sample(manager, task_type), context)]


def assert_valid_manifest(manifest: Mapping[str, Any], manager: pluggy.PluginManager
                          ) -> None:
    """A Pod or ConfigMap with the client models, a custom resource with its CRD."""
    kind = manifest["kind"]
    if kind == "Pod":
        assert_valid_pod(manifest)
    elif kind == "ConfigMap":
        V1ConfigMap.model_validate(manifest)
    else:
        # the task type that declares a CRD of this kind (PyTorch's TrainJob as well)
        (owner,) = [t for t in task_types(manager).values()
                    if crd_of(crd_index([t]), manifest) is not None]
        assert_valid_custom_resource(manifest, owner)


def violations_of(manager: pluggy.PluginManager, tasks: Task | Sequence[Task],
                  platform: Platform, override: PodTemplate | None = None
                  ) -> list[Violation]:
    """The violations the render raised; when it passed, every manifest is validated
    and the list is empty."""
    try:
        manifests = render(tasks, platform=platform, override=override,
                           plugin_manager=manager)
    except PolicyViolationError as error:
        return error.violations
    for manifest in manifests:
        assert_valid_manifest(manifest, manager)
    return []

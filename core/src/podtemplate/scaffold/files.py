"""The files ``podtemplate new-plugin`` writes, as text made from the plan of a plugin.
Each is the shape docs/plugins.md explains, section by section."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["Plan", "files"]


@dataclass(frozen=True)
class Plan:
    """What the generated distribution is made of."""

    name: str  # the task type: "mpi"
    kind: str  # "MPIJob"
    api_version: str  # "kubeflow.org/v2beta1"
    roles: dict[str, str]  # role -> template path, in manifest order
    replicas: dict[str, str]  # role -> where its replica count goes, if the CRD has one
    crd_file: str  # "kubeflow.org_mpijobs.json", under crds/
    spec: dict[str, Any]  # required spec fields outside the pods, as placeholders
    keyed: dict[str, str]  # role -> the replica map key guessed for it ("Worker")
    restarts: dict[str, str]  # role -> the replica spec's restartPolicy, if the CRD has one

    @property
    def package(self) -> str:
        return "podtemplate_" + self.name.replace("-", "_")

    @property
    def distribution(self) -> str:
        return f"podtemplate-{self.name}"

    @property
    def config_class(self) -> str:
        return "".join(part.capitalize() for part in self.name.split("-"))

    @property
    def plugin_class(self) -> str:
        return f"{self.config_class}Type"

    def field(self, role: str) -> str:
        return role.replace("-", "_")


def _literal(value: Any, indent: int = 0) -> str:
    """``value`` (plain data) as a Python literal in double quotes, as the rest of the
    generated code writes strings: on one line when it fits, else one item a line."""
    if isinstance(value, str):
        return json.dumps(value)
    if not isinstance(value, dict | list):
        return repr(value)
    items = ([f"{json.dumps(k)}: {_literal(v, indent + 4)}" for k, v in sorted(value.items())]
             if isinstance(value, dict) else [_literal(v, indent + 4) for v in value])
    ends = "{}" if isinstance(value, dict) else "[]"
    flat = ends[0] + ", ".join(items) + ends[1]
    if indent + len(flat) <= 72 or not items:
        return flat
    inner = " " * (indent + 4)
    return ends[0] + "\n" + "".join(f"{inner}{item},\n" for item in items) \
        + " " * indent + ends[1]


def _table(paths: dict[str, str]) -> str:
    """A role -> path dict literal, one role a line."""
    lines = "".join(f"    {_q(role)}: {_q(path)},\n" for role, path in paths.items())
    return "{\n" + lines + "}" if lines else "{}"


def _q(text: str) -> str:
    """``text`` as a double-quoted Python string."""
    return json.dumps(text)


def files(plan: Plan) -> dict[str, str]:
    """Path in the distribution -> text (the CRD aside)."""
    p = plan
    role_fields = "\n".join(f"    {p.field(r)}: Role = Role()" for r in p.roles)
    role_list = ", ".join(p.roles)
    paths, replicas, restarts = _table(p.roles), _table(p.replicas), _table(p.restarts)
    configs = "\n".join(f"        {_q(r)}: config.{p.field(r)}," for r in p.roles)
    samples = "\n".join(f"            {p.field(r)}=Role(pod_template=role_templates.get({_q(r)})),"
                        for r in p.roles)
    return {
        "pyproject.toml": f'''[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "{p.distribution}"
version = "0.1.0"
description = "podtemplate task type '{p.name}': {p.api_version} {p.kind}"
requires-python = ">=3.11"
dependencies = ["podtemplate>=0.1"]

[project.optional-dependencies]
test = ["podtemplate[test]>=0.1"]

# The entry point: its name is the task type, its value the plugin class.
[project.entry-points.podtemplate]
{p.name} = "{p.package}.plugin:{p.plugin_class}"

[tool.setuptools.packages.find]
where = ["src"]

[tool.setuptools.package-data]
{p.package} = ["py.typed", "crds/*.json"]

[tool.pytest.ini_options]
testpaths = ["tests"]

# The generated code is written for these: `ruff check .` and `mypy` pass as written.
[tool.ruff]
line-length = 100

[tool.mypy]
strict = true
files = ["src", "tests", "conftest.py"]
''',
        "README.md": f'''# {p.distribution}

The podtemplate task type `{p.name}`: a task with `task_config={p.config_class}(...)`
renders as one `{p.api_version} {p.kind}`, the task's pod templates reaching the pods
of every role ({role_list}).

Written by `podtemplate new-plugin`; see podtemplate's docs/plugins.md for each file.

```sh
pip install -e '.[test]'
pytest                       # the conformance kit and the plugin's own tests
podtemplate coverage --plugin {p.name}
```

`src/{p.package}/crds/{p.crd_file}` is the operator's CRD as
`new-plugin` slimmed it.
Record where it came from (`podtemplate plugins` then names the operator); the same
command with `--check` exits 1 when the shipped files are stale:

```sh
podtemplate crd slim UPSTREAM.yaml --into src/{p.package}/crds --repository OWNER/NAME \\
    --path PATH --ref TAG --commit SHA --license SPDX --operator "NAME VERSION"
```
''',
        "conftest.py": '''\
"""Loads the conformance kit's pytest plugin (fixtures, assertion rewriting)."""

pytest_plugins = ["podtemplate.testing"]
''',
        f"src/{p.package}/__init__.py": f'''\
"""{p.distribution}: a task as one {p.api_version} {p.kind}."""

from .config import {p.config_class}

__all__ = ["{p.config_class}"]
''',
        f"src/{p.package}/py.typed": "",
        f"src/{p.package}/config.py": f'''\
"""What a user passes as ``task_config`` to make a task a {p.name} task."""

from __future__ import annotations

from typing import ClassVar

from podtemplate.plugin import ConfigModel, Role


class {p.config_class}(ConfigModel):
    """A {p.kind}: one pod per role ({role_list}), each built from the task's
    templates, then the role's own ``Role(pod_template=..., image=..., requests=...)``."""

    task_type: ClassVar[str] = "{p.name}"  # selects the task type

{role_fields}
''',
        f"src/{p.package}/roles.py": f'''\
"""The pod roles of a {p.kind}: where each role's pod sits in the manifest, the
container that runs the task, and the fields the operator owns or cannot take."""

from __future__ import annotations

import functools

from podtemplate.plugin import (
    FieldDecl,
    RenderContext,
    RoleSpec,
    Task,
    config_of,
    crd_pod_schema,
    function_entrypoint,
)

from .config import {p.config_class}

CRD = "{p.package}:crds/{p.crd_file}"
# Where each role's PodTemplateSpec sits in the manifest, in manifest order.
TEMPLATE_PATHS = {paths}
# Where the manifest carries a role's replica count (its Role(replicas=...)); the
# conformance kit gives each role listed here a count of its own and checks it arrives.
# Remove a role that always runs one pod (a launcher, a master) and refuse its
# Role(replicas=...) in the config (a DefinitionError) or in define_roles (a BuildError).
REPLICAS_PATHS: dict[str, str] = {replicas}
# Where the operator reads a role's restartPolicy and sets it on every pod of the role,
# over the template's (a replica spec's): build moves a template's restartPolicy there.
RESTART_PATHS: dict[str, str] = {restarts}
OWNED = (
    FieldDecl("spec.containers[primary].command",
              "runs the task function via the podtemplate executor"),
    FieldDecl("spec.containers[primary].args", "names the task function and its inputs"),
)
CRD_SCHEMA = "CRD schema: the operator's CRD has no such field, the API server prunes it"


def owned(role: str) -> tuple[FieldDecl, ...]:
    """The fields the operator owns in ``role``'s pods."""
    if role not in RESTART_PATHS:
        return OWNED
    return (*OWNED, FieldDecl("spec.restartPolicy", f"native: {{RESTART_PATHS[role]}} (the "
                              "operator sets each pod's restartPolicy from it)"))


@functools.cache
def unsupported(role: str) -> tuple[FieldDecl, ...]:
    """The pod fields the CRD's pod schema lacks for ``role`` (read once, when first
    rendered): declared, so that a render warns instead of failing."""
    fields = crd_pod_schema(CRD, TEMPLATE_PATHS[role]).newer_fields()
    return tuple(FieldDecl(path, CRD_SCHEMA) for path in fields)


def define_roles(task: Task, context: RenderContext) -> list[RoleSpec]:
    """One role per pod template of the {p.kind}. The primary container is named after
    the role; if the operator looks for a container of its own name, name it here."""
    config = config_of(task, {p.config_class})
    settings = {{
{configs}
    }}
    return [RoleSpec(name=role, template_path=path, container_name=role,
                     role=settings[role],
                     operator_layer={{"spec": {{"containers": [
                         function_entrypoint(task, context, role)]}}}},
                     owned=owned(role), unsupported=unsupported(role),
                     replicas_path=REPLICAS_PATHS.get(role))
            for role, path in TEMPLATE_PATHS.items()]
''',
        f"src/{p.package}/build.py": f'''\
"""The {p.kind} of a task: the resolved pod of each role placed as it is."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from podtemplate.plugin import RenderContext, RoleSpec, Task, object_metadata, place

from .roles import RESTART_PATHS

API_VERSION, KIND = "{p.api_version}", "{p.kind}"
# The fields the CRD requires outside the pods, with placeholder values: set them from
# the task's config.
SPEC: dict[str, Any] = {_literal(p.spec)}


def build_manifest(task: Task, roles: Sequence[RoleSpec],
                   pods: Mapping[str, dict[str, Any]], context: RenderContext
                   ) -> dict[str, Any]:
    manifest: dict[str, Any] = {{
        "apiVersion": API_VERSION, "kind": KIND,
        "metadata": object_metadata(task, context), "spec": copy.deepcopy(SPEC)}}
    for role in roles:
        pod = pods[role.name]  # the build's own copy: it may change it
        if role.name in RESTART_PATHS and "restartPolicy" in pod["spec"]:
            place(manifest, RESTART_PATHS[role.name], pod["spec"].pop("restartPolicy"))
        place(manifest, role.template_path, pod)
        if role.replicas_path:
            replicas = role.role.replicas if role.role is not None else None
            place(manifest, role.replicas_path, replicas or 1)
    return manifest
''',
        f"src/{p.package}/plugin.py": f'''\
"""The ``{p.name}`` task type (entry point ``podtemplate: {p.name}``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from podtemplate.plugin import (
    PodTemplate,
    RenderContext,
    Role,
    RoleSpec,
    Task,
    TaskType,
    TaskTypePlugin,
    sample_function_task,
)

from .build import API_VERSION, KIND, build_manifest
from .config import {p.config_class}
from .roles import CRD, define_roles


class {p.plugin_class}(TaskTypePlugin):
    task_type = TaskType(
        name={p.config_class}.task_type, distribution="{p.distribution}", kind=KIND,
        api_version=API_VERSION, config={p.config_class}, crds=(CRD,),
        description="a task as one {p.api_version} {p.kind}")

    def define_roles(self, task: Task, context: RenderContext) -> list[RoleSpec]:
        return define_roles(task, context)

    def build(self, task: Task, roles: Sequence[RoleSpec], pods: Mapping[str, dict[str, Any]],
              context: RenderContext) -> list[dict[str, Any]]:
        return [build_manifest(task, roles, pods, context)]

    def sample(self, pod_template: PodTemplate | None, pod_template_name: str | None,
               role_templates: Mapping[str, PodTemplate]) -> Task:
        config = {p.config_class}(
{samples}
        )
        return sample_function_task({p.config_class}.task_type, image="python:3.11-slim",
                                    pod_template=pod_template,
                                    pod_template_name=pod_template_name, task_config=config)
''',
        f"tests/test_{p.field(p.name)}.py": f'''\
"""The {p.name} task type: the conformance kit, and one render checked by hand."""

from __future__ import annotations

from podtemplate import Platform, render, task
from podtemplate.plugin import get_path
from podtemplate.testing import (
    ConformanceSuite,
    assert_valid_custom_resource,
    assert_valid_pod_template,
    primary_container,
)

from {p.package} import {p.config_class}
from {p.package}.plugin import {p.plugin_class}
from {p.package}.roles import TEMPLATE_PATHS


class Test{p.plugin_class}Conformance(ConformanceSuite):
    """Every pod field, at every layer, reaches every role's pods (or is declared)."""

    task_type = "{p.name}"


@task(image="ghcr.io/acme/app:1", task_config={p.config_class}())
def app() -> None:
    """A user's task."""


def test_every_role_gets_its_pod() -> None:
    [manifest] = render(app, platform=Platform(namespace="default"))
    assert_valid_custom_resource(manifest, {p.plugin_class}.task_type)
    for role, path in TEMPLATE_PATHS.items():
        pod = get_path(manifest, path)
        assert_valid_pod_template(pod)
        assert pod["metadata"]["labels"]["podtemplate.io/role"] == role
        assert primary_container(pod)["image"] == "ghcr.io/acme/app:1"
''',
    }

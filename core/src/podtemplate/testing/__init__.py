"""podtemplate.testing: the conformance kit and shared test assertions, the public test
API of plugin authors (with the typed hook calls a plugin's tests may make).

Enable in a plugin's tests with ``pytest_plugins = ["podtemplate.testing"]`` and subclass
:class:`ConformanceSuite` once (see :mod:`podtemplate.testing.conformance`). Importing this
package has no side effects and does not need pytest; only ``ConformanceSuite`` does, and
it is imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..conformance.checks import every_finding
from ..conformance.kit import Kit, SampleTaskFactory
from ..conformance.probe import Probe, ProbeField, build_probe, default_probe
from ..conformance.results import LAYER_NAMES, LAYERS, NATIVE, Finding, Outcome
from ..dispatch import build_manifests, define_roles, task_types
from ..manifest import primary_container
from ..schemas.crd import Crd, CrdProblem, shipped_crd, validate_custom_resource
from ..schemas.source import SchemaSource, load_schema_source
from .assertions import (
    assert_definition_error,
    assert_valid_custom_resource,
    assert_valid_pod,
    assert_valid_pod_template,
    container,
    env_of,
)
from .cli import (
    assert_render_names_missing_distribution,
    render_cli,
    render_without_distribution,
    rendered_documents,
)
from .files import pod_template_yaml, write_task_module
from .sizing import examples

if TYPE_CHECKING:
    from .conformance import ConformanceSuite
    from .policy_kit import make_plugin_manager

__all__ = [
    "ConformanceSuite",
    "Crd",
    "CrdProblem",
    "Finding",
    "Kit",
    "LAYERS",
    "LAYER_NAMES",
    "NATIVE",
    "Outcome",
    "Probe",
    "ProbeField",
    "SampleTaskFactory",
    "SchemaSource",
    "assert_definition_error",
    "assert_render_names_missing_distribution",
    "assert_valid_custom_resource",
    "assert_valid_pod",
    "assert_valid_pod_template",
    "build_manifests",
    "build_probe",
    "container",
    "default_probe",
    "define_roles",
    "env_of",
    "every_finding",
    "examples",
    "load_schema_source",
    "make_plugin_manager",
    "pod_template_yaml",
    "primary_container",
    "render_cli",
    "render_without_distribution",
    "rendered_documents",
    "shipped_crd",
    "task_types",
    "validate_custom_resource",
    "write_task_module",
]


def __getattr__(name: str) -> Any:
    if name == "ConformanceSuite":  # needs pytest: imported only when asked for
        from .conformance import ConformanceSuite

        return ConformanceSuite
    if name == "make_plugin_manager":  # with the policy kit: imported on first use
        from .policy_kit import make_plugin_manager

        return make_plugin_manager
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Loaded by pytest with this plugin (a name, not an import: importing this package does
# not need pytest).
pytest_plugins = ["podtemplate.testing.fixtures", "podtemplate.testing.kube",
                  "podtemplate.testing.flyte_oracle"]


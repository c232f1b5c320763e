"""podtemplate: full Kubernetes pod templates for every task type.

The user API; docs/design.md explains the model, the layers and the merge rules, and
:mod:`podtemplate.plugin` is the API of plugin authors.
"""

from __future__ import annotations

from importlib import metadata as _metadata

from .context import RenderContext, RenderWarning
from .dispatch import build_plugin_manager
from .errors import (
    ApiRuleError,
    DefinitionError,
    InputError,
    InternalError,
    InvalidNameError,
    InvalidPodSpecError,
    InvalidQuantityError,
    ManifestValidationError,
    MergeError,
    MissingPluginError,
    OutputError,
    PlatformConfigError,
    PluginError,
    PodTemplateError,
    TargetError,
    TemplateFileError,
    TemplateNotFoundError,
    YamlError,
)
from .hookspecs import hookimpl
from .manifest import get_path, object_metadata, object_name, place, pod_manifest
from .merge.engine import merge
from .model.apiserver import ApiProblem, check_pod, check_pod_template
from .model.roles import FieldDecl, RoleSpec, TaskType
from .model.task import Task, task
from .model.templates import ConfigModel, Int32, PodTemplate, Resources, Role
from .platform import Platform, load_platform
from .provenance import explain
from .render import make_context, render, render_task
from .resolve.pod import resolve_pod
from .runtime import function_entrypoint

__version__ = _metadata.version("podtemplate")

__all__ = [
    "ConfigModel",
    "ApiProblem",
    "ApiRuleError",
    "check_pod",
    "check_pod_template",
    "DefinitionError",
    "FieldDecl",
    "InputError",
    "Int32",
    "InternalError",
    "InvalidNameError",
    "InvalidPodSpecError",
    "InvalidQuantityError",
    "ManifestValidationError",
    "MergeError",
    "MissingPluginError",
    "OutputError",
    "Platform",
    "PlatformConfigError",
    "PluginError",
    "PodTemplate",
    "PodTemplateError",
    "RenderContext",
    "RenderWarning",
    "Resources",
    "Role",
    "RoleSpec",
    "TargetError",
    "Task",
    "TaskType",
    "TemplateFileError",
    "TemplateNotFoundError",
    "YamlError",
    "build_plugin_manager",
    "explain",
    "function_entrypoint",
    "get_path",
    "hookimpl",
    "load_platform",
    "make_context",
    "merge",
    "object_metadata",
    "object_name",
    "place",
    "pod_manifest",
    "render",
    "render_task",
    "resolve_pod",
    "task",
    "__version__",
]

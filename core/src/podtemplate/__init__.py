"""podtemplate: full Kubernetes pod templates for every task type.

The public API; see DESIGN.md for the model, the layers and the merge rules.
"""

from __future__ import annotations

from importlib import metadata as _metadata

from .context import RenderContext
from .errors import (
    DefinitionError,
    InputError,
    InvalidNameError,
    InvalidPodSpecError,
    InvalidQuantityError,
    ManifestValidationError,
    MergeError,
    MissingPluginError,
    PlatformConfigError,
    PluginError,
    PodTemplateError,
    TargetError,
    TemplateFileError,
    TemplateNotFoundError,
    YamlError,
)
from .hookspecs import hookimpl
from .manifest import get_path, object_metadata, place, pod_manifest
from .merge import merge
from .model import ConfigModel, PodTemplate, Resources, Role
from .platform import Platform, load_platform
from .plugins import build_plugin_manager
from .render import make_context, render, render_task
from .resolve import resolve_pod
from .roles import FieldDecl, RoleSpec, TaskType
from .runtime import function_entrypoint
from .task import Task, task

__version__ = _metadata.version("podtemplate")

__all__ = [
    "ConfigModel",
    "DefinitionError",
    "FieldDecl",
    "InputError",
    "InvalidNameError",
    "InvalidPodSpecError",
    "InvalidQuantityError",
    "ManifestValidationError",
    "MergeError",
    "MissingPluginError",
    "Platform",
    "PlatformConfigError",
    "PluginError",
    "PodTemplate",
    "PodTemplateError",
    "RenderContext",
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
    "function_entrypoint",
    "get_path",
    "hookimpl",
    "load_platform",
    "make_context",
    "merge",
    "object_metadata",
    "place",
    "pod_manifest",
    "render",
    "render_task",
    "resolve_pod",
    "task",
    "__version__",
]

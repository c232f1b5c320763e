"""podtemplate: full Kubernetes pod templates for every task type.

The user API; docs/design.md explains the model, the layers and the merge rules, and
:mod:`podtemplate.plugin` is the API of plugin authors.
"""

from __future__ import annotations

import importlib as _importlib
import sys as _sys
import types as _types
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from .context import RenderContext, RenderWarning
    from .dispatch import build_plugin_manager
    from .errors import (
        ApiRuleError,
        DefinitionError,
        DefinitionErrors,
        FlytekitNameError,
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
    from .migration import Pod
    from .model.apiserver import ApiProblem, check_pod, check_pod_template
    from .model.roles import FieldDecl, RoleSpec, TaskType, WhenField
    from .model.task import Task, task
    from .model.templates import ConfigModel, Int32, PodTemplate, Resources, Role
    from .platform import Platform, load_platform
    from .provenance import explain
    from .render import make_context, render, render_task
    from .resolve.pod import resolve_pod
    from .runtime import function_entrypoint

# Where each public name lives: a name is imported on first use (PEP 562), so
# `import podtemplate` and the CLI's --help load only what they use.
_EXPORTS: dict[str, str] = {
    "RenderContext": ".context",
    "RenderWarning": ".context",
    "build_plugin_manager": ".dispatch",
    "ApiRuleError": ".errors",
    "DefinitionError": ".errors",
    "DefinitionErrors": ".errors",
    "FlytekitNameError": ".errors",
    "InputError": ".errors",
    "InternalError": ".errors",
    "InvalidNameError": ".errors",
    "InvalidPodSpecError": ".errors",
    "InvalidQuantityError": ".errors",
    "ManifestValidationError": ".errors",
    "MergeError": ".errors",
    "MissingPluginError": ".errors",
    "OutputError": ".errors",
    "PlatformConfigError": ".errors",
    "PluginError": ".errors",
    "PodTemplateError": ".errors",
    "TargetError": ".errors",
    "TemplateFileError": ".errors",
    "TemplateNotFoundError": ".errors",
    "YamlError": ".errors",
    "hookimpl": ".hookspecs",
    "get_path": ".manifest",
    "object_metadata": ".manifest",
    "object_name": ".manifest",
    "place": ".manifest",
    "pod_manifest": ".manifest",
    "merge": ".merge.engine",
    "Pod": ".migration",
    "ApiProblem": ".model.apiserver",
    "check_pod": ".model.apiserver",
    "check_pod_template": ".model.apiserver",
    "FieldDecl": ".model.roles",
    "RoleSpec": ".model.roles",
    "TaskType": ".model.roles",
    "WhenField": ".model.roles",
    "Task": ".model.task",
    "task": ".model.task",
    "ConfigModel": ".model.templates",
    "Int32": ".model.templates",
    "PodTemplate": ".model.templates",
    "Resources": ".model.templates",
    "Role": ".model.templates",
    "Platform": ".platform",
    "load_platform": ".platform",
    "explain": ".provenance",
    "make_context": ".render",
    "render": ".render",
    "render_task": ".render",
    "resolve_pod": ".resolve.pod",
    "function_entrypoint": ".runtime",
}

# flytekit names podtemplate has no class for (migration.CORE_NAMES gives the hints).
_FLYTEKIT_ONLY = frozenset({"ImageSpec", "Secret", "TaskMetadata", "current_context",
                            "dynamic", "kwtypes", "map_task", "workflow"})


def _on_first_use(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A package's ``__getattr__`` (PEP 562): each name of ``where`` is imported from the
    submodule ``where`` gives for it when first asked, then kept on the package. This
    package and its subpackages that load their members lazily share it."""
    namespace = vars(_sys.modules[package])

    def __getattr__(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = namespace[name] = getattr(_importlib.import_module(where[name], package), name)
        return value

    return __getattr__


_exported = _on_first_use(__name__, _EXPORTS)


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from importlib import metadata

        value = globals()[name] = metadata.version("podtemplate")
        return value
    if name in _FLYTEKIT_ONLY:  # `from podtemplate import Secret`: the hint, not a bare error
        from .migration import CORE_NAMES, flytekit_names

        return flytekit_names(__name__, CORE_NAMES)(name)
    return _exported(name)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


class _Package(_types.ModuleType):
    """The import system binds each submodule on its package as it is imported; where a
    public name is also a submodule's (``render``, ``merge``), the name stays the
    function (``podtemplate.render(...)``), found by ``__getattr__``."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _EXPORTS and isinstance(value, _types.ModuleType):
            return
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package


def _command() -> None:
    """The ``podtemplate`` command (its console script). This package loads only the
    standard library, so a Ctrl-C while the CLI loads ends as one during a command does:
    one line, exit 130, no traceback."""
    try:
        from .guard import collector_paused
    except KeyboardInterrupt:
        _interrupted_while_loading()
    with collector_paused():  # one short process: its imports and render make few cycles
        try:
            from .cli import main
        except KeyboardInterrupt:
            _interrupted_while_loading()
        main()


def _interrupted_while_loading() -> NoReturn:
    _sys.stderr.write("\ninterrupted: nothing was written\n")
    raise SystemExit(130) from None


__all__ = [
    "ConfigModel",
    "ApiProblem",
    "ApiRuleError",
    "check_pod",
    "check_pod_template",
    "DefinitionError",
    "DefinitionErrors",
    "FieldDecl",
    "FlytekitNameError",
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
    "Pod",
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
    "WhenField",
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

"""The render context: what one render shares across tasks, as plain data.

:func:`podtemplate.make_context` builds it (the task types' settings validated up front),
so this module imports nothing of the render around it; the template store is asked of
the plugins through the plugin manager it holds, when a template is first looked up. What a
render computes and reuses across its tasks lives in :attr:`RenderContext.stash`, one
typed entry per :class:`StashKey`, the way pytest keeps plugin state on its nodes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .platform import Platform
from .stash import MEMO_LIMIT, Stash, StashKey, memo

if TYPE_CHECKING:
    import pluggy

    from .files.store import TemplateStore
    from .model.templates import PodTemplate

__all__ = ["MEMO_LIMIT", "PlatformSettings", "RenderContext", "RenderWarning", "Stash",
           "StashKey", "memo"]

_STORE = StashKey["TemplateStore | None"]("the template store of the render")

@dataclass(frozen=True)
class RenderWarning:
    """A problem that does not fail the render, located like an error."""

    message: str
    task: str | None = None
    role: str | None = None
    field: str | None = None

    def __str__(self) -> str:
        where = [p for p in (self.task and f"task '{self.task}'",
                             self.role and f"role '{self.role}'", self.field) if p]
        return f"{', '.join(where)}: {self.message}" if where else self.message


@dataclass(frozen=True)
class PlatformSettings:
    """The settings of platform.yaml a plugin may read (``context.platform_settings``),
    each as core applies it; the rest of the platform is core's to apply.

    - ``namespace``: the namespace of rendered objects (None: the context's namespace);
    - ``gpu_resource_name``: the resource ``Resources(gpu=N)`` becomes
      (``gpuResourceName``, default ``nvidia.com/gpu``);
    - ``accelerator_label``: the node label ``@task(accelerator=...)`` selects on
      (``acceleratorLabel``);
    - ``default_image``: the primary container's image when no layer sets one
      (``defaultImage``), or None;
    - ``default_requests`` / ``default_limits``: what ``defaultResources`` fills in where
      the primary container leaves a resource unset (read only);
    - ``run_id``: ``render --run-id``, ending every object name, or None.
    """

    namespace: str | None
    gpu_resource_name: str
    accelerator_label: str
    default_image: str | None
    default_requests: Mapping[str, str]
    default_limits: Mapping[str, str]
    run_id: str | None


@dataclass
class RenderContext:
    """Shared by every task of one render. Plugins read it and may call :meth:`warn`."""

    platform: Platform
    plugin_manager: pluggy.PluginManager
    override: PodTemplate | None = None
    inputs: Mapping[str, str] = field(default_factory=dict)
    provenance: bool = False
    # Custom resources are validated against their CRDs at render time; the conformance
    # kit turns this off to judge each probed field on its own instead of failing a render.
    check_crds: bool = True
    # ``render --run-id``: suffixes every object name and labels every object and pod.
    run_id: str | None = None
    # Every installed task type's ``taskTypes.<name>`` settings, validated by its own
    # model (its defaults when platform.yaml has none); a type without a model is absent.
    settings: Mapping[str, Any] = field(default_factory=dict)
    warnings: list[RenderWarning] = field(default_factory=list)
    stash: Stash = field(default_factory=Stash, repr=False, compare=False)

    @property
    def namespace(self) -> str | None:
        return self.platform.namespace

    @cached_property
    def platform_settings(self) -> PlatformSettings:
        """The platform settings a plugin may read, typed and read only."""
        platform = self.platform
        return PlatformSettings(
            namespace=platform.namespace, gpu_resource_name=platform.gpu_resource_name,
            accelerator_label=platform.accelerator_label,
            default_image=platform.default_image,
            default_requests=MappingProxyType(dict(platform.default_resources.requests)),
            default_limits=MappingProxyType(dict(platform.default_resources.limits)),
            run_id=self.run_id)

    def warn(self, message: str, *, task: str | None = None, role: str | None = None,
             field: str | None = None) -> None:
        self.warnings.append(RenderWarning(message, task, role, field))

    def memo(self, key: StashKey[dict[Any, Any]], limit: int = MEMO_LIMIT) -> dict[Any, Any]:
        """The bounded per-render table ``key`` (see :func:`memo`)."""
        return memo(self.stash, key, limit)

    @property
    def store(self) -> TemplateStore | None:
        """The cluster templates' store the plugins make for this render, if any: made
        when a template is first looked up, so that a template folder no task uses
        (missing, say) does not fail the render."""
        if _STORE not in self.stash:
            self.stash[_STORE] = self.plugin_manager.hook.podtemplate_make_template_store(
                context=self)
        return self.stash[_STORE]

    def task_type_settings(self, task_type: str) -> Any:
        """The ``taskTypes.<task_type>`` settings of the platform, validated by the task
        type's own model; None for a type without a settings model."""
        return self.settings.get(task_type)

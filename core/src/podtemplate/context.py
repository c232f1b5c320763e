"""The render context: what one render shares across tasks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .platform import Platform

if TYPE_CHECKING:
    import pluggy

    from .model import PodTemplate
    from .store import TemplateStore

__all__ = ["RenderContext", "Warning_"]


@dataclass(frozen=True)
class Warning_:
    """A problem that does not fail the render, located like an error."""

    message: str
    task: str | None = None
    role: str | None = None
    field: str | None = None

    def __str__(self) -> str:
        where = [p for p in (self.task and f"task '{self.task}'",
                             self.role and f"role '{self.role}'", self.field) if p]
        return f"{', '.join(where)}: {self.message}" if where else self.message


@dataclass
class RenderContext:
    """Shared by every task of one render. Plugins read it and may call :meth:`warn`."""

    platform: Platform
    plugin_manager: pluggy.PluginManager
    override: PodTemplate | None = None
    inputs: Mapping[str, str] = field(default_factory=dict)
    provenance: bool = False
    warnings: list[Warning_] = field(default_factory=list)
    _store: TemplateStore | None = None
    _store_loaded: bool = False
    cache: dict[str, Any] = field(default_factory=dict)

    @property
    def namespace(self) -> str | None:
        return self.platform.namespace

    def warn(self, message: str, *, task: str | None = None, role: str | None = None,
             field: str | None = None) -> None:
        self.warnings.append(Warning_(message, task, role, field))

    @property
    def store(self) -> TemplateStore | None:
        if not self._store_loaded:
            self._store = self.plugin_manager.hook.podtemplate_make_template_store(context=self)
            self._store_loaded = True
        return self._store

"""The render context: what one render shares across tasks."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from .platform import Platform

if TYPE_CHECKING:
    import pluggy

    from .files.store import TemplateStore
    from .model.templates import PodTemplate

__all__ = ["RenderContext", "RenderWarning"]

T = TypeVar("T")
MEMO_LIMIT = 4096  # entries per memo table
_SETTINGS = "context:task-type-settings"


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
    warnings: list[RenderWarning] = field(default_factory=list)
    _store: TemplateStore | None = None
    _store_loaded: bool = False
    cache: dict[str, Any] = field(default_factory=dict)

    @property
    def namespace(self) -> str | None:
        return self.platform.namespace

    def warn(self, message: str, *, task: str | None = None, role: str | None = None,
             field: str | None = None) -> None:
        self.warnings.append(RenderWarning(message, task, role, field))

    def memo(self, table: str, limit: int = MEMO_LIMIT) -> dict[Any, Any]:
        """The per-render table ``table``, for what tasks share: a template's layer, its
        proof, a folded prefix. Beyond ``limit`` entries its older half is dropped, so a
        render's memory does not grow with its number of tasks. Keep ``limit`` small for
        what only one task reuses: entries that outlive a few tasks are garbage the
        collector's oldest generation has to find."""
        memo: dict[Any, Any] | None = self.cache.get(table)
        if memo is None:
            memo = self.cache[table] = {}
        elif len(memo) > limit:
            for key in list(memo)[: len(memo) // 2]:
                del memo[key]
        return memo

    def remember(self, table: str, key: Hashable, make: Callable[[], T], *,
                 keep: object = None, limit: int = MEMO_LIMIT) -> T:
        """``make()`` the first time ``key`` is seen in ``table`` this render, the same
        value afterwards. ``keep`` stays alive with the entry: pass the object whose
        ``id()`` is in the key, so that the id cannot be reused by another object."""
        found = self.cache.get(table)
        entry = None if found is None else found.get(key)
        if entry is None:  # the table is trimmed only when it grows
            entry = self.memo(table, limit)[key] = (make(), keep)
        value: T = entry[0]
        return value

    def task_type_settings(self, task_type: str) -> Any:
        """The ``taskTypes.<task_type>`` settings of the platform, validated by the task
        type's own model (its defaults when platform.yaml has no such section); None for a
        type without a settings model."""
        return self.settings_by_task_type().get(task_type)

    def settings_by_task_type(self) -> Mapping[str, Any]:
        """Every installed task type's validated settings, by name. Validated once per
        render, the first time they are asked for (``make_context`` asks at once, so a bad
        section fails before any task renders); sections naming no installed type warn."""
        if _SETTINGS not in self.cache:
            from .dispatch import task_types
            from .task_settings import validate_task_type_settings

            settings, warnings = validate_task_type_settings(
                self.platform, task_types(self.plugin_manager))
            for warning in warnings:
                self.warn(warning, field="taskTypes")
            self.cache[_SETTINGS] = settings
        found: Mapping[str, Any] = self.cache[_SETTINGS]
        return found

    @property
    def store(self) -> TemplateStore | None:
        if not self._store_loaded:
            self._store = self.plugin_manager.hook.podtemplate_make_template_store(context=self)
            self._store_loaded = True
        return self._store

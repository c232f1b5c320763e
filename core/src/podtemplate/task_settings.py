"""``taskTypes`` of platform.yaml: each task type's settings, validated by its own model.

Core checks only the section's shape (a mapping per task type name, see
:class:`~podtemplate.Platform`); each installed task type that declares a settings model
(:attr:`TaskType.settings`) validates its own mapping, unknown keys included, when the
render starts; a type without a section gets its model's defaults at its first task. A section
for a task type that is not installed is not an error (one platform.yaml serves clusters
with different plugins installed) but a warning, so a misspelled name does not go unseen.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from .errors import PlatformConfigError, did_you_mean
from .model.roles import TaskType
from .platform import Platform

__all__ = ["TaskTypeSettings", "validate_task_type_settings"]


class TaskTypeSettings(Mapping[str, BaseModel]):
    """Each task type's settings, validated by its own model when first asked for: the
    types platform.yaml has a section for when the render starts, any other at its first
    task (its model's defaults), so a render imports no plugin it does not use. Holds the
    settings validated so far."""

    def __init__(self, platform: Platform, lookup: Callable[[str], TaskType | None]) -> None:
        self._platform = platform
        self._lookup = lookup
        self._validated: dict[str, BaseModel] = {}

    def __getitem__(self, name: str) -> BaseModel:
        found = self._validated.get(name)
        if found is None:
            task_type = self._lookup(name)
            given = self._platform.task_types.get(name)
            if task_type is None or task_type.settings is None:
                if task_type is not None and given:
                    raise PlatformConfigError(
                        f"task type {name!r} takes no settings", field=f"taskTypes.{name}",
                        fix=f"remove taskTypes.{name}", file=self._platform.source)
                raise KeyError(name)
            found = self._validated[name] = _validate(task_type.settings, given or {}, name,
                                                      self._platform.source)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._validated)

    def __len__(self) -> int:
        return len(self._validated)


def validate_task_type_settings(platform: Platform, lookup: Callable[[str], TaskType | None],
                                installed: Collection[str]
                                ) -> tuple[TaskTypeSettings, list[tuple[str, str]]]:
    """The task types' settings, every section of platform.yaml naming an installed type
    validated now (``lookup`` imports its plugin), and a warning per section naming no
    installed task type: ``(its field, the message)``."""
    settings = TaskTypeSettings(platform, lookup)
    for name in platform.task_types:
        if name in installed:
            settings.get(name)
    unknown = sorted(set(platform.task_types) - set(installed))
    warnings = [(f"taskTypes.{name}", f"no installed task type is named {name!r}"
                 + (f" (did you mean {meant!r}?)" if (meant := did_you_mean(name, installed))
                    else "")
                 + f"; its settings are not used (installed: {', '.join(sorted(installed))})")
                for name in unknown]
    return settings, warnings


def _validate(model: type[BaseModel], given: Mapping[str, Any], name: str,
              source: str | None) -> BaseModel:
    try:
        return model.model_validate(dict(given))
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in (name, *first["loc"]))
        message = first["msg"].removeprefix("Value error, ")
        accepted = [f.alias or key for key, f in model.model_fields.items()]
        fix = f"the {name!r} task type takes: {', '.join(accepted)} (see its README)"
        if first["type"] == "extra_forbidden":
            message = f"unknown key '{first['loc'][-1]}'"
            meant = did_you_mean(str(first["loc"][-1]), accepted)
            if meant and len(first["loc"]) == 1:  # a key of the section itself
                message += f"; did you mean {meant!r}?"
                fix = f"write {meant!r}"
        raise PlatformConfigError(message, field=f"taskTypes.{where}", file=source,
                                  fix=fix) from None

"""``taskTypes`` of platform.yaml: each task type's settings, validated by its own model.

Core checks only the section's shape (a mapping per task type name, see
:class:`~podtemplate.Platform`); each installed task type that declares a settings model
(:attr:`TaskType.settings`) validates its own mapping, unknown keys included. A section
for a task type that is not installed is not an error (one platform.yaml serves clusters
with different plugins installed) but a warning, so a misspelled name does not go unseen.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from .errors import PlatformConfigError
from .model.roles import TaskType
from .platform import Platform

__all__ = ["validate_task_type_settings"]


def validate_task_type_settings(platform: Platform, types: Mapping[str, TaskType]
                                ) -> tuple[dict[str, BaseModel], list[str]]:
    """Every installed task type's settings (its model's defaults when platform.yaml has no
    section for it), and a warning per section naming no installed task type."""
    settings: dict[str, BaseModel] = {}
    for name, task_type in types.items():
        given = platform.task_types.get(name)
        if task_type.settings is None:
            if given:
                raise PlatformConfigError(
                    f"task type {name!r} takes no settings", field=f"taskTypes.{name}",
                    fix=f"remove taskTypes.{name}", file=platform.source)
            continue
        settings[name] = _validate(task_type.settings, given or {}, name, platform.source)
    unknown = sorted(set(platform.task_types) - set(types))
    warnings = [f"taskTypes.{name}: no installed task type is named {name!r}; its settings "
                f"are not used (installed: {', '.join(sorted(types))})" for name in unknown]
    return settings, warnings


def _validate(model: type[BaseModel], given: Mapping[str, Any], name: str,
              source: str | None) -> BaseModel:
    try:
        return model.model_validate(dict(given))
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in (name, *first["loc"]))
        message = first["msg"].removeprefix("Value error, ")
        if first["type"] == "extra_forbidden":
            message = f"unknown key '{first['loc'][-1]}'"
        keys = ", ".join(f.alias or key for key, f in model.model_fields.items())
        raise PlatformConfigError(
            message, field=f"taskTypes.{where}", file=source,
            fix=f"the {name!r} task type takes: {keys} (see its README)") from None

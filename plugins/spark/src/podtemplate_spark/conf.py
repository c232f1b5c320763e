"""``sparkConf``: the user's Spark properties, what the plugin derives, and where the two
meet.

Every native field the plugin writes (``spec.executor.cores``...) has Spark properties of
the same meaning (``spark.executor.cores``). The operator passes native fields after
``sparkConf``, so a native field would silently beat the user's property. The rule here:
**the user's ``spark_conf`` wins**: the plugin then leaves the native field out, and warns
when the two disagree. Within one ``Spark(...)`` config (a role's own requests against
``spark_conf``) a disagreement is a :class:`DefinitionError` instead.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from podtemplate import InvalidQuantityError
from podtemplate.plugin import parse_quantity

from .units import spark_memory_bytes

__all__ = [
    "NativeKey",
    "NATIVE_KEYS",
    "MAP_PREFIXES",
    "RESERVED_KEYS",
    "Conflict",
    "conflicts",
    "yield_to_user",
    "derived_conf",
    "combine_conf",
    "Warn",
]


class Warn(Protocol):
    def __call__(self, message: str, *, role: str | None = None,
                 field: str | None = None) -> None: ...


def _same_int(value: Any, text: str) -> bool:
    try:
        return bool(int(text.strip()) == value)
    except ValueError:
        return False


def _same_quantity(value: Any, text: str) -> bool:
    try:
        return parse_quantity(text.strip()) == parse_quantity(str(value))
    except InvalidQuantityError:
        return False


def _same_memory(value: Any, text: str) -> bool:
    return spark_memory_bytes(text) == spark_memory_bytes(str(value))


def _same_text(value: Any, text: str) -> bool:
    return str(value) == text


@dataclass(frozen=True)
class NativeKey:
    """A native field of ``spec.<role>`` and the Spark properties that mean the same;
    ``{role}`` in a property stands for ``driver`` or ``executor``."""

    field: str
    properties: tuple[str, ...]
    same: Callable[[Any, str], bool]

    def keys(self, role: str) -> tuple[str, ...]:
        return tuple(p.format(role=role) for p in self.properties)


NATIVE_KEYS: tuple[NativeKey, ...] = (
    NativeKey("cores", ("spark.{role}.cores",), _same_int),
    NativeKey("coreRequest", ("spark.kubernetes.{role}.request.cores",), _same_quantity),
    NativeKey("coreLimit", ("spark.kubernetes.{role}.limit.cores",), _same_quantity),
    NativeKey("memory", ("spark.{role}.memory",), _same_memory),
    NativeKey("memoryOverhead", ("spark.{role}.memoryOverhead",), _same_memory),
    NativeKey("image", ("spark.kubernetes.{role}.container.image",
                        "spark.kubernetes.container.image"), _same_text),
    NativeKey("serviceAccount", ("spark.kubernetes.authenticate.{role}.serviceAccountName",),
              _same_text),
    NativeKey("instances", ("spark.{role}.instances",), _same_int),
)
MAP_PREFIXES = {"labels": "spark.kubernetes.{role}.label.",
                 "annotations": "spark.kubernetes.{role}.annotation."}

# The operator writes each role's template to a file and points Spark at it with these,
# naming the Spark container spark-kubernetes-driver/-executor; a user value would detach
# the resolved pods from Spark.
RESERVED_KEYS = tuple(
    f"spark.kubernetes.{role}.{name}"
    for role in ("driver", "executor")
    for name in ("podTemplateFile", "podTemplateContainerName")
)


@dataclass(frozen=True)
class Conflict:
    """A native value and the user's Spark property that disagree."""

    field: str
    key: str
    derived: Any
    user: str


@functools.cache
def _role_keys(role: str) -> dict[str, tuple[str, ...]]:
    """Native field -> the Spark properties of ``role`` that mean the same."""
    return {native.field: native.keys(role) for native in NATIVE_KEYS}


def conflicts(role: str, natives: Mapping[str, Any], spark_conf: Mapping[str, str]
              ) -> list[Conflict]:
    """Where ``spark_conf`` sets a property of a native field to another value."""
    found: list[Conflict] = []
    if not spark_conf:
        return found
    keys = _role_keys(role)
    for native in NATIVE_KEYS:
        if native.field not in natives:
            continue
        for key in keys[native.field]:
            if key in spark_conf and not native.same(natives[native.field], spark_conf[key]):
                found.append(Conflict(native.field, key, natives[native.field], spark_conf[key]))
    return found


def yield_to_user(role: str, natives: Mapping[str, Any], spark_conf: Mapping[str, str],
                  warn: Warn, blame: Callable[[str], str | None] | None = None
                  ) -> dict[str, Any]:
    """``natives`` without the fields (and label/annotation keys) that ``spark_conf``
    sets itself, warning where the values disagree; ``blame`` names the layer that set a
    native field's value (``task settings``...), for the warning."""
    for conflict in conflicts(role, natives, spark_conf):
        culprit = blame(conflict.field) if blame is not None else None
        by = f" (set by the {culprit})" if culprit else ""
        warn(f"spark_conf[{conflict.key!r}]={conflict.user!r} wins over {conflict.field} "
             f"{conflict.derived!r} taken from the {role} pod{by}; remove one of the two",
             role=role, field=f"spec.{role}.{conflict.field}")
    keys = _role_keys(role)
    out = {k: v for k, v in natives.items()
           if not any(key in spark_conf for key in keys.get(k, ()))}
    for field, prefix in MAP_PREFIXES.items():
        if field in out:
            out[field] = _yield_map(role, field, out[field], prefix.format(role=role),
                                    spark_conf, warn)
            if not out[field]:
                del out[field]
    return out


def _yield_map(role: str, field: str, values: Mapping[str, str], prefix: str,
               spark_conf: Mapping[str, str], warn: Warn) -> dict[str, str]:
    kept = {}
    for name, value in values.items():
        user = spark_conf.get(prefix + name)
        if user is None:
            kept[name] = value
        elif user != value:
            warn(f"spark_conf[{prefix + name!r}]={user!r} wins over the pod's {value!r}",
                 role=role, field=f"metadata.{field}.{name}")
    return kept


# Executors on interruptible (spot) nodes: with decommissioning Spark migrates their
# cached and shuffle blocks when a node is reclaimed instead of recomputing the stages.
DECOMMISSION = {
    "spark.decommission.enabled": "true",
    "spark.storage.decommission.enabled": "true",
    "spark.storage.decommission.rddBlocks.enabled": "true",
    "spark.storage.decommission.shuffleBlocks.enabled": "true",
}


def derived_conf(*, executors_interruptible: bool, decommission_supported: bool
                 ) -> dict[str, str]:
    """The Spark properties the plugin derives from the task."""
    if executors_interruptible and decommission_supported:
        return dict(DECOMMISSION)
    return {}


def combine_conf(derived: Mapping[str, str], user: Mapping[str, str], warn: Warn
                 ) -> dict[str, str]:
    """``derived`` then ``user``: user keys win, with a warning where they disagree."""
    for key, value in derived.items():
        if key in user and user[key] != value:
            warn(f"spark_conf[{key!r}]={user[key]!r} wins over the derived {value!r}",
                 field=f"spec.sparkConf.{key}")
    return {**derived, **user}

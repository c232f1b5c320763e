"""Kubernetes quantities in Spark's terms: JVM memory sizes, whole cores, whole GPUs.

Spark reads ``spark.{driver,executor}.memory`` and ``memoryOverhead`` as a whole number of
MiB (a bare number is MiB; a smaller unit is truncated towards 0 MiB), written with binary
suffixes ``m``, ``g``, ``t``. Anything that is not a whole number of MiB cannot be
expressed, and is an error rather than a silent rounding.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal

from podtemplate import DefinitionError, InvalidQuantityError
from podtemplate.plugin import parse_quantity

__all__ = [
    "MIB",
    "MIN_MEMORY_OVERHEAD",
    "spark_memory",
    "spark_memory_bytes",
    "spark_cores",
    "whole_gpus",
    "quantity_value",
]

MIB = 2**20
# Spark's smallest default memoryOverhead (spark.kubernetes memoryOverhead floor, 384 MiB).
MIN_MEMORY_OVERHEAD = 384 * MIB
_JVM_SUFFIXES = (("t", 2**40), ("g", 2**30), ("m", MIB))
_SPARK_SIZE = re.compile(r"^\s*(\d+)\s*([kmgtp]?)b?\s*$", re.IGNORECASE)
_SPARK_UNITS = {"": MIB, "k": 2**10, "m": MIB, "g": 2**30, "t": 2**40, "p": 2**50}


def quantity_value(quantity: str, *, field: str) -> Decimal:
    """The numeric value of a Kubernetes quantity; the error names ``field``."""
    try:
        return parse_quantity(quantity)
    except InvalidQuantityError as error:
        raise error.located(field=field) from None


def spark_memory(quantity: str, *, field: str) -> str:
    """A Kubernetes memory quantity as Spark writes it: ``4Gi`` → ``4g``, ``1536Mi`` →
    ``1536m``, ``0.5Gi`` → ``512m``. Raises :class:`DefinitionError` for a quantity that
    is not a positive whole number of MiB (``1G``, ``100k``, ``1500m`` millibytes)."""
    value = quantity_value(quantity, field=field)
    if value <= 0:
        raise DefinitionError(f"memory {quantity!r} must be positive", field=field,
                              fix='give a size such as "512Mi" or "4Gi"')
    if value % MIB != 0:
        nearest = math.ceil(value / MIB)
        raise DefinitionError(
            f"memory {quantity!r} is {value / MIB:.4g} MiB; Spark sets memory in whole MiB "
            "and cannot express it", field=field,
            fix=f'use a whole number of Mi or Gi, e.g. "{nearest}Mi"')
    for suffix, size in _JVM_SUFFIXES:
        if value % size == 0:
            return f"{int(value // size)}{suffix}"
    raise AssertionError("unreachable: a whole number of MiB always has a suffix")


def spark_memory_bytes(text: str) -> int | None:
    """Bytes of a Spark memory size as Spark reads ``spark.*.memory`` (a bare number is
    MiB); None when Spark would not parse it."""
    match = _SPARK_SIZE.match(text)
    if not match:
        return None
    return int(match.group(1)) * _SPARK_UNITS[match.group(2).lower()]


def spark_cores(quantity: str, *, field: str) -> int:
    """Spark's integer ``cores`` for a cpu quantity: the cpu rounded up, at least 1
    (``500m`` → 1, ``1.5`` → 2, ``4`` → 4). Spark runs that many tasks at once; the pod's
    exact cpu request and limit are ``coreRequest``/``coreLimit``."""
    value = quantity_value(quantity, field=field)
    if value <= 0:
        raise DefinitionError(f"cpu {quantity!r} must be positive", field=field,
                              fix='give a cpu quantity such as "500m" or "2"')
    return max(1, math.ceil(value))


def whole_gpus(quantity: str, *, field: str) -> int:
    """A GPU quantity as the whole number the operator's ``gpu.quantity`` holds."""
    value = quantity_value(quantity, field=field)
    if value <= 0 or value != value.to_integral_value():
        raise DefinitionError(f"GPU quantity {quantity!r} is not a positive whole number",
                              field=field, fix="request whole GPUs, e.g. gpu=1")
    return int(value)

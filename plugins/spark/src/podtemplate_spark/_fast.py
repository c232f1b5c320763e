"""The fast path of the Spark build, fenced here: it gives what the plain
:func:`podtemplate_spark.conf.yield_to_user` gives (``plugins/spark/tests/test_spark_fast.py``
compares the two on generated natives and ``spark_conf``).

- **A ``spark_conf`` that says nothing of a role.** Most tasks' ``spark_conf`` holds no
  property a role's native fields (``spark.driver.cores``...) or its label and annotation
  prefixes (``spark.kubernetes.driver.label.``...) stand for: then nothing yields and
  nothing warns, which one set operation and one prefix test over the keys tell, instead
  of a lookup per native field, per property and per label.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from . import conf

__all__ = ["yield_to_user"]


@functools.cache
def _role_keys(role: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The Spark properties of ``role``'s native fields, and its map prefixes."""
    keys = frozenset(key for native in conf.NATIVE_KEYS for key in native.keys(role))
    return keys, tuple(prefix.format(role=role) for prefix in conf.MAP_PREFIXES.values())


def yield_to_user(role: str, natives: Mapping[str, Any], spark_conf: Mapping[str, str],
                  warn: conf.Warn, blame: Callable[[str], str | None] | None = None
                  ) -> dict[str, Any]:
    """What :func:`podtemplate_spark.conf.yield_to_user` gives, cheaper."""
    if spark_conf:
        keys, prefixes = _role_keys(role)
        if not spark_conf.keys().isdisjoint(keys) or any(
                isinstance(key, str) and key.startswith(prefixes) for key in spark_conf):
            return conf.yield_to_user(role, natives, spark_conf, warn, blame)
    maps = conf.MAP_PREFIXES
    return {key: dict(value) if key in maps else value for key, value in natives.items()
            if not (key in maps and not value)}

"""Platform policy: guardrails judged on every role's final pod.

The ``policy:`` section of platform.yaml (:class:`Policy`) names a Pod Security
Standard, an ``enforce`` fragment merged last (the layer ``policy``), ``locked`` field
paths, ``allowedRegistries`` and ``maxResources``. Checks are plugins on the
``podtemplate_check_policy`` hook; the built-in ones are in :mod:`.builtin`.

The names below are imported on first use (PEP 562): a render whose platform sets no
policy, and that no policy plugin checks, loads the policy model and nothing else.
"""

from __future__ import annotations

import importlib as _importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .engine import check_policy, raise_violations
    from .model import PodSecurityLevel, Policy
    from .paths import match_path
    from .pss import pod_security
    from .subject import LayerInfo, LayerOwner, PolicySubject, Provenance
    from .violations import NOT_SET, Origin, Violation

_WHERE = {
    "check_policy": ".engine", "raise_violations": ".engine",
    "PodSecurityLevel": ".model", "Policy": ".model", "match_path": ".paths",
    "pod_security": ".pss", "LayerInfo": ".subject", "LayerOwner": ".subject",
    "PolicySubject": ".subject", "Provenance": ".subject", "NOT_SET": ".violations",
    "Origin": ".violations", "Violation": ".violations",
}

__all__ = [
    "NOT_SET",
    "LayerInfo",
    "LayerOwner",
    "Origin",
    "PodSecurityLevel",
    "Policy",
    "PolicySubject",
    "Provenance",
    "Violation",
    "check_policy",
    "match_path",
    "pod_security",
    "raise_violations",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(_WHERE[name], __name__), name)
    globals()[name] = value
    return value

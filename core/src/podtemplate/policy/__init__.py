"""Platform policy: guardrails judged on every role's final pod.

The ``policy:`` section of platform.yaml (:class:`Policy`) names a Pod Security
Standard, an ``enforce`` fragment merged last (the layer ``policy``), ``locked`` field
paths, ``allowedRegistries`` and ``maxResources``. Checks are plugins on the
``podtemplate_check_policy`` hook; the built-in ones are in :mod:`.builtin`.

The names below are imported on first use (PEP 562): a render whose platform sets no
policy, and that no policy plugin checks, loads the policy model and nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _on_first_use

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


__getattr__ = _on_first_use(__name__, _WHERE)

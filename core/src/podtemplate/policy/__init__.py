"""Platform policy: guardrails judged on every role's final pod.

The ``policy:`` section of platform.yaml (:class:`Policy`) names a Pod Security
Standard, an ``enforce`` fragment merged last (the layer ``policy``), ``locked`` field
paths, ``allowedRegistries`` and ``maxResources``. Checks are plugins on the
``podtemplate_check_policy`` hook; the built-in ones are in :mod:`.builtin`.
"""

from .engine import check_policy, raise_violations
from .model import PodSecurityLevel, Policy
from .paths import match_path
from .pss import pod_security
from .subject import LayerInfo, LayerOwner, PolicySubject, Provenance
from .violations import NOT_SET, Origin, Violation

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

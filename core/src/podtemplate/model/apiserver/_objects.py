"""What the API server checks in the objects a render writes besides pods: each object's
own metadata, a ``kind: Pod`` outside its pod template, a ``v1 ConfigMap`` (what
``podtemplate validate`` checks of the same objects, one rule each)."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from typing import Any

from ...errors import InvalidNameError
from ..names import check_dns1123_subdomain

__all__ = ["configmap_problems"]

# A ConfigMap key: alphanumerics, '-', '_' or '.' (k8s IsConfigMapKey), at most 253 long.
_CONFIG_KEY = re.compile(r"[-._a-zA-Z0-9]+")
_CONFIGMAP_BYTES = 1024 * 1024  # the API server's limit on a ConfigMap's data


def configmap_problems(document: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(path, message)`` for what the API server refuses in a ``v1 ConfigMap``: unknown
    fields, a name that is not a DNS-1123 subdomain, keys that are not ConfigMap keys or
    sit in both maps, values of the wrong type, more than 1 MiB of data."""
    found = [(key, "unknown field: a ConfigMap has apiVersion, kind, metadata, data, "
                   "binaryData and immutable") for key in document if key not in _CONFIGMAP]
    metadata = document.get("metadata")
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    try:
        check_dns1123_subdomain(name, what="name")  # type: ignore[arg-type]
    except InvalidNameError as error:
        found.append(("metadata.name", f"{error.message} ({error.fix})"))
    if not isinstance(document.get("immutable", False), bool):
        found.append(("immutable", "must be true or false"))
    size = 0
    for field in ("data", "binaryData"):
        entries = document.get(field) or {}
        if not isinstance(entries, Mapping):
            found.append((field, "must be a map of keys to values"))
            continue
        for key, value in entries.items():
            if not (isinstance(key, str) and len(key) <= 253 and _CONFIG_KEY.fullmatch(key)):
                found.append((f"{field}.{key}", "a ConfigMap key has 1-253 characters: "
                                                "letters, digits, '-', '_' or '.'"))
            if not isinstance(value, str):
                found.append((f"{field}.{key}", "must be a string"))
                continue
            size += len(str(key)) + len(value.encode("utf-8"))
            if field == "binaryData" and not _is_base64(value):
                found.append((f"{field}.{key}", "must be base64"))
    both = set(document.get("data") or ()) & set(document.get("binaryData") or ())
    found += [(f"binaryData.{key}", "the key is also in data") for key in sorted(both, key=str)]
    if size > _CONFIGMAP_BYTES:
        found.append(("data", f"{size} bytes of data, more than the 1 MiB a ConfigMap holds"))
    return found


_CONFIGMAP = frozenset(("apiVersion", "kind", "metadata", "data", "binaryData", "immutable"))


def _is_base64(text: str) -> bool:
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True

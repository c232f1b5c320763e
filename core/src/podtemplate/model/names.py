"""Validators for the names and quantities Kubernetes accepts, used at definition time."""

from __future__ import annotations

import functools
import re
from decimal import Decimal
from typing import TypeGuard

from ..errors import InvalidNameError, InvalidQuantityError, brief

__all__ = [
    "MAX_OBJECT_NAME",
    "check_dns1123_label",
    "check_dns1123_subdomain",
    "check_dns1035_label",
    "check_env_name",
    "env_name_ok",
    "check_label_key",
    "check_label_value",
    "check_quantity",
    "dns1123_label_ok",
    "quantity_ok",
    "to_dns1123",
    "parse_quantity",
]

MAX_OBJECT_NAME = 63  # a DNS-1123 label: Services, labels and most operators need it
_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_LABEL_NAME = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$")
# Suffixes of resource.Quantity: binary SI, decimal SI, or a decimal exponent.
_QUANTITY = re.compile(
    r"^[+-]?(\d+(\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$"
)


@functools.lru_cache(maxsize=4096)  # container and volume names recur on every pod
def dns1123_label_ok(value: str) -> bool:
    """Whether the string ``value`` is a DNS-1123 label (the check, without an error)."""
    return len(value) <= 63 and _LABEL.fullmatch(value) is not None


def check_dns1123_label(value: str, *, what: str, field: str | None = None) -> str:
    """Return ``value`` if it is a DNS-1123 label (container, volume, port names...)."""
    if not isinstance(value, str) or not dns1123_label_ok(value):
        raise InvalidNameError(
            f"{what} {brief(value)} is not a valid DNS-1123 label",
            fix="use at most 63 lowercase letters, digits and '-', starting and ending "
            "with a letter or digit",
            field=field,
        )
    return value


def check_dns1035_label(value: str, *, what: str, max_length: int = 63,
                        why: str = "", field: str | None = "name") -> str:
    """Return ``value`` if it is a DNS-1035 label (a DNS-1123 label starting with a letter,
    as Service names must be) of at most ``max_length`` characters. ``why`` says which
    operator asks for it, in the error."""
    reason = f" ({why})" if why else ""
    if not isinstance(value, str) or not dns1123_label_ok(value) or not value[:1].isalpha():
        raise InvalidNameError(
            f"{what} {value!r} is not a DNS-1035 label{reason}",
            fix="start the name with a letter, then lowercase letters, digits and '-'",
            field=field)
    if len(value) > max_length:
        raise InvalidNameError(
            f"{what} {value!r} has {len(value)} characters, more than {max_length}{reason}",
            fix=f"shorten it to at most {max_length} characters", field=field)
    return value


def check_dns1123_subdomain(value: str, *, what: str, field: str | None = None) -> str:
    """Return ``value`` if it is a DNS-1123 subdomain (object names)."""
    if not isinstance(value, str) or len(value) > 253 or not _SUBDOMAIN.fullmatch(value):
        raise InvalidNameError(
            f"{what} {brief(value)} is not a valid DNS-1123 name",
            fix="use lowercase letters, digits, '-' and '.', starting and ending with a "
            "letter or digit, at most 253 characters",
            field=field,
        )
    return value


def to_dns1123(value: str) -> str:
    """Turn a Python identifier such as ``train_model`` into an object name ``train-model``."""
    name = re.sub(r"[^a-z0-9.-]+", "-", value.lower()).strip("-.")
    return name[:63].rstrip("-.")


@functools.lru_cache(maxsize=8192)  # the same few names, on every pod of a render
def _env_name(value: str) -> bool:
    return value != "" and value.isascii() and value.isprintable() and "=" not in value


def env_name_ok(value: object) -> TypeGuard[str]:
    """The one env var name rule, the API server's: any printable ASCII but ``=``, not
    empty (k8s validateEnvVarName, relaxed syntax on by default since Kubernetes 1.32)."""
    return type(value) is str and _env_name(value)


def check_env_name(value: str, *, what: str = "environment variable name",
                   field: str | None = None) -> str:
    if not env_name_ok(value):
        raise InvalidNameError(
            f"{what} {brief(value)} is not a valid environment variable name",
            fix="use printable ASCII characters without '=' (e.g. LOG_LEVEL)",
            field=field,
        )
    return value


def check_label_key(key: str, *, field: str | None = None) -> str:
    prefix, _, name = key.rpartition("/") if isinstance(key, str) else ("", "", key)
    ok = isinstance(key, str) and 0 < len(name) <= 63 and bool(_LABEL_NAME.fullmatch(name))
    if ok and prefix:
        ok = len(prefix) <= 253 and bool(_SUBDOMAIN.fullmatch(prefix))
    if not ok:
        raise InvalidNameError(
            f"label or annotation key {brief(key)} is not valid",
            fix="use an optional DNS subdomain prefix and '/', then at most 63 letters, "
            "digits, '-', '_' or '.'",
            field=field,
        )
    return key


def check_label_value(value: str, *, field: str | None = None) -> str:
    if not isinstance(value, str) or len(value) > 63 or not _LABEL_NAME.fullmatch(value):
        raise InvalidNameError(
            f"label value {brief(value)} is not valid",
            fix="use at most 63 letters, digits, '-', '_' or '.', starting and ending "
            "with a letter or digit",
            field=field,
        )
    return value


# Bounds of a quantity we accept: far beyond any real resource, and small enough that
# its value is computed exactly and instantly ("1e9999999" would take Decimal minutes).
_MAX_QUANTITY_TEXT = 64
_MAX_EXPONENT = 30
_FIX_QUANTITY = 'write a number with an optional suffix such as "500m", "2", "4Gi" or "1e3"'


def _quantity_problem(text: str) -> str | None:
    """Why ``text`` is not a quantity we accept, or None."""
    if len(text) > _MAX_QUANTITY_TEXT:
        return f"is longer than {_MAX_QUANTITY_TEXT} characters"
    match = _QUANTITY.fullmatch(text)
    if match is None:
        return "is not a Kubernetes quantity"
    suffix = match.group(3) or ""
    if suffix not in _SUFFIX and abs(int(suffix[1:])) > _MAX_EXPONENT:  # 1e3, not 1E
        return f"has an exponent beyond +/-{_MAX_EXPONENT}"
    if text.startswith("-") and parse_quantity(text) != 0:
        return "is negative (a resource quantity cannot be)"
    return None


@functools.lru_cache(maxsize=4096)  # the same few quantities, on every task of a render
def quantity_ok(text: str) -> bool:
    """Whether the string ``text`` is a Kubernetes quantity we accept: the syntax, at
    most 64 characters, a decimal exponent within +/-30, not negative."""
    return _quantity_problem(text) is None


def check_quantity(value: object, *, field: str | None = None) -> str:
    """Return a quantity as the string the API server would return (``2`` → ``"2"``).
    Integers and floats are accepted as kubectl accepts them."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise InvalidQuantityError(
            f"resource quantity {brief(value)} is not a string or number",
            fix='write a Kubernetes quantity such as "500m", "2" or "4Gi"',
            field=field,
        )
    problem: str | None = "is too large"
    if isinstance(value, int) and abs(value) >= 10**_MAX_QUANTITY_TEXT:
        text = ""
    else:
        text = str.__str__(value) if isinstance(value, str) else (
            str(int(value)) if isinstance(value, int) else repr(float(value)))
        problem = None if quantity_ok(text) else _quantity_problem(text) or "is not valid"
    if problem is not None:
        raise InvalidQuantityError(f"quantity {brief(value)} {problem}", fix=_FIX_QUANTITY,
                                   field=field)
    return text


_SUFFIX: dict[str, int | Decimal] = {
    "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
    "n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3"), "": 1,
    "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
}


@functools.lru_cache(maxsize=4096)  # pure; a platform uses a handful of quantities
def parse_quantity(value: str) -> Decimal:
    """The numeric value of a (valid) quantity: ``"500m"`` → 0.5, ``"1Gi"`` → 1073741824."""
    match = _QUANTITY.fullmatch(value)
    if not match:
        raise InvalidQuantityError(f"{value!r} is not a Kubernetes quantity")
    suffix = match.group(3) or ""
    number = Decimal(value[: len(value) - len(suffix)] if suffix else value)
    if suffix not in _SUFFIX:  # a decimal exponent (e3), not E or Ei
        return number * Decimal(10) ** int(suffix[1:])
    return number * Decimal(str(_SUFFIX[suffix]))

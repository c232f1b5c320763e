"""Resource names and quantities: ``resources`` of containers and pods, ``overhead``."""

from __future__ import annotations

import functools
from decimal import Decimal
from typing import Any

from ..names import parse_quantity, quantity_ok
from ._facts import CONTAINER_RESOURCES, HUGEPAGES_PREFIX, POD_RESOURCES, Rule, qualified_name_ok
from ._report import Problems

__all__ = ["check_resources", "check_quantity_map", "quantity_value", "resources_known_good"]

RESOURCE_NAME = Rule(
    "a container resource is cpu, memory, ephemeral-storage, hugepages-<size> or a "
    "domain-qualified extended resource such as nvidia.com/gpu "
    "(k8s validateContainerResourceName)",
    "qualify an extended resource with its domain (nvidia.com/gpu, not gpu)")
POD_RESOURCE_NAME = Rule(
    "pod-level resources are cpu, memory and hugepages-<size> (k8s validatePodResourceName)",
    "set other resources on the containers")
QUANTITY = Rule("a quantity is a number with an optional suffix (k8s resource.ParseQuantity)",
                'write a quantity such as "500m", "2" or "4Gi"')
NON_NEGATIVE = Rule("a resource quantity is >= 0 (k8s ValidateResourceQuantityValue)",
                    "give a quantity of zero or more")
INTEGER = Rule("an extended resource quantity is a whole number "
               "(k8s ValidateResourceQuantityValue)", 'give a whole number such as "1"')
REQUEST_LE_LIMIT = Rule("a request is <= its limit (k8s ValidateResourceRequirements)",
                        "lower the request or raise the limit")
REQUEST_EQ_LIMIT = Rule("an extended resource or hugepages request equals its limit "
                        "(k8s ValidateResourceRequirements)", "give the request and the limit the "
                        "same value, or set only the limit")
LIMIT_REQUIRED = Rule("an extended resource or hugepages request has a limit "
                      "(they cannot be overcommitted) (k8s ValidateResourceRequirements)",
                      "set the limit (the request then defaults to it)")
HUGEPAGES_NEED_CPU_MEMORY = Rule("hugepages require a cpu or memory request or limit "
                                 "(k8s ValidateResourceRequirements)",
                                 "set a cpu or memory request or limit")


def quantity_value(problems: Problems, path: str, value: Any) -> Decimal | None:
    """The value of a quantity, reporting one that is not a quantity or is negative."""
    if type(value) is not str or not quantity_ok(value):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)  # the client would quote it; its value still counts
        elif type(value) is not str:
            problems.add(path, QUANTITY, f"{value!r} is not a quantity")
            return None
        if not quantity_ok(value):
            # quantity_ok refuses a negative quantity too: say which rule it breaks
            negative = value.startswith("-") and quantity_ok(value[1:])
            problems.add(path, NON_NEGATIVE if negative else QUANTITY,
                         f"{value!r} is {'negative' if negative else 'not a quantity'}")
            return None
    return parse_quantity(value)


def _extended(name: str) -> bool:
    return "/" in name and "kubernetes.io/" not in name


def _name_ok(name: Any, pod_level: bool) -> bool:
    if type(name) is not str:
        return False
    if name.startswith(HUGEPAGES_PREFIX):
        size = name[len(HUGEPAGES_PREFIX):]
        return quantity_ok(size) and parse_quantity(size) > 0
    if pod_level:
        return name in POD_RESOURCES
    if "/" not in name:
        return name in CONTAINER_RESOURCES
    if not qualified_name_ok(name):
        return False
    return "kubernetes.io/" in name or qualified_name_ok("requests." + name)


@functools.lru_cache(maxsize=4096)  # the same few resources, on every pod rendered
def _valid_entry(name: Any, value: str, pod_level: bool) -> Decimal | None:
    """The value of a resource entry that breaks no rule, else None (then the entry is
    checked again, slowly, to report what is wrong)."""
    if not _name_ok(name, pod_level) or not quantity_ok(value):
        return None
    number = parse_quantity(value)
    if number < 0 or (_extended(name) and number != number.to_integral_value()):
        return None
    return number


def check_quantity_map(problems: Problems, path: str, values: Any, *,
                       pod_level: bool = False, names: bool = True) -> dict[str, Decimal]:
    """Check a map of resource name to quantity; return the values that are valid."""
    out: dict[str, Decimal] = {}
    if not isinstance(values, dict):
        return out
    for name, value in values.items():
        number = _valid_entry(name, value, pod_level) if type(value) is str else None
        if number is not None:
            out[name] = number
            continue
        if names and not _name_ok(name, pod_level):
            rule = POD_RESOURCE_NAME if pod_level else RESOURCE_NAME
            problems.add(f"{path}.{name}", rule, f"{name!r} is not a valid resource name")
            continue
        number = quantity_value(problems, f"{path}.{name}", value)
        if number is None:
            continue
        if _extended(name) and number != number.to_integral_value():
            problems.add(f"{path}.{name}", INTEGER, f"{value!r} is not a whole number")
            continue
        out[name] = number
    return out


def check_resources(problems: Problems, path: str, resources: Any, *,
                    pod_level: bool = False, remember: bool = True) -> None:
    """``requests`` and ``limits``: names, quantities, request <= limit, and what
    resources that cannot be overcommitted (extended, hugepages) need."""
    if not isinstance(resources, dict):
        return
    if remember and resources_known_good(resources, pod_level, problems.final):
        return
    requests = check_quantity_map(problems, f"{path}.requests", resources.get("requests"),
                                  pod_level=pod_level)
    limits = check_quantity_map(problems, f"{path}.limits", resources.get("limits"),
                                pod_level=pod_level)
    if not problems.final:
        return  # a higher layer may still set the other half of a pair
    hugepages = False
    cpu_or_memory = False
    for name in (*requests, *limits):
        hugepages = hugepages or name.startswith(HUGEPAGES_PREFIX)
        cpu_or_memory = cpu_or_memory or name in POD_RESOURCES
    for name, request in requests.items():
        fixed = _extended(name) or name.startswith(HUGEPAGES_PREFIX)
        limit = limits.get(name)
        where = f"{path}.requests.{name}"
        raw = resources["requests"][name]
        if limit is None:
            if fixed:  # reported where the server reports it: the missing limit
                problems.add(f"{path}.limits", LIMIT_REQUIRED, f"{name} is requested ({raw!r}) "
                             "without a limit")
        elif request > limit:
            problems.add(where, REQUEST_LE_LIMIT, f"request {raw!r} is above the limit "
                         f"{resources['limits'][name]!r}")
        elif fixed and request != limit:
            problems.add(where, REQUEST_EQ_LIMIT, f"request {raw!r} differs from the limit "
                         f"{resources['limits'][name]!r}")
    if hugepages and not cpu_or_memory:
        problems.add(path, HUGEPAGES_NEED_CPU_MEMORY, "hugepages without cpu or memory")


def resources_known_good(resources: dict[str, Any], pod_level: bool, final: bool) -> bool:
    """Whether these requests and limits were checked before and broke no rule: the same
    few resource maps recur on every pod of a render (the check is pure)."""
    requests, limits = resources.get("requests"), resources.get("limits")
    if (requests is not None and type(requests) is not dict) or (
            limits is not None and type(limits) is not dict):
        return False
    key = (tuple(requests.items()) if requests else (),
           tuple(limits.items()) if limits else (), pod_level, final)
    try:
        return _good(key)
    except TypeError:  # an unhashable value: no shortcut
        return False


@functools.lru_cache(maxsize=4096)
def _good(key: tuple[Any, ...]) -> bool:
    requests, limits, pod_level, final = key
    trial = Problems(final=final)
    check_resources(trial, "", {"requests": dict(requests), "limits": dict(limits)},
                    pod_level=pod_level, remember=False)
    return not trial

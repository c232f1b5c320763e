"""Probes and lifecycle hooks: one handler each, its port, its numbers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._facts import (
    HTTP_HEADER_NAME,
    INT32_MAX,
    LIFECYCLE_HANDLERS,
    PORT_MAX,
    PROBE_HANDLERS,
    STOP_SIGNALS_PREFIX,
    URI_SCHEMES,
    Rule,
    enum_rule,
    int_in,
    port_name_ok,
)
from ._report import Problems

__all__ = ["check_probe", "check_lifecycle", "check_port_or_name", "PORT_NUMBER"]

ONE_HANDLER = Rule("a probe or lifecycle hook has exactly one handler "
                   "(exec, httpGet, tcpSocket, grpc; sleep for hooks) (k8s validateHandler)",
                   "keep one handler")
PORT_NUMBER = Rule(f"a port number is between 1 and {PORT_MAX} (k8s ValidatePortNum)",
                   f"use a port from 1 to {PORT_MAX}")
PORT_OR_NAME = Rule(f"a handler port is a number from 1 to {PORT_MAX} or the name of a "
                    "container port (IANA_SVC_NAME) (k8s ValidatePortNumOrName)",
                    "give a port number or a port name of at most 15 lowercase letters, "
                    "digits and '-'")
NON_NEGATIVE_INT32 = Rule(f"a probe's seconds and thresholds are between 0 and {INT32_MAX} "
                          "(k8s validateProbe)", "give a number of zero or more")
POSITIVE_GRACE = Rule("a probe's terminationGracePeriodSeconds is > 0 (k8s validateProbe)",
                      "give a positive number of seconds or leave it unset")
SUCCESS_ONE = Rule("liveness and startup probes have successThreshold 1 "
                   "(k8s validateLivenessProbe, validateStartupProbe)",
                   "set successThreshold: 1 or leave it unset")
READINESS_GRACE = Rule("a readiness probe has no terminationGracePeriodSeconds "
                       "(k8s validateReadinessProbe)", "remove it")
SCHEME = enum_rule("httpGet.scheme", URI_SCHEMES, "validateHTTPGetAction")
HEADER_NAME = Rule("an HTTP header name is an RFC 7230 token (k8s validateHTTPGetAction)",
                   "use letters, digits and !#$%&'*+-.^_`|~")
EXEC_COMMAND = Rule("an exec handler has a command (k8s validateExecAction)", "give a command")
SLEEP_SECONDS = Rule("a sleep hook's seconds are >= 0 and <= the pod's "
                     "terminationGracePeriodSeconds (k8s validateSleepAction)",
                     "sleep less than the pod's grace period")
STOP_SIGNAL = Rule("a stop signal is a signal name such as SIGTERM (k8s validateStopSignal)",
                   "use a signal name such as SIGTERM or SIGKILL")
_PROBE_NUMBERS = ("initialDelaySeconds", "timeoutSeconds", "periodSeconds",
                  "successThreshold", "failureThreshold")


def check_port_or_name(problems: Problems, path: str, port: Any) -> None:
    if type(port) is int:
        if not 1 <= port <= PORT_MAX:
            problems.add(path, PORT_OR_NAME, f"{port} is out of range")
    elif not port_name_ok(port):
        problems.add(path, PORT_OR_NAME, f"{port!r} is not a port number or name")


def _handler(problems: Problems, path: str, handler: Mapping[str, Any],
             kinds: tuple[str, ...], grace: int) -> None:
    present = [kind for kind in kinds if handler.get(kind) is not None]
    if len(present) > 1 or (not present and problems.final):
        problems.add(path, ONE_HANDLER, f"{len(present)} handlers"
                     + (f" ({', '.join(present)})" if present else ""))
    for kind in present:
        if not problems.local and kind != "sleep":
            continue  # the sleep relates to the pod's grace period; the rest is local
        action = handler[kind]
        if not isinstance(action, dict):
            continue
        where = f"{path}.{kind}"
        if kind == "exec":
            if problems.final and not action.get("command"):
                problems.add(f"{where}.command", EXEC_COMMAND, "no command")
        elif kind in ("httpGet", "tcpSocket"):
            check_port_or_name(problems, f"{where}.port", action.get("port"))
            if kind == "httpGet":
                _http(problems, where, action)
        elif kind == "grpc":
            port = action.get("port")
            if not int_in(port, 1, PORT_MAX):
                problems.add(f"{where}.port", PORT_NUMBER, f"{port!r} is out of range")
        else:  # sleep
            seconds = action.get("seconds")
            if not int_in(seconds, 0, grace):
                problems.add(f"{where}.seconds", SLEEP_SECONDS,
                             f"{seconds!r} is not between 0 and {grace}")


def _http(problems: Problems, where: str, action: Mapping[str, Any]) -> None:
    scheme = action.get("scheme")
    if scheme is not None and scheme not in URI_SCHEMES:
        problems.add(f"{where}.scheme", SCHEME, f"{scheme!r} is not supported")
    for index, header in enumerate(action.get("httpHeaders") or ()):
        name = header.get("name") if isinstance(header, dict) else None
        if type(name) is not str or HTTP_HEADER_NAME.fullmatch(name) is None:
            problems.add(f"{where}.httpHeaders[{index}].name", HEADER_NAME,
                         f"{name!r} is not a header name")


def check_probe(problems: Problems, path: str, probe: Any, kind: str, grace: int) -> None:
    """``kind`` is liveness, readiness or startup."""
    if not isinstance(probe, dict):
        return
    _handler(problems, path, probe, PROBE_HANDLERS, grace)
    if not problems.local:
        return
    for name in _PROBE_NUMBERS:
        value = probe.get(name)
        if value is not None and not int_in(value, 0, INT32_MAX):
            problems.add(f"{path}.{name}", NON_NEGATIVE_INT32, f"{value!r} is out of range")
    success = probe.get("successThreshold")
    # 0 is defaulted to 1 before validation (k8s SetDefaults_Probe)
    if kind != "readiness" and success is not None and success not in (0, 1):
        problems.add(f"{path}.successThreshold", SUCCESS_ONE, f"{success!r} is not 1")
    probe_grace = probe.get("terminationGracePeriodSeconds")
    if probe_grace is not None:
        if kind == "readiness":
            problems.add(f"{path}.terminationGracePeriodSeconds", READINESS_GRACE, "set")
        elif type(probe_grace) is not int or probe_grace <= 0:
            problems.add(f"{path}.terminationGracePeriodSeconds", POSITIVE_GRACE,
                         f"{probe_grace!r} is not positive")


def check_lifecycle(problems: Problems, path: str, lifecycle: Any, grace: int) -> None:
    if not isinstance(lifecycle, dict):
        return
    for hook in ("postStart", "preStop"):
        handler = lifecycle.get(hook)
        if isinstance(handler, dict):
            _handler(problems, f"{path}.{hook}", handler, LIFECYCLE_HANDLERS, grace)
    signal = lifecycle.get("stopSignal")
    if signal is not None and (type(signal) is not str
                               or not signal.startswith(STOP_SIGNALS_PREFIX)
                               or not signal[3:].replace("+", "").replace("-", "").isalnum()):
        problems.add(f"{path}.stopSignal", STOP_SIGNAL, f"{signal!r} is not a signal name")

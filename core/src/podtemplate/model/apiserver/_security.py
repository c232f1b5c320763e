"""Security contexts of pods and containers: value sets, id ranges, contradictions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._facts import (
    FS_GROUP_CHANGE_POLICIES,
    INT32_MAX,
    PROC_MOUNTS,
    PROFILE_TYPES,
    SELINUX_CHANGE_POLICIES,
    SUPPLEMENTAL_GROUPS_POLICIES,
    SYSCTL_NAME,
    Rule,
    enum_rule,
    int_in,
)
from ._report import Problems

__all__ = ["check_container_security", "check_pod_security"]

ID_RANGE = Rule(f"a user or group id is between 0 and {INT32_MAX} "
                "(k8s IsValidUserID, IsValidGroupID)", f"use an id from 0 to {INT32_MAX}")
PROC_MOUNT = enum_rule("procMount", PROC_MOUNTS, "ValidateSecurityContext")
PROFILE_TYPE = enum_rule("seccompProfile.type and appArmorProfile.type", PROFILE_TYPES,
                         "validateSeccompProfileField, validateAppArmorProfileField")
LOCALHOST_PROFILE = Rule("localhostProfile is set exactly when the profile type is Localhost "
                         "(k8s validateSeccompProfileField, validateAppArmorProfileField)",
                         "set localhostProfile with type Localhost only")
PRIVILEGE_ESCALATION = Rule(
    "allowPrivilegeEscalation cannot be false for a privileged container or one that adds "
    "CAP_SYS_ADMIN (k8s ValidateSecurityContext)",
    "drop allowPrivilegeEscalation: false, or privileged / SYS_ADMIN")
FS_GROUP_CHANGE = enum_rule("fsGroupChangePolicy", FS_GROUP_CHANGE_POLICIES,
                            "validateFSGroupChangePolicy")
SUPPLEMENTAL_POLICY = enum_rule("supplementalGroupsPolicy", SUPPLEMENTAL_GROUPS_POLICIES,
                                "validateSupplementalGroupsPolicy")
SELINUX_CHANGE = enum_rule("seLinuxChangePolicy", SELINUX_CHANGE_POLICIES,
                           "validateSELinuxChangePolicy")
SYSCTL = Rule("a sysctl name is dotted or slashed lowercase segments, at most 253 "
              "characters, each given once (k8s validateSysctls)",
              "use a sysctl name such as net.core.somaxconn, once")
_IDS = ("runAsUser", "runAsGroup")


def _ids(problems: Problems, path: str, context: Mapping[str, Any],
         names: tuple[str, ...]) -> None:
    for name in names:
        value = context.get(name)
        if value is not None and not int_in(value, 0, INT32_MAX):
            problems.add(f"{path}.{name}", ID_RANGE, f"{value!r} is out of range")


def _profile(problems: Problems, path: str, profile: Any) -> None:
    if not isinstance(profile, dict):
        return
    kind = profile.get("type")
    if kind not in PROFILE_TYPES:
        problems.add(f"{path}.type", PROFILE_TYPE, f"{kind!r} is not supported")
        return
    if (kind == "Localhost") != bool(profile.get("localhostProfile")):
        problems.add(f"{path}.localhostProfile", LOCALHOST_PROFILE,
                     f"type {kind} with{'out' if kind == 'Localhost' else ''} "
                     "localhostProfile")


def check_container_security(problems: Problems, path: str, context: Any) -> None:
    if not isinstance(context, dict):
        return
    if problems.local:
        _ids(problems, path, context, _IDS)
        proc = context.get("procMount")
        if proc is not None and proc not in PROC_MOUNTS:
            problems.add(f"{path}.procMount", PROC_MOUNT, f"{proc!r} is not supported")
    _profile(problems, f"{path}.seccompProfile", context.get("seccompProfile"))
    _profile(problems, f"{path}.appArmorProfile", context.get("appArmorProfile"))
    if context.get("allowPrivilegeEscalation") is False:
        added = (context.get("capabilities") or {}).get("add") or ()
        if context.get("privileged") is True or "CAP_SYS_ADMIN" in added:
            problems.add(f"{path}.allowPrivilegeEscalation", PRIVILEGE_ESCALATION,
                         "false with privileged or CAP_SYS_ADMIN")


def check_pod_security(problems: Problems, path: str, context: Any) -> None:
    if not isinstance(context, dict):
        return
    if not problems.local:  # the profiles relate a type and a path of two layers
        _profile(problems, f"{path}.seccompProfile", context.get("seccompProfile"))
        _profile(problems, f"{path}.appArmorProfile", context.get("appArmorProfile"))
        return
    _ids(problems, path, context, (*_IDS, "fsGroup"))
    for index, group in enumerate(context.get("supplementalGroups") or ()):
        if not int_in(group, 0, INT32_MAX):
            problems.add(f"{path}.supplementalGroups[{index}]", ID_RANGE,
                         f"{group!r} is out of range")
    for name, values, rule in (
            ("fsGroupChangePolicy", FS_GROUP_CHANGE_POLICIES, FS_GROUP_CHANGE),
            ("supplementalGroupsPolicy", SUPPLEMENTAL_GROUPS_POLICIES, SUPPLEMENTAL_POLICY),
            ("seLinuxChangePolicy", SELINUX_CHANGE_POLICIES, SELINUX_CHANGE)):
        value = context.get(name)
        if value is not None and value not in values:
            problems.add(f"{path}.{name}", rule, f"{value!r} is not supported")
    _profile(problems, f"{path}.seccompProfile", context.get("seccompProfile"))
    _profile(problems, f"{path}.appArmorProfile", context.get("appArmorProfile"))
    seen: set[str] = set()
    for index, sysctl in enumerate(context.get("sysctls") or ()):
        sysctl_name = sysctl.get("name") if isinstance(sysctl, dict) else None
        if type(sysctl_name) is not str or len(sysctl_name) > 253 or sysctl_name in seen \
                or SYSCTL_NAME.fullmatch(sysctl_name) is None:
            problems.add(f"{path}.sysctls[{index}].name", SYSCTL,
                         f"{sysctl_name!r} is not a valid sysctl name or is repeated")
        else:
            seen.add(sysctl_name)

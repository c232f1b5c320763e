"""A pod's metadata beyond labels and annotation syntax: what the API server checks of a
stored object's metadata (a Pod's ``generateName``, finalizers, ownerReferences) and the
well-known pod annotations it reads (k8s ValidatePodSpecificAnnotations), which it checks
in a PodTemplate's pod too."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from ._facts import INT32_MAX, Rule, descending_path_ok, dns_subdomain_ok, qualified_name_ok
from ._report import Problems

__all__ = ["check_object_fields", "check_pod_annotations", "special_annotation"]

GENERATE_NAME = Rule("generateName is a DNS-1123 subdomain (a trailing '-' allowed), and so is "
                     "the name generated from it, with 5 characters appended "
                     "(k8s ValidateObjectMeta, ValidatePodName)",
                     "use lowercase letters, digits, '-' and '.', e.g. train-")
FINALIZER = Rule("a finalizer is a qualified name with a domain prefix, or one of kubernetes, "
                 "orphan and foregroundDeletion, and not both orphan and foregroundDeletion "
                 "(k8s ValidateFinalizers)", "write it as example.com/finalizer")
OWNER = Rule("an owner reference has apiVersion, kind, name and uid, is not an Event, and at "
             "most one has controller: true (k8s ValidateOwnerReferences)",
             "complete the reference, or let the controller set it")
MIRROR = Rule("the mirror pod annotation needs spec.nodeName "
              "(k8s ValidatePodSpecificAnnotations)", "remove kubernetes.io/config.mirror")
DELETION_COST = Rule("controller.kubernetes.io/pod-deletion-cost is a 32-bit integer, no '+' "
                     "or leading zero (k8s ValidatePodSpecificAnnotations)",
                     "give a number such as 100 or -5")
TOLERATIONS = Rule("the scheduler.alpha.kubernetes.io/tolerations annotation is a JSON list of "
                   "valid tolerations (k8s ValidateTolerationsInPodAnnotations)",
                   "use spec.tolerations instead")
SECCOMP = Rule("a seccomp annotation is runtime/default, docker/default, unconfined or "
               "localhost/<relative path> (k8s ValidateSeccompPodAnnotations)",
               "use spec.securityContext.seccompProfile instead")
APPARMOR = Rule("an AppArmor annotation names a container of the pod and is runtime/default, "
                "unconfined or localhost/<profile> (k8s ValidateAppArmorPodAnnotations)",
                "use securityContext.appArmorProfile instead")

MIRROR_KEY = "kubernetes.io/config.mirror"
DELETION_COST_KEY = "controller.kubernetes.io/pod-deletion-cost"
TOLERATIONS_KEY = "scheduler.alpha.kubernetes.io/tolerations"
SECCOMP_POD_KEY = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_PREFIX = "container.seccomp.security.alpha.kubernetes.io/"
APPARMOR_PREFIX = "container.apparmor.security.beta.kubernetes.io/"
_STANDARD_FINALIZERS = frozenset({"kubernetes", "orphan", "foregroundDeletion"})
_INTEGER = re.compile(r"-?[0-9]+")


def special_annotation(key: str) -> bool:
    """Whether the API server reads this annotation key (so its value is checked)."""
    return key in (MIRROR_KEY, DELETION_COST_KEY, TOLERATIONS_KEY, SECCOMP_POD_KEY) \
        or key.startswith((SECCOMP_PREFIX, APPARMOR_PREFIX))


def check_object_fields(problems: Problems, path: str, metadata: Mapping[str, Any]) -> None:
    """A stored object's generateName, finalizers and ownerReferences (a Pod's; the pod of
    a PodTemplate has no metadata of its own but labels and annotations)."""
    generate = metadata.get("generateName")
    if generate:
        # the prefix, its trailing '-' masked (k8s NameIsDNSSubdomain with prefix) ...
        masked = generate[:-2] + "a" if type(generate) is str and len(generate) > 1 \
            and generate.endswith("-") else generate
        if not dns_subdomain_ok(masked):
            problems.add(f"{path}.generateName", GENERATE_NAME, f"{generate!r}")
        # ... and the name the server generates from it (k8s ValidatePodName)
        if not metadata.get("name") and not _generate_name_ok(generate):
            problems.add(f"{path}.name", GENERATE_NAME, f"generated from {generate!r}")
    finalizers = metadata.get("finalizers")
    if isinstance(finalizers, list):
        for index, name in enumerate(finalizers):
            if not qualified_name_ok(name) or ("/" not in name
                                               and name not in _STANDARD_FINALIZERS):
                problems.add(f"{path}.finalizers[{index}]", FINALIZER, f"{name!r}")
        if "orphan" in finalizers and "foregroundDeletion" in finalizers:
            problems.add(f"{path}.finalizers", FINALIZER, "orphan and foregroundDeletion")
    owners = metadata.get("ownerReferences")
    if isinstance(owners, list):
        controllers = 0
        for owner in owners:
            if not isinstance(owner, dict):
                continue
            version = str(owner.get("apiVersion") or "").rpartition("/")[2]
            if not version or not owner.get("kind") or not owner.get("name") \
                    or not owner.get("uid") or (owner.get("apiVersion") == "v1"
                                                and owner.get("kind") == "Event"):
                problems.add(f"{path}.ownerReferences", OWNER, f"{owner!r}")
            controllers += owner.get("controller") is True
        if controllers > 1:
            problems.add(f"{path}.ownerReferences", OWNER, f"{controllers} controllers")


def check_pod_annotations(problems: Problems, path: str, annotations: Mapping[str, Any],
                          spec: Mapping[str, Any]) -> None:
    """The annotations the API server reads of a pod, with the spec they relate to."""
    for key, value in annotations.items():
        if type(key) is not str or not special_annotation(key) or type(value) is not str:
            continue
        where = f"{path}.{key}"
        if key == MIRROR_KEY and not spec.get("nodeName"):
            problems.add(where, MIRROR, "without spec.nodeName")
        elif key == DELETION_COST_KEY and not _int32_text(value):
            problems.add(where, DELETION_COST, f"{value!r}")
        elif key == TOLERATIONS_KEY and value and not _tolerations_ok(value):
            problems.add(where, TOLERATIONS, "not a list of valid tolerations")
        elif (key == SECCOMP_POD_KEY or key.startswith(SECCOMP_PREFIX)) \
                and not _seccomp_ok(value):
            problems.add(where, SECCOMP, f"{value!r}")
        elif key.startswith(APPARMOR_PREFIX) and (
                not _has_container(spec, key[len(APPARMOR_PREFIX):])
                or (value not in ("", "runtime/default", "unconfined")
                and not value.startswith("localhost/"))):
            problems.add(where, APPARMOR, f"{value!r}")


def _generate_name_ok(generate: Any) -> bool:
    """The name generated from the prefix (cut to 58 characters, 5 appended) is a
    DNS-1123 subdomain."""
    return type(generate) is str and dns_subdomain_ok(generate[:58] + "abcde")


def _int32_text(value: str) -> bool:
    if not value or not (value[0] == "-" or value == "0" or "1" <= value[0] <= "9"):
        return False
    return _INTEGER.fullmatch(value) is not None and -INT32_MAX - 1 <= int(value) <= INT32_MAX


def _seccomp_ok(value: str) -> bool:
    if value in ("runtime/default", "docker/default", "unconfined"):
        return True
    return value.startswith("localhost/") and descending_path_ok(value[len("localhost/"):])


def _has_container(spec: Mapping[str, Any], name: str) -> bool:
    return any(isinstance(c, dict) and c.get("name") == name
               for kind in ("containers", "initContainers", "ephemeralContainers")
               for c in spec.get(kind) or ())


def _tolerations_ok(value: str) -> bool:
    from ._scheduling import check_tolerations

    try:
        tolerations = json.loads(value)
    except ValueError:
        return False
    if not isinstance(tolerations, list) or not all(isinstance(t, dict) for t in tolerations):
        return False
    trial = Problems(final=True)
    check_tolerations(trial, "", tolerations)
    return not trial

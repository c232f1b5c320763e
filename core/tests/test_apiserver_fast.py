"""The fast path of the API rules (``model/apiserver/_fast.py``) against the plain rules on
generated pods: a rich valid pod (the fields a render's final pods usually set) with a
few fields set to values drawn from a pool of valid, invalid and odd ones. The fast path
may vouch only for a pod the plain rules find nothing in, and what render runs
(``check_final_pod``) gives exactly what the plain rules give - cold, and with the
render's table warmed up on valid pods first."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from podtemplate.model.apiserver import check_final_pod, check_rules
from podtemplate.model.apiserver._fast import Known, surely_valid
from podtemplate.testing.apiserver_corpus import Pod
from podtemplate.testing.sizing import examples


def rich() -> Pod:
    """A valid pod like a render's: a primary and a sidecar, an init container, volumes
    of the plain sources, tolerations, affinity, labels and annotations."""
    primary = {
        "name": "primary", "image": "ghcr.io/acme/train:1.0",
        "command": ["python"], "args": ["-m", "train"],
        "env": [{"name": "TEAM", "value": "ml"}, {"name": "VAR_0", "value": "1"}],
        "volumeMounts": [{"name": "data", "mountPath": "/data"},
                         {"name": "config", "mountPath": "/etc/app", "readOnly": True}],
        "resources": {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"memory": "2Gi"}},
        "securityContext": {"readOnlyRootFilesystem": True,
                            "capabilities": {"drop": ["ALL"]}},
        "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
        "imagePullPolicy": "IfNotPresent",
    }
    sidecar = {"name": "log-shipper", "image": "fluent/fluent-bit:3.0",
               "resources": {"requests": {"cpu": "50m"}, "limits": {"memory": "128Mi"}},
               "volumeMounts": [{"name": "data", "mountPath": "/data", "readOnly": True}]}
    return {
        "metadata": {"labels": {"team": "ml", "podtemplate.io/task": "train"},
                     "annotations": {"acme.io/owner": "ml@acme.io"}},
        "spec": {
            "initContainers": [{"name": "setup", "image": "busybox:1"}],
            "containers": [primary, sidecar],
            "volumes": [{"name": "data", "emptyDir": {"sizeLimit": "20Gi"}},
                        {"name": "config", "configMap": {"name": "cfg"}},
                        {"name": "creds", "secret": {"secretName": "creds"}},
                        {"name": "scratch", "persistentVolumeClaim": {"claimName": "c"}}],
            "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"},
                            {"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                             "effect": "NoExecute", "tolerationSeconds": 60}],
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [
                    {"key": "zone", "operator": "In", "values": ["a"]}]}]}}},
            "nodeSelector": {"pool": "gpu"},
            "priorityClassName": "high",
            "serviceAccountName": "runner",
            "restartPolicy": "Never",
        },
    }


VALUES: list[Any] = [
    None, "", " x", "x ", "x", "data", "config", "ghost", "/data", "/other", "a/../b", "..",
    "Always", "Never", "IfNotPresent", "None", "Bidirectional", "HostToContainer",
    "Enabled", "Exists", "Equal", "NoSchedule", "NoExecute", "TCP", "tcp", "UDP",
    "http", "HTTP", "a=b", "A\tB", "Invalid_Name", "valid-name", "nvidia.com/gpu",
    "1", "1Gi", "-1Gi", "1.5", "4", "abc", "Memory", "HugePages-2Mi", "x" * 70,
    0, 1, -1, 80, 8080, 65536, True, False, 1.0, [], {}, ["x"], {"a": "b"},
    {"fieldRef": {"fieldPath": "metadata.name"}}, {"fieldRef": {"fieldPath": "spec.x"}},
    {"exec": {"command": ["true"]}}, {"exec": {}},
]

Setter = Callable[[Pod, Any], None]


def _at(*path: Any) -> Setter:
    """Set the value at ``path`` (dict keys and list indexes), creating dicts on the way;
    ``None`` as the last step appends to the list there."""
    def setter(pod: Pod, value: Any) -> None:
        node: Any = pod
        for step in path[:-1]:
            node = node[step] if not isinstance(node, dict) else node.setdefault(step, {})
        if path[-1] is None:
            node.append(copy.deepcopy(value))
        else:
            node[path[-1]] = copy.deepcopy(value)
    return setter


def _item(*path: Any, **base: Any) -> Setter:
    """Append ``base`` with its last key set to the value to the list at ``path``."""
    last = list(base)[-1]

    def setter(pod: Pod, value: Any) -> None:
        node: Any = pod
        for step in path:
            node = node[step] if not isinstance(node, dict) else node.setdefault(
                step, [] if step == path[-1] else {})
        node.append({**copy.deepcopy(base), last: copy.deepcopy(value)})
    return setter


S, M = "spec", "metadata"
P = (S, "containers", 0)
SIDE = (S, "containers", 1)
INIT = (S, "initContainers", 0)
SETTERS: list[Setter] = [
    _at(M, "labels", "team"), _at(M, "labels", "Bad Key"), _at(M, "annotations", "a.b/c"),
    _at(M, "annotations", "x" * 70), _at(M, "labels"), _at(M, "annotations"), _at(M),
    _at(*P, "name"), _at(*SIDE, "name"), _at(*INIT, "name"), _at(*P, "image"),
    _at(*P, "imagePullPolicy"), _at(*P, "restartPolicy"), _at(*INIT, "restartPolicy"),
    _at(*P, "terminationMessagePolicy"), _at(*P, "env", 0, "name"),
    _at(*P, "env", 1, "value"), _at(*P, "env", 0, "valueFrom"), _at(*P, "env", None),
    _item(*P, "env", name="X", valueFrom={}), _at(*SIDE, "env"),
    _at(*P, "volumeMounts", 0, "name"), _at(*P, "volumeMounts", 1, "mountPath"),
    _at(*P, "volumeMounts", 0, "subPath"), _at(*P, "volumeMounts", 0, "mountPropagation"),
    _at(*P, "volumeMounts", 1, "recursiveReadOnly"), _at(*P, "volumeMounts", None),
    _item(*SIDE, "volumeMounts", name="config", mountPath="/data"),
    _at(*P, "ports", 0, "containerPort"), _at(*P, "ports", 0, "hostPort"),
    _at(*P, "ports", 0, "protocol"), _at(*P, "ports", 0, "name"), _at(*P, "ports", 0, "hostIP"),
    _item(*SIDE, "ports", containerPort=8080, hostPort=8080, name="http"),
    _item(*P, "ports", containerPort=9090, name="http"), _at(S, "hostNetwork"),
    _at(*P, "resources", "requests", "cpu"), _at(*P, "resources", "limits", "memory"),
    _at(*P, "resources", "requests", "nvidia.com/gpu"), _at(*P, "resources", "claims"),
    _item(*P, "resources", "claims", name="x"), _at(*P, "resources"),
    _at(*P, "securityContext", "runAsUser"), _at(*P, "securityContext", "privileged"),
    _at(*P, "securityContext", "allowPrivilegeEscalation"), _at(*P, "securityContext"),
    _at(*P, "livenessProbe"), _at(*INIT, "readinessProbe"), _at(*P, "lifecycle"),
    _at(*P, "volumeDevices"), _item(*P, "volumeDevices", name="scratch", devicePath="/dev/x"),
    _at(*P, "envFrom"), _at(*P, "resizePolicy"), _at(S, "terminationGracePeriodSeconds"),
    _at(S, "volumes", 0, "name"), _at(S, "volumes", 0, "emptyDir", "sizeLimit"),
    _at(S, "volumes", 0, "emptyDir", "medium"), _at(S, "volumes", 0, "emptyDir"),
    _at(S, "volumes", 1, "configMap", "name"), _at(S, "volumes", 1, "configMap", "items"),
    _at(S, "volumes", 1, "configMap", "defaultMode"), _at(S, "volumes", 2, "secret"),
    _at(S, "volumes", 3, "persistentVolumeClaim", "claimName"), _at(S, "volumes", 1, "secret"),
    _item(S, "volumes", name="data", emptyDir={}), _item(S, "volumes", name="x", hostPath={}),
    _at(S, "tolerations", 0, "operator"), _at(S, "tolerations", 0, "value"),
    _at(S, "tolerations", 1, "effect"), _at(S, "tolerations", 0, "tolerationSeconds"),
    _at(S, "tolerations", 1, "key"), _at(S, "tolerations", None),
    _at(S, "affinity", "nodeAffinity"), _at(S, "nodeSelector", "pool"),
    _at(S, "nodeSelector", "bad key"), _at(S, "priorityClassName"),
    _at(S, "serviceAccountName"), _at(S, "hostname"), _at(S, "restartPolicy"),
    _at(S, "dnsPolicy"), _at(S, "securityContext", "runAsUser"), _at(S, "hostUsers"),
    _at(S, "resourceClaims"), _at(S, "ephemeralContainers"), _at(S, "containers"),
]


def _changed(changes: list[tuple[int, int]]) -> Pod | None:
    pod = rich()
    for setter, value in changes:
        try:
            SETTERS[setter](pod, VALUES[value])
        except (KeyError, IndexError, TypeError, AttributeError):
            return None  # the path no longer exists after an earlier change
    return pod


def _warm() -> Known:
    known: Known = {}
    assert surely_valid(rich(), known) and surely_valid(rich(), known)
    return known


CHANGES = st.lists(st.tuples(st.integers(0, len(SETTERS) - 1),
                             st.integers(0, len(VALUES) - 1)), min_size=1, max_size=3)


def test_the_rich_pod_is_valid_and_vouched_for() -> None:
    assert check_rules(rich()) == []
    known = _warm()
    assert known  # remembered parts
    assert surely_valid(rich(), known)


@settings(max_examples=examples(600), deadline=None)
@given(changes=CHANGES, warm=st.booleans())
def test_the_fast_path_judges_generated_pods_as_the_plain_rules_do(
        changes: list[tuple[int, int]], warm: bool) -> None:
    pod = _changed(changes)
    if pod is None:
        return
    known = _warm() if warm else {}
    try:
        plain = check_rules(copy.deepcopy(pod))
    except (TypeError, AttributeError, ValueError) as error:
        # data of a type the client models refuse (render never gets there): the fast
        # path does not vouch for it either, so render fails as the plain rules do
        with pytest.raises(type(error)):
            check_final_pod(pod, known)
        return
    if surely_valid(copy.deepcopy(pod), known):
        assert plain == [], changes
    assert check_final_pod(pod, known) == plain
    # and once more with what this pod left in the table
    assert check_final_pod(copy.deepcopy(pod), known) == plain


def test_every_setter_and_value_is_used() -> None:
    """Each setter applies to the rich pod, and the pool refuses some and keeps some."""
    verdicts = []
    for setter in range(len(SETTERS)):
        for value in (VALUES.index("x"), VALUES.index(-1)):
            pod = _changed([(setter, value)])
            assert pod is not None, setter
            try:
                verdicts.append(check_rules(pod) == [])
            except (TypeError, AttributeError):
                continue
    assert 0 < sum(verdicts) < len(verdicts) / 2

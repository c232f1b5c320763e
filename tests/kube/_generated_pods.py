"""Generated pods for judging the pod rules against the API server: a valid base pod
with a few changes drawn from the corpora (invalid and tricky valid ones, defaulted gaps
included) and from value strategies for the fields people most often get wrong. About
half of them are valid. Each pod carries tags naming what made it."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st
from podtemplate.testing.apiserver_corpus import INVALID, VALID, Pod, base

__all__ = ["generated_pods"]

_INVALID = [(name, change) for name, change, _, _ in INVALID]
_QUANTITIES = ["1", "0", "-1", "1.5", "100m", "1Gi", "1.5Gi", "abc", "0.5", "2", "500Mi"]
_NAMES = st.one_of(st.sampled_from(["web", "a-b", "a.b", "x1", "side-car"]),
                   st.text("abAZ09_.-", max_size=8))
_KEYS = st.one_of(st.sampled_from(["app", "example.com/team", "a.b/c_d", "Example.com/x"]),
                  st.text("ab/AZ09_.-", max_size=10))


def _field_changes() -> st.SearchStrategy[tuple[str, Any]]:
    """``(tag, change)`` drawing one value of one field, valid or not."""
    def primary(**fields: Any) -> Any:
        return lambda pod: pod["spec"]["containers"][0].update(fields)

    def spec(**fields: Any) -> Any:
        return lambda pod: pod["spec"].update(fields)

    def labels(key: str, value: str) -> Any:
        return lambda pod: pod["metadata"].setdefault("labels", {}).update({key: value})

    def annotations(key: str, value: str) -> Any:
        return lambda pod: pod["metadata"].setdefault("annotations", {}).update({key: value})

    return st.one_of(
        _NAMES.map(lambda n: ("gen-sidecar-name", lambda pod: pod["spec"]["containers"].append(
            {"name": n, "image": "busybox:1"}))),
        st.sampled_from(["", " busybox", "busybox:1"]).map(
            lambda i: ("gen-sidecar-image", lambda pod: pod["spec"]["containers"].append(
                {"name": "side", "image": i}))),
        st.integers(-1, 70000).map(lambda p: ("gen-port", primary(ports=[
            {"containerPort": p}]))),
        st.text("AZaz09_=-. ", max_size=6).map(lambda n: ("gen-env-name", primary(env=[
            {"name": n, "value": "1"}]))),
        st.tuples(_KEYS, _NAMES).map(lambda kv: ("gen-label", labels(*kv))),
        st.tuples(_KEYS, st.text("ab ", max_size=3)).map(
            lambda kv: ("gen-annotation", annotations(*kv))),
        st.tuples(st.sampled_from(["livenessProbe", "readinessProbe", "startupProbe"]),
                  st.integers(-1, 3), st.integers(-1, 3)).map(
            lambda t: ("gen-probe", primary(**{t[0]: {"exec": {"command": ["true"]},
                                                     "successThreshold": t[1],
                                                     "failureThreshold": t[2]}}))),
        st.integers(-2, 2**31).map(lambda u: ("gen-run-as-user", primary(
            securityContext={"runAsUser": u}))),
        st.tuples(st.sampled_from(_QUANTITIES), st.sampled_from(_QUANTITIES)).map(
            lambda rl: ("gen-resources", primary(resources={"requests": {"cpu": rl[0]},
                                                            "limits": {"cpu": rl[1]}}))),
        st.sampled_from(["Always", "OnFailure", "Never", "Sometimes", ""]).map(
            lambda p: ("gen-restart-policy", spec(restartPolicy=p))),
        st.sampled_from(["ClusterFirst", "Default", "None", "ClusterFirstWithHostNet", "x"]).map(
            lambda p: ("gen-dns-policy", spec(dnsPolicy=p))),
        st.lists(st.sampled_from(["a.com", "_srv.a.com", "a.com.", ".", "A.com", "a..b"]),
                 max_size=3).map(lambda s: ("gen-dns-searches", spec(
                     dnsConfig={"nameservers": ["1.1.1.1"], "searches": s}))),
        st.tuples(st.sampled_from(["Exists", "Equal", "", "In"]),
                  st.sampled_from(["", "v"]), _KEYS).map(
            lambda t: ("gen-toleration", spec(tolerations=[
                {"key": t[2], "operator": t[0], "value": t[1]}]))),
        st.tuples(_NAMES, st.sampled_from([None, {}, {"emptyDir": {}},
                                           {"emptyDir": {}, "secret": {"secretName": "s"}}])).map(
            lambda t: ("gen-volume", spec(volumes=[{"name": t[0], **(t[1] or {})}]))),
        st.tuples(st.booleans(), st.integers(0, 90)).map(
            lambda t: ("gen-host-network", lambda pod: (spec(hostNetwork=t[0])(pod), primary(
                ports=[{"containerPort": 80, "hostPort": t[1]}])(pod)))),
        _NAMES.map(lambda n: ("gen-scheduler-name", spec(schedulerName=n))),
        _NAMES.map(lambda n: ("gen-spread-key", spec(topologySpreadConstraints=[
            {"maxSkew": 1, "topologyKey": n, "whenUnsatisfiable": "DoNotSchedule"}]))),
        st.sampled_from(["train-", "a", "A-", "a.", "a-b.c-", "x" * 70, "-a"]).map(
            lambda g: ("gen-generate-name", lambda pod: pod["metadata"].update(
                generateName=g))),
        st.lists(st.sampled_from(["kubernetes", "orphan", "foregroundDeletion",
                                  "example.com/x", "cleanup", "Example.com/y", "a/b/c"]),
                 max_size=2).map(lambda f: ("gen-finalizers", lambda pod: pod[
                     "metadata"].update(finalizers=f))),
        st.tuples(st.sampled_from(["v1", "apps/v1", "", "apps/"]),
                  st.sampled_from(["ReplicaSet", "Event", ""]), st.booleans()).map(
            lambda t: ("gen-owner", lambda pod: pod["metadata"].update(ownerReferences=[
                {"apiVersion": t[0], "kind": t[1], "name": "o", "uid": "u",
                 "controller": t[2]}]))),
        st.tuples(st.sampled_from([
            "controller.kubernetes.io/pod-deletion-cost",
            "seccomp.security.alpha.kubernetes.io/pod",
            "container.seccomp.security.alpha.kubernetes.io/primary",
            "container.apparmor.security.beta.kubernetes.io/primary",
            "scheduler.alpha.kubernetes.io/tolerations"]),
            st.sampled_from(["0", "-3", "007", "+1", "2147483648", "runtime/default",
                             "unconfined", "localhost/p.json", "localhost//abs",
                             "localhost/../x", "docker/default", "",
                             '[{"key": "a", "operator": "Exists"}]',
                             '[{"operator": "Equal"}]'])).map(
            lambda kv: ("gen-pod-annotation", annotations(*kv))),
        st.sampled_from([{"name": "windows"}, {"name": "linux"}, {"name": ""}, {}]).map(
            lambda o: ("gen-os", lambda pod: (spec(os=o)(pod), primary(securityContext={
                "runAsNonRoot": True, "windowsOptions": {"runAsUserName": "u"}})(pod)))),
        st.tuples(st.sampled_from(["net.core.somaxconn", "kernel.shm_rmid_forced",
                                   "kernel.msgmax", "fs.mqueue.msg_max", "vm.swappiness",
                                   "net/ipv4/ip_forward", "kernel.domainname"]),
                  st.booleans(), st.booleans()).map(
            lambda t: ("gen-sysctl", spec(hostNetwork=t[1], hostIPC=t[2], securityContext={
                "sysctls": [{"name": t[0], "value": "1"}]}))),
    )


@st.composite
def generated_pods(draw: st.DrawFn) -> tuple[tuple[str, ...], Pod]:
    """A base pod with up to two changes: ``(tags, pod)``."""
    pod = base()
    tags: list[str] = []
    for _ in range(draw(st.integers(0, 2))):
        pick = draw(st.integers(0, 4))  # a tricky valid pod twice as often as an invalid one
        if pick < 2:
            name, change = draw(st.sampled_from(list(VALID)))
        elif pick < 3:
            name, change = draw(st.sampled_from(_INVALID))
        else:
            name, change = draw(_field_changes())
        try:
            change(pod)
        except (KeyError, IndexError, TypeError, AttributeError):
            continue
        tags.append(name)
    return tuple(tags), copy.deepcopy(pod)

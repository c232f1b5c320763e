"""The per-render caches of resolution (``resolve._fast``) and the layer proofs that
replace whole-pod validation (``_podcheck``) give exactly what the plain path gives:
every layer folded, every pod validated with the client models."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from podtemplate import (
    InvalidPodSpecError,
    Platform,
    PodTemplate,
    Resources,
    Role,
    RoleSpec,
    make_context,
    resolve_pod,
    task,
)
from podtemplate.merge.engine import clean
from podtemplate.model._podcheck import proves_pod_template_spec
from podtemplate.model.apiserver import check_keys_only
from podtemplate.testing import assert_valid_pod_template

CLUSTER = """
apiVersion: v1
kind: PodTemplate
metadata: {name: base}
template:
  metadata: {labels: {team: ml}}
  spec:
    tolerations: [{key: platform, operator: Exists, effect: NoSchedule}]
    volumes: [{name: cache, emptyDir: {}}]
    initContainers: [{name: default-init, env: [{name: INIT, value: "1"}]},
                     {name: warm, image: busybox}]
    containers:
    - {name: default, env: [{name: EVERY, value: "1"}]}
    - {name: primary, volumeMounts: [{name: cache, mountPath: /cache}]}
    - {name: logger, image: fluent-bit:3}
"""

SIDECAR = PodTemplate({
    "volumes": [{"name": "data", "emptyDir": {}}, {"name": "cache", "$patch": "delete"}],
    # The cluster template's mount of the deleted volume goes with it (the API server
    # refuses a mount that names no volume).
    "containers": [{"name": "main", "env": [{"name": "A", "value": "a"}],
                    "volumeMounts": [{"mountPath": "/cache", "$patch": "delete"}]},
                   {"name": "proxy", "image": "envoy:1", "ports": [{"containerPort": 15001}]}],
    "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": "zone", "operator": "In", "values": ["a"]}]}]}}},
}, primary_container_name="main", labels={"app": "x"})

# No default entries: its fold depends on the role's primary name only.
NAMED = """
apiVersion: v1
kind: PodTemplate
metadata: {name: plain}
template:
  spec:
    containers: [{name: primary, workingDir: /w}, {name: helper, image: busybox}]
"""

ROLE = Role(pod_template=PodTemplate({"nodeSelector": {"pool": "gpu"},
                                      "containers": [{"name": "primary", "tty": True}]}),
            requests=Resources(cpu="2", gpu=1), env={"ROLE": "worker"})


@pytest.fixture
def platform(templates_dir) -> Platform:  # type: ignore[no-untyped-def]
    folder = templates_dir({"base.yaml": CLUSTER, "plain.yaml": NAMED})
    return Platform(templates=folder, defaultTemplate="base", defaultImage="python:3.11",
                    defaultResources={"requests": {"cpu": "1", "memory": "1Gi"}},
                    interruptible={"tolerations": [{"key": "spot", "operator": "Exists"}]})


def _tasks() -> list[Any]:
    def job() -> None: ...

    return [
        task(name="plain")(job),
        task(name="sidecar", pod_template=SIDECAR, interruptible=True,
             env={"X": 1}, requests=Resources(memory="2Gi"))(job),
        task(name="sidecar-again", pod_template=SIDECAR, env={"Y": True})(job),
        task(name="named", pod_template_name="plain")(job),
    ]


ROLES = [
    RoleSpec(name="pod", template_path=""),
    RoleSpec(name="worker", template_path="spec.worker", container_name="trainer", role=ROLE,
             operator_layer={"spec": {"containers": [
                 {"name": "trainer", "ports": [{"containerPort": 23456, "name": "rdzv"}]}]}}),
    RoleSpec(name="submitter", template_path="spec.submitter", inherit="scheduling",
             container_name="submit", interruptible=True),
]


def _resolve_all(platform: Platform, *, plain: bool) -> list[dict[str, Any]]:
    """Every task in every role; ``plain`` takes the uncached, fully validated path
    (recording provenance does that)."""
    context = make_context(platform=platform)
    pods = []
    for _ in range(2):  # the second round is served from the caches
        for job in _tasks():
            for role in ROLES:
                provenance: dict[str, str] | None = {} if plain else None
                pods.append(resolve_pod(job, role, context, provenance=provenance))
    return pods


def test_cached_path_gives_what_the_plain_path_gives(platform) -> None:  # type: ignore[no-untyped-def]
    fast = _resolve_all(platform, plain=False)
    plain = _resolve_all(platform, plain=True)
    assert fast == plain
    for pod in fast:
        assert_valid_pod_template(pod)
    worker = fast[4]  # sidecar task, worker role: cluster, interruptible, inline, role layers
    names = [c["name"] for c in worker["spec"]["containers"]]
    assert names == ["trainer", "logger", "proxy"]
    assert {v["name"] for v in worker["spec"]["volumes"]} == {"data"}


def test_template_naming_a_roles_primary_merges_into_it(templates_dir) -> None:  # type: ignore[no-untyped-def]
    """Prefixes are shared between roles under a stand-in primary name; a template that
    names the role's primary container itself must still merge into it."""
    named = """
apiVersion: v1
kind: PodTemplate
metadata: {name: base}
template:
  spec:
    containers: [{name: primary, workingDir: /w}, {name: trainer, tty: true}]
"""
    platform = Platform(templates=templates_dir({"base.yaml": named}), defaultTemplate="base",
                        defaultImage="python:3.11")

    def job() -> None: ...

    pods: dict[bool, list[dict[str, Any]]] = {}
    for plain in (False, True):
        context = make_context(platform=platform)
        pods[plain] = [resolve_pod(task(name="t", pod_template=SIDECAR)(job), role, context,
                                   provenance={} if plain else None)
                       for role in (*ROLES[:2], *ROLES[:2])]
    assert pods[False] == pods[True]
    worker = pods[False][1]
    containers = worker["spec"]["containers"]
    assert [c["name"] for c in containers] == ["trainer", "proxy"]
    assert containers[0]["tty"] is True and containers[0]["workingDir"] == "/w"
    assert [c["name"] for c in pods[False][0]["spec"]["containers"]] == [
        "main", "trainer", "proxy"]


@pytest.mark.parametrize("spec", [
    {"containers": [{"name": "main", "$patch": "delete"}]},
    {"$patch": "replace"},  # a whole-spec delete is refused where it is written
])
def test_prefix_that_deletes_the_primary_container(spec: dict[str, Any], platform) -> None:  # type: ignore[no-untyped-def]
    template = PodTemplate(spec, primary_container_name="main")

    def job() -> None: ...

    pods = {}
    for plain in (False, True):
        context = make_context(platform=platform)
        pods[plain] = [resolve_pod(task(name="t", image="img:1", pod_template=template)(job),
                                   role, context, provenance={} if plain else None)
                       for role in ROLES[:2]]
    assert pods[False] == pods[True]
    assert [c["image"] for c in pods[False][0]["spec"]["containers"]][:1] == ["img:1"]


def test_pods_share_only_what_no_fold_changes(platform) -> None:  # type: ignore[no-untyped-def]
    # Copy-on-write: a pod's root, metadata, spec, container list and primary container
    # are its own (core and plugins set fields there); the rest may be a template's, and
    # folding never changes a template.
    context = make_context(platform=platform)
    job = _tasks()[1]
    assert job.pod_template is not None
    before = copy.deepcopy(job.pod_template.pod_spec)
    first = resolve_pod(job, ROLES[0], context)
    second = resolve_pod(job, ROLES[0], context)
    assert first == second and job.pod_template.pod_spec == before
    for own in (lambda p: p, lambda p: p["metadata"], lambda p: p["spec"],
                lambda p: p["spec"]["containers"], lambda p: p["spec"]["containers"][0],
                lambda p: p["metadata"]["labels"]):
        assert own(first) is not own(second)


def test_non_canonical_template_falls_back_to_full_validation(templates_dir) -> None:  # type: ignore[no-untyped-def]
    # The client models accept a snake_case field name on its own, but not beside the
    # camelCase one that another layer gives: the merged pod must still be rejected.
    folder = templates_dir({"base.yaml": CLUSTER.replace(
        "{name: primary, volumeMounts: [{name: cache, mountPath: /cache}]}",
        "{name: primary, image_pull_policy: Always}")})
    platform = Platform(templates=folder, defaultTemplate="base", defaultImage="python:3.11")
    inline = PodTemplate({"containers": [{"name": "primary", "imagePullPolicy": "Never"}]})

    def job() -> None: ...

    snake = task(name="snake", pod_template=inline)(job)
    messages = []
    for provenance in (None, {}):
        with pytest.raises(InvalidPodSpecError) as caught:
            resolve_pod(snake, ROLES[0], make_context(platform=platform),
                        provenance=provenance)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
    assert "image_pull_policy" in messages[0]


PROVEN = [
    {"spec": {"containers": [{"name": "a", "image": "x", "ports": [{"containerPort": 80}]}]}},
    {"spec": {"tolerations": [{"key": "k", "tolerationSeconds": 5}], "containers": []}},
    {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "a", "env": [
        {"name": "E", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]}]}},
    {"spec": {"containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}]}},
    # replace and merge directives are dropped by the merge, the other fields kept
    {"spec": {"volumes": [{"$patch": "replace", "name": "v", "configMap": {"name": "c"}}],
              "containers": [{"name": "a", "volumeMounts": [
                  {"$patch": "replace", "name": "v", "mountPath": "/v"}]}]}},
    {"spec": {"containers": [], "securityContext": {"$patch": "merge", "runAsUser": 1}}},
    {"metadata": {"creationTimestamp": "2026-01-01T00:00:00Z"}, "spec": {}},  # a string
    {"spec": {"containers": [], "workloadRef": {"name": "w", "podGroup": "g"}}},  # in 1.35
]

UNPROVEN = [
    {"spec": {"containers": [{"name": "a", "image_pull_policy": "Always"}]}},  # snake_case
    {"spec": {"containers": [{"name": "a", "ports": [{"containerPort": "80"}]}]}},  # type
    {"spec": {"containers": [{"name": "a", "ports": [{"containerPort": True}]}]}},  # bool
    {"spec": {"containers": [{"image": "a"}]}},  # required name missing
    {"spec": {"containers": [{"name": "a", "$patch": "delete"}]}},  # directive
    {"spec": {"containers": [{"name": "a", "$patch": "sideways"}]}},  # unknown directive
    {"spec": {"securityContext": {"$patch": "delete"}}},  # deletes what it names
    {"spec": {"affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {}}}}},  # required terms deleted
    {"spec": {"containers": [{"name": "a", "livenessProbe": {"_exec": {}}}]}},  # hidden name
    {"spec": {"containers": [], "schedulingGroup": {"podGroupName": "g"}}},  # not in 1.35
]


@pytest.mark.parametrize("fragment", PROVEN)
def test_proven_fragments_are_valid(fragment: dict[str, Any]) -> None:
    assert proves_pod_template_spec(fragment)
    assert check_keys_only(clean(fragment)) == []  # as the merge takes it


@pytest.mark.parametrize("fragment", UNPROVEN)
def test_doubtful_fragments_are_not_proven(fragment: dict[str, Any]) -> None:
    assert not proves_pod_template_spec(fragment)

"""API-server-grade pod validation: a corpus of invalid pods, each refused with its field
path and the rule it breaks, at render time (and by ``check_pod_template``)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from kubernetes.client import V1Container, V1PodSpec, V1Toleration
from podtemplate import (
    ApiRuleError,
    InvalidNameError,
    InvalidQuantityError,
    Platform,
    PodTemplate,
    PodTemplateError,
    Role,
    check_pod,
    check_pod_template,
    render,
    task,
)
from podtemplate.dispatch import build_plugin_manager
from podtemplate.model.apiserver import check_final_pod, check_fragment, check_rules
from podtemplate.model.apiserver._fast import surely_valid

Pod = dict[str, Any]
IMAGE = "python:3.11"


def base() -> Pod:
    return {"metadata": {"labels": {"team": "ml"}},
            "spec": {"containers": [{"name": "primary", "image": IMAGE}]}}


def primary(pod: Pod) -> dict[str, Any]:
    container: dict[str, Any] = pod["spec"]["containers"][0]
    return container


def set_spec(**fields: Any) -> Callable[[Pod], None]:
    return lambda pod: pod["spec"].update(fields)


def set_primary(**fields: Any) -> Callable[[Pod], None]:
    return lambda pod: primary(pod).update(fields)


def add_volume(volume: dict[str, Any], mount: dict[str, Any] | None = None
               ) -> Callable[[Pod], None]:
    def change(pod: Pod) -> None:
        pod["spec"].setdefault("volumes", []).append(volume)
        if mount is not None:
            primary(pod).setdefault("volumeMounts", []).append(mount)
    return change


def add_init(**fields: Any) -> Callable[[Pod], None]:
    return lambda pod: pod["spec"].setdefault("initContainers", []).append(
        {"name": "warmup", "image": "busybox:1", **fields})


def resources(**kinds: dict[str, str]) -> Callable[[Pod], None]:
    return set_primary(resources=kinds)


def probe(kind: str = "livenessProbe", **fields: Any) -> Callable[[Pod], None]:
    return set_primary(**{kind: {"exec": {"command": ["true"]}, **fields}})


def secure(**fields: Any) -> Callable[[Pod], None]:
    return set_primary(securityContext=fields)


def env(*items: dict[str, Any]) -> Callable[[Pod], None]:
    return set_primary(env=list(items))


def big_annotations(pod: Pod) -> None:
    pod["metadata"]["annotations"] = {f"example.com/blob-{i}": "x" * 70_000 for i in range(4)}


P = "spec.containers[primary]"
REF = {"configMapKeyRef": {"name": "cm", "key": "k"}, "secretKeyRef": {"name": "s", "key": "k"}}
PREFERRED = "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution"
REQUIRED = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"

# (id, change to a valid pod, the field path refused, a word of the rule it breaks)
INVALID: list[tuple[str, Callable[[Pod], None], str, str]] = [
    ("request-above-limit", resources(requests={"memory": "2Gi"}, limits={"memory": "1Gi"}),
     f"{P}.resources.requests.memory", "request is <= its limit"),
    ("unqualified-extended-resource", resources(limits={"gpu": "1"}),
     f"{P}.resources.limits.gpu", "validateContainerResourceName"),
    ("restart-policy", set_spec(restartPolicy="Sometimes"), "spec.restartPolicy",
     "validateRestartPolicy"),
    ("toleration-operator", set_spec(tolerations=[{"key": "a", "operator": "Exist"}]),
     "spec.tolerations[0].operator", "validateTolerations"),
    ("toleration-effect", set_spec(tolerations=[{"key": "a", "operator": "Exists",
                                                 "effect": "NoSchedul"}]),
     "spec.tolerations[0].effect", "toleration effect is one of"),
    ("toleration-exists-with-value", set_spec(tolerations=[{"key": "a", "operator": "Exists",
                                                            "value": "b"}]),
     "spec.tolerations[0].value", "operator Exists has no value"),
    ("toleration-seconds-without-noexecute",
     set_spec(tolerations=[{"key": "a", "operator": "Exists", "effect": "NoSchedule",
                            "tolerationSeconds": 5}]),
     "spec.tolerations[0].tolerationSeconds", "only for effect NoExecute"),
    ("container-port", set_primary(ports=[{"containerPort": 99999}]),
     f"{P}.ports[0].containerPort", "ValidatePortNum"),
    ("host-port", set_primary(ports=[{"containerPort": 80, "hostPort": 70000}]),
     f"{P}.ports[0].hostPort", "hostPort is 0 (none) or between 1 and 65535"),
    ("port-protocol", set_primary(ports=[{"containerPort": 80, "protocol": "HTTP"}]),
     f"{P}.ports[0].protocol", "port protocol is one of SCTP | TCP | UDP"),
    ("port-name", set_primary(ports=[{"containerPort": 80, "name": "a-very-long-port-name"}]),
     f"{P}.ports[a-very-long-port-name].name", "IANA service name"),
    ("host-network-port", lambda pod: (set_spec(hostNetwork=True)(pod), set_primary(
        ports=[{"containerPort": 80, "hostPort": 8080}])(pod)),
     f"{P}.ports[0].hostPort", "validateHostNetwork"),
    ("init-and-container-same-name", lambda pod: (add_init()(pod), pod["spec"][
        "containers"].append({"name": "warmup", "image": "busybox:1"})),
     "spec.containers[warmup].name", "unique across containers, initContainers"),
    ("container-name", lambda pod: pod["spec"]["containers"].append(
        {"name": "Side_Car", "image": "envoy:1"}),
     "spec.containers[Side_Car].name", "validateContainers"),
    ("env-name", env({"name": "A=B", "value": "1"}), f"{P}.env[A=B].name",
     "validateEnvVarName"),
    ("env-two-sources", env({"name": "X", "valueFrom": REF}), f"{P}.env[X].valueFrom",
     "validateEnvVarValueFrom"),
    ("env-value-and-source", env({"name": "X", "value": "1", "valueFrom": {
        "secretKeyRef": {"name": "s", "key": "k"}}}), f"{P}.env[X].valueFrom",
     "validateEnvVarValueFrom"),
    ("env-field-path", env({"name": "X", "valueFrom": {"fieldRef": {
        "fieldPath": "spec.containers"}}}), f"{P}.env[X].valueFrom.fieldRef.fieldPath",
     "validateObjectFieldSelector"),
    ("env-from-two-sources", set_primary(envFrom=[{"configMapRef": {"name": "a"},
                                                   "secretRef": {"name": "b"}}]),
     f"{P}.envFrom[0]", "validateEnvFrom"),
    ("mount-without-volume", set_primary(volumeMounts=[{"name": "ghost", "mountPath": "/g"}]),
     f"{P}.volumeMounts[ghost].name", "ValidateVolumeMounts"),
    ("mount-sub-path", add_volume({"name": "data", "emptyDir": {}},
                                  {"name": "data", "mountPath": "/d", "subPath": "../etc"}),
     f"{P}.volumeMounts[data].subPath", "subPath is a relative path"),
    ("mount-propagation", add_volume({"name": "data", "emptyDir": {}},
                                     {"name": "data", "mountPath": "/d",
                                      "mountPropagation": "Bidirectional"}),
     f"{P}.volumeMounts[data].mountPropagation", "validateMountPropagation"),
    ("volume-two-sources", add_volume({"name": "data", "emptyDir": {},
                                       "configMap": {"name": "cm"}}),
     "spec.volumes[data]", "validateVolumeSource"),
    ("volume-no-source", add_volume({"name": "data"}), "spec.volumes[data]",
     "exactly one source"),
    ("volume-name", add_volume({"name": "Data_1", "emptyDir": {}}), "spec.volumes[Data_1].name",
     "ValidateVolumes"),
    ("volume-claim-name", add_volume({"name": "data", "persistentVolumeClaim": {
        "claimName": ""}}), "spec.volumes[data].persistentVolumeClaim.claimName",
     "names what it mounts"),
    ("empty-dir-medium", add_volume({"name": "data", "emptyDir": {"medium": "Disk"}}),
     "spec.volumes[data].emptyDir.medium", "validateEmptyDirVolumeSource"),
    ("empty-dir-size", add_volume({"name": "data", "emptyDir": {"sizeLimit": "-1Gi"}}),
     "spec.volumes[data].emptyDir.sizeLimit", ">= 0"),
    ("secret-mode", add_volume({"name": "data", "secret": {"secretName": "s",
                                                          "defaultMode": 0o1000}}),
     "spec.volumes[data].secret.defaultMode", "0777"),
    ("host-path-type", add_volume({"name": "data", "hostPath": {"path": "/x", "type": "Dir"}}),
     "spec.volumes[data].hostPath.type", "validateHostPathType"),
    ("token-expiration", add_volume({"name": "tok", "projected": {"sources": [
        {"serviceAccountToken": {"path": "t", "expirationSeconds": 60}}]}}),
     "spec.volumes[tok].projected.sources[0].serviceAccountToken", "expirationSeconds"),
    ("probe-two-handlers", probe(httpGet={"port": 80}), f"{P}.livenessProbe",
     "validateHandler"),
    ("probe-no-handler", set_primary(readinessProbe={"periodSeconds": 5}),
     f"{P}.readinessProbe", "exactly one handler"),
    ("liveness-success-threshold", probe(successThreshold=2),
     f"{P}.livenessProbe.successThreshold", "validateLivenessProbe"),
    ("probe-negative-period", probe("readinessProbe", periodSeconds=-1),
     f"{P}.readinessProbe.periodSeconds", "validateProbe"),
    ("http-port", set_primary(livenessProbe={"httpGet": {"port": 0}}),
     f"{P}.livenessProbe.httpGet.port", "ValidatePortNumOrName"),
    ("http-scheme", set_primary(livenessProbe={"httpGet": {"port": 80, "scheme": "FTP"}}),
     f"{P}.livenessProbe.httpGet.scheme", "validateHTTPGetAction"),
    ("grpc-port", set_primary(startupProbe={"grpc": {"port": 70000}}),
     f"{P}.startupProbe.grpc.port", "ValidatePortNum"),
    ("sleep-beyond-grace", set_primary(lifecycle={"preStop": {"sleep": {"seconds": 60}}}),
     f"{P}.lifecycle.preStop.sleep.seconds", "validateSleepAction"),
    ("init-container-probe", add_init(livenessProbe={"exec": {"command": ["true"]}}),
     "spec.initContainers[warmup].livenessProbe", "validateInitContainers"),
    ("dns-none-without-config", set_spec(dnsPolicy="None"), "spec.dnsConfig",
     "validatePodDNSConfig"),
    ("dns-policy", set_spec(dnsPolicy="Cluster"), "spec.dnsPolicy", "validateDNSPolicy"),
    ("dns-nameservers", set_spec(dnsConfig={"nameservers": ["1.1.1.1", "1.0.0.1", "8.8.8.8",
                                                            "8.8.4.4"]}),
     "spec.dnsConfig", "at most 3 nameservers"),
    ("pull-policy", set_primary(imagePullPolicy="Sometimes"), f"{P}.imagePullPolicy",
     "validatePullPolicy"),
    ("negative-memory", resources(requests={"memory": "-1"}), f"{P}.resources.requests.memory",
     "ValidateResourceQuantityValue"),
    ("fractional-extended", resources(limits={"nvidia.com/gpu": "0.5"}),
     f"{P}.resources.limits.nvidia.com/gpu", "whole number"),
    ("extended-request-not-limit", resources(requests={"example.com/fpga": "1"},
                                             limits={"example.com/fpga": "2"}),
     f"{P}.resources.requests.example.com/fpga", "equals its limit"),
    ("extended-request-without-limit", resources(requests={"example.com/fpga": "1"}),
     f"{P}.resources.requests.example.com/fpga", "has a limit"),
    ("node-selector-value", set_spec(nodeSelector={"pool": "gpu nodes!"}),
     "spec.nodeSelector.pool", "IsValidLabelValue"),
    ("annotations-size", big_annotations, "metadata.annotations", "ValidateAnnotationsSize"),
    ("run-as-user", secure(runAsUser=-1), f"{P}.securityContext.runAsUser", "IsValidUserID"),
    ("privilege-escalation", secure(privileged=True, allowPrivilegeEscalation=False),
     f"{P}.securityContext.allowPrivilegeEscalation", "ValidateSecurityContext"),
    ("seccomp-localhost", set_spec(securityContext={"seccompProfile": {"type": "Localhost"}}),
     "spec.securityContext.seccompProfile.localhostProfile", "validateSeccompProfileField"),
    ("fs-group-change", set_spec(securityContext={"fsGroupChangePolicy": "Sometimes"}),
     "spec.securityContext.fsGroupChangePolicy", "validateFSGroupChangePolicy"),
    ("sysctl-name", set_spec(securityContext={"sysctls": [{"name": "Net.Core", "value": "1"}]}),
     "spec.securityContext.sysctls[0].name", "validateSysctls"),
    ("active-deadline", set_spec(activeDeadlineSeconds=0), "spec.activeDeadlineSeconds",
     "activeDeadlineSeconds is between 1"),
    ("priority-int32", set_spec(priority=2**31), "spec.priority", "int32"),
    ("preemption-policy", set_spec(preemptionPolicy="Sometimes"), "spec.preemptionPolicy",
     "validatePreemptionPolicy"),
    ("os-name", set_spec(os={"name": "macos"}), "spec.os.name", "validateOS"),
    ("service-account-name", set_spec(serviceAccountName="Bad_Name"),
     "spec.serviceAccountName", "DNS-1123 subdomain"),
    ("affinity-weight", set_spec(affinity={"nodeAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 0, "preference": {
            "matchExpressions": [{"key": "a", "operator": "Exists"}]}}]}}),
     f"{PREFERRED}[0].weight", "weight is between 1 and 100"),
    ("node-selector-terms", set_spec(affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}}),
     f"{REQUIRED}.nodeSelectorTerms", "ValidateNodeSelector"),
    ("selector-in-without-values", set_spec(affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "a", "operator": "In"}]}]}}}),
     f"{REQUIRED}.nodeSelectorTerms[0].matchExpressions[0].values",
     "validateNodeSelectorRequirement"),
    ("spread-max-skew", set_spec(topologySpreadConstraints=[{
        "maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]),
     "spec.topologySpreadConstraints[0].maxSkew", "maxSkew is > 0"),
    ("spread-unsatisfiable", set_spec(topologySpreadConstraints=[{
        "maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "Maybe"}]),
     "spec.topologySpreadConstraints[0].whenUnsatisfiable", "whenUnsatisfiable is one of"),
    ("host-alias-ip", set_spec(hostAliases=[{"ip": "300.1.1.1", "hostnames": ["a"]}]),
     "spec.hostAliases[0]", "ValidateHostAliases"),
    ("scheduling-gate", set_spec(schedulingGates=[{"name": "-gate"}]),
     "spec.schedulingGates[0].name", "validateSchedulingGates"),
    ("resource-claim-sources", set_spec(resourceClaims=[{
        "name": "gpu", "resourceClaimName": "a", "resourceClaimTemplateName": "b"}]),
     "spec.resourceClaims[gpu]", "validatePodResourceClaim"),
    ("ephemeral-containers", set_spec(ephemeralContainers=[{"name": "debug",
                                                             "image": "busybox:1"}]),
     "spec.ephemeralContainers", "never in a pod template"),
    ("host-users-with-host-network", set_spec(hostUsers=False, hostNetwork=True),
     "spec.hostUsers", "validateHostUsers"),
]


def rendered(template: Pod) -> list[dict[str, Any]]:
    pod_template = PodTemplate(template["spec"], labels=template["metadata"].get("labels"),
                               annotations=template["metadata"].get("annotations"))

    @task(name="job", image=IMAGE, pod_template=pod_template)
    def job() -> None: ...

    return render(job, platform=Platform(), plugin_manager=build_plugin_manager())


@pytest.mark.parametrize(("change", "path", "rule"), [case[1:] for case in INVALID],
                         ids=[case[0] for case in INVALID])
def test_invalid_pod_is_refused_with_its_path_and_rule(
        change: Callable[[Pod], None], path: str, rule: str) -> None:
    pod = base()
    change(pod)
    found = [(p.path, p.rule) for p in check_pod_template(pod)]
    assert any(p == path and rule in r for p, r in found), found
    with pytest.raises(PodTemplateError) as caught:
        rendered(copy.deepcopy(pod))
    error = caught.value
    assert error.field == path, str(error)
    # Names and quantities were refused before these rules existed, with errors of their
    # own kind (InvalidNameError, InvalidQuantityError); every other case cites its rule.
    if not isinstance(error, ApiRuleError):
        assert isinstance(error, (InvalidNameError, InvalidQuantityError)), str(error)
    else:
        assert rule in error.message, str(error)
    assert error.fix and error.exit_code == 2
    if error.task is not None:  # refused at render time, not when the template was defined
        assert (error.task, error.role) == ("job", "pod")
        assert str(error).startswith(f"task 'job', role 'pod', {path}: ")


def test_the_corpus_is_large_and_each_case_breaks_one_rule() -> None:
    assert len(INVALID) >= 40
    assert len({case[0] for case in INVALID}) == len(INVALID)
    assert check_pod_template(base()) == []


def test_snake_case_key_is_refused_with_the_camel_case_name() -> None:
    with pytest.raises(ApiRuleError) as caught:
        PodTemplate({"node_selector": {"pool": "gpu"}})
    assert caught.value.field == "spec.node_selector"
    assert "did you mean `nodeSelector`?" in str(caught.value)
    problems = check_pod_template({"spec": {"containers": [
        {"name": "a", "image": "b", "image_pull_policy": "Always"}]}})
    assert [p.path for p in problems] == ["spec.containers[a].image_pull_policy"]
    assert "did you mean `imagePullPolicy`?" in problems[0].message


def test_a_key_in_the_wrong_case_gets_a_hint_too() -> None:
    problems = check_pod_template({"spec": {"nodeselector": {}, "containers": []}})
    assert problems[0].path == "spec.nodeselector" and "`nodeSelector`" in problems[0].message


def test_a_client_model_is_still_converted_to_camel_case() -> None:
    spec = V1PodSpec(containers=[V1Container(name="primary", image_pull_policy="Always")],
                     node_selector={"pool": "gpu"},
                     tolerations=[V1Toleration(key="gpu", operator="Exists")])
    template = PodTemplate(spec)
    assert template.pod_spec["nodeSelector"] == {"pool": "gpu"}
    assert template.pod_spec["containers"][0]["imagePullPolicy"] == "Always"
    pod = rendered({"metadata": {}, "spec": template.pod_spec})[0]
    assert pod["spec"]["nodeSelector"] == {"pool": "gpu"} and "node_selector" not in pod["spec"]
    assert check_pod(pod) == []


def test_an_enum_in_an_inline_template_fails_when_it_is_defined() -> None:
    with pytest.raises(ApiRuleError) as caught:
        PodTemplate({"restartPolicy": "Sometimes"})
    assert caught.value.task is None and caught.value.field == "spec.restartPolicy"


def test_a_fragment_leaves_whole_pod_rules_to_the_final_pod() -> None:
    fragment = {"spec": {"containers": [{"name": "primary", "volumeMounts": [
        {"name": "cache", "mountPath": "/c"}], "resources": {"requests": {"memory": "2Gi"}}}]}}
    assert check_fragment(fragment) == []  # the volume and the limit may come from others
    assert {p.path for p in check_pod_template(fragment)} == {
        "spec.containers[primary].volumeMounts[cache].name",
        "spec.containers[primary].image"}


def test_platform_interruptible_fragment_is_checked_at_load() -> None:
    with pytest.raises(PodTemplateError) as caught:
        Platform(interruptible={"tolerations": [{"key": "spot", "operator": "Exist"}]})
    assert "interruptible.tolerations[0].operator" in str(caught.value)


def test_check_pod_names_kind_and_object_name() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "Bad_Name"},
           "spec": {"containers": [{"name": "a", "image": "b"}]}}
    assert [(p.path, "ValidateObjectMeta" in p.rule) for p in check_pod(pod)] == [
        ("metadata.name", True)]
    assert check_pod({**pod, "metadata": {"name": "good"}}) == []
    wrong = check_pod({**pod, "kind": "Deployment", "metadata": {"name": "good"}})
    assert [p.path for p in wrong] == ["kind"]


def test_problem_reads_as_one_line_with_rule_and_fix() -> None:
    pod = base()
    set_spec(restartPolicy="Sometimes")(pod)
    (problem,) = check_pod_template(pod)
    assert str(problem) == (
        "spec.restartPolicy: 'Sometimes' is not supported; rule: restartPolicy is one of "
        "Always | Never | OnFailure (k8s validateRestartPolicy) (fix: use one of Always | "
        "Never | OnFailure)")


def test_replicas_above_int32_fail_at_definition() -> None:
    with pytest.raises(PodTemplateError, match="replicas"):
        Role(replicas=2**31)
    assert Role(replicas=2**31 - 1).replicas == 2**31 - 1


def test_task_settings_are_checked_at_render_too() -> None:
    # Settings are no template: their resource names and request/limit pairs meet the
    # rules only in the final pod.
    from podtemplate import Resources

    @task(name="job", image=IMAGE, requests=Resources(memory="4Gi"),
          limits=Resources(memory="2Gi", extra={"gpu": "1"}))
    def job() -> None: ...

    with pytest.raises(ApiRuleError) as caught:
        render(job, platform=Platform(), plugin_manager=build_plugin_manager())
    assert caught.value.field == "spec.containers[primary].resources.limits.gpu"
    assert "validateContainerResourceName" in caught.value.message
    assert "(and 1 more problem)" in caught.value.message  # the request above the limit


def test_annotations_are_measured_in_utf8_bytes() -> None:
    pod = base()
    pod["metadata"]["annotations"] = {"example.com/a": "é" * 70_000, "example.com/b": "é" * 70_000}
    (problem,) = check_pod_template(pod)  # 140,026 characters, 280,026 bytes
    assert problem.path == "metadata.annotations" and problem.message == "280026 bytes"
    pod["metadata"]["annotations"] = {"example.com/a": "é" * 60_000, "example.com/b": "é" * 60_000}
    assert check_pod_template(pod) == []  # 240,026 bytes


# -- the fast path of the API rules (model/apiserver/_fast.py) against the plain rules: it
# may only vouch for a pod the plain rules find nothing in, on every case of the invalid
# corpus (cold, and with its verdicts warmed up on valid pods), and it does vouch for
# valid pods - also the second time, from what it remembered.


def rich_pod() -> Pod:
    """A valid pod that sets the fields whose verdicts the fast path remembers."""
    pod = base()
    spec = pod["spec"]
    pod["metadata"]["annotations"] = {"example.com/owner": "ml-platform"}
    spec["volumes"] = [{"name": "data", "emptyDir": {"sizeLimit": "1Gi"}},
                       {"name": "cfg", "configMap": {"name": "cfg"}}]
    spec["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 10, "preference": {"matchExpressions": [
            {"key": "pool", "operator": "In", "values": ["gpu"]}]}}]}}
    spec["tolerations"] = [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]
    spec["securityContext"] = {"runAsNonRoot": True}
    spec["containers"][0].update({
        "env": [{"name": "A", "value": "1"}, {"name": "B.c-d", "value": "x"}],
        "volumeMounts": [{"name": "data", "mountPath": "/data"}],
        "resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "2"}}})
    spec["initContainers"] = [{"name": "setup", "image": "busybox:1"}]
    return pod


def test_the_fast_path_vouches_for_valid_pods_cold_and_warm() -> None:
    known: dict[bytes, bool] = {}
    for pod in (base(), rich_pod(), base(), rich_pod()):
        assert check_rules(pod) == []
        assert surely_valid(pod, known) is True
    assert known  # the second round was answered from what the first found valid


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
@pytest.mark.parametrize(("change", "path"), [case[1:3] for case in INVALID],
                         ids=[case[0] for case in INVALID])
def test_the_fast_path_never_vouches_for_what_the_plain_rules_refuse(
        change: Callable[[Pod], None], path: str, warm: bool) -> None:
    known: dict[bytes, bool] = {}
    if warm:
        assert surely_valid(base(), known) and surely_valid(rich_pod(), known)
    for start in (base, rich_pod):
        pod = start()
        try:
            change(pod)
        except (KeyError, IndexError, TypeError):
            continue  # the case does not apply to this pod
        plain = check_rules(copy.deepcopy(pod))
        if surely_valid(pod, known):
            assert plain == [], path
        # what render runs gives what the plain rules give
        assert check_final_pod(pod, known) == plain


@pytest.mark.parametrize("change", [
    lambda pod: pod["spec"]["containers"][0]["env"].append({"name": "", "value": "x"}),
    lambda pod: pod["spec"]["containers"][0]["env"].append({"name": "A=B"}),
    lambda pod: pod["spec"]["containers"][0]["env"].append({"name": "T\tAB"}),
    lambda pod: pod["spec"]["containers"][0]["env"].append({"value": "no name"}),
    lambda pod: pod["spec"]["containers"][0]["env"].append(
        {"name": "R", "valueFrom": {"fieldRef": {"fieldPath": "spec.nope"}}}),
    lambda pod: pod["metadata"]["labels"].update({"team": "a b"}),
    lambda pod: pod["metadata"]["labels"].update({"team": 1}),
    lambda pod: pod["metadata"]["annotations"].update({"big": ["x" * 300_000]}),
    lambda pod: pod["metadata"]["annotations"].update({"bad key!": "x"}),
    lambda pod: pod["spec"]["affinity"]["nodeAffinity"][
        "preferredDuringSchedulingIgnoredDuringExecution"][0].update({"weight": 0}),
    lambda pod: pod["spec"]["volumes"].append({"name": "data", "emptyDir": {}}),
    lambda pod: pod["spec"]["containers"][0]["volumeMounts"].append(
        {"name": "ghost", "mountPath": "/ghost"}),
    lambda pod: pod["spec"]["initContainers"].append({"name": "primary", "image": "x:1"}),
    lambda pod: pod["spec"]["securityContext"].update({"runAsUser": -1}),
], ids=["empty-env-name", "env-name-with-equals", "env-name-with-tab", "env-without-name",
        "env-field-ref", "label-value", "label-value-type", "annotation-size-of-a-list",
        "annotation-key", "affinity-weight", "volume-twice", "mount-without-volume",
        "container-name-twice", "security-range"])
def test_a_remembered_part_changed_is_judged_again(change: Callable[[Pod], None]) -> None:
    known: dict[bytes, bool] = {}
    assert surely_valid(rich_pod(), known)
    pod = rich_pod()
    change(pod)
    plain = check_rules(copy.deepcopy(pod))
    assert plain, "the change breaks a rule"
    assert surely_valid(pod, known) is False
    assert check_final_pod(pod, known) == plain

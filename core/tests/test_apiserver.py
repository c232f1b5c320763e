"""API-server-grade pod validation: a corpus of invalid pods, each refused with its field
path and the rule it breaks, at render time (and by ``check_pod_template``)."""

from __future__ import annotations

import copy
import json
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
from podtemplate.testing.apiserver_corpus import (
    IMAGE,
    INVALID,
    POD_ONLY,
    VALID,
    Pod,
    base,
    set_spec,
)


def rendered(template: Pod) -> list[dict[str, Any]]:
    pod_template = PodTemplate(template["spec"], labels=template["metadata"].get("labels"),
                               annotations=template["metadata"].get("annotations"))

    @task(name="job", image=IMAGE, pod_template=pod_template)
    def job() -> None: ...

    return render(job, platform=Platform(), plugin_manager=build_plugin_manager())


@pytest.mark.parametrize("change", [case[1] for case in VALID], ids=[case[0] for case in VALID])
def test_a_tricky_valid_pod_passes_and_renders(change: Callable[[Pod], None]) -> None:
    pod = base()
    change(pod)
    assert check_pod_template(pod) == []
    assert check_pod({"apiVersion": "v1", "kind": "Pod", **copy.deepcopy(pod),
                      "metadata": {**pod["metadata"], "name": "p"}}) == []
    (rendered_pod,) = rendered(copy.deepcopy(pod))
    assert check_pod(rendered_pod) == []


@pytest.mark.parametrize(("change", "path", "rule"), [case[1:] for case in POD_ONLY],
                         ids=[case[0] for case in POD_ONLY])
def test_a_pods_own_metadata_is_checked_only_in_a_pod(
        change: Callable[[Pod], None], path: str, rule: str) -> None:
    pod = base()
    pod["metadata"]["name"] = "p"
    change(pod)
    found = [(p.path, p.rule) for p in check_pod({"apiVersion": "v1", "kind": "Pod", **pod})]
    assert any(p == path and rule in r for p, r in found), found
    assert check_pod_template(pod) == []


# Cases the render completes as Flyte's backend does (resolve/resources.py): an extended
# resource requested without a limit on the task's container gets the request as limit.
COMPLETED_AT_RENDER = {"extended-request-without-limit"}


@pytest.mark.parametrize(("change", "path", "rule"), [case[1:] for case in INVALID],
                         ids=[case[0] for case in INVALID])
def test_invalid_pod_is_refused_with_its_path_and_rule(
        request: pytest.FixtureRequest, change: Callable[[Pod], None], path: str,
        rule: str) -> None:
    pod = base()
    change(pod)
    found = [(p.path, p.rule) for p in check_pod_template(pod)]
    assert any(p == path and rule in r for p, r in found), found
    if request.node.callspec.id in COMPLETED_AT_RENDER:
        (manifest,) = rendered(copy.deepcopy(pod))
        resources = manifest["spec"]["containers"][0]["resources"]
        assert resources["limits"] == resources["requests"], resources
        return
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


@pytest.mark.parametrize(("spec", "path", "meant"), [
    ({"NodeSelector": {"pool": "gpu"}}, "spec.NodeSelector", "nodeSelector"),
    ({"containers": [{"name": "a", "ImagePullPolicy": "Always"}]},
     "spec.containers[a].ImagePullPolicy", "imagePullPolicy"),
])
def test_a_template_with_a_key_in_the_wrong_case_gets_the_hint(spec: dict[str, Any], path: str,
                                                               meant: str) -> None:
    """The client models refuse a wrongly cased name (they accept only snake_case and
    camelCase ones): a template gets the same "did you mean" hint as for snake_case, as a
    PodTemplate dict and as a template file."""
    with pytest.raises(PodTemplateError) as caught:
        PodTemplate(spec)
    assert caught.value.field == path
    assert f"did you mean `{meant}`?" in str(caught.value)
    document = {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "t"},
                "template": {"spec": spec}}
    with pytest.raises(PodTemplateError) as from_file:
        PodTemplate.from_yaml(json.dumps(document))
    assert f"did you mean `{meant}`?" in str(from_file.value)


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
    # Settings are no template: their request/limit pairs meet the rules only in the
    # final pod. (An unqualified resource name fails earlier, when Resources is made.)
    from podtemplate import DefinitionError, Resources

    with pytest.raises(DefinitionError, match=r"write gpu=\.\.\. instead"):
        Resources(extra={"gpu": "1"})

    @task(name="job", image=IMAGE, requests=Resources(memory="4Gi"),
          limits=Resources(memory="2Gi"))
    def job() -> None: ...

    with pytest.raises(ApiRuleError) as caught:
        render(job, platform=Platform(), plugin_manager=build_plugin_manager())
    assert caught.value.field == "spec.containers[primary].resources.requests.memory"
    assert "request is <= its limit" in caught.value.message


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

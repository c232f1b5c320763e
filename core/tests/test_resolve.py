"""Every layer of a pod (docs/design.md), folded through the real render path."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import pytest
from podtemplate import (
    ConfigModel,
    FieldDecl,
    Platform,
    PodTemplate,
    Resources,
    Role,
    RoleSpec,
    TaskType,
    TemplateNotFoundError,
    hookimpl,
    object_metadata,
    place,
    render,
    resolve_pod,
    task,
)
from podtemplate.dispatch import build_plugin_manager
from podtemplate.testing import container, env_of

CLUSTER = """
apiVersion: v1
kind: PodTemplate
metadata: {name: base}
template:
  metadata:
    labels: {team: ml}
  spec:
    hostNetwork: true
    tolerations: [{key: platform, operator: Exists, effect: NoSchedule}]
    volumes: [{name: cache, emptyDir: {}}]
    containers:
      - name: primary
        env: [{name: FOO, value: "1"}, {name: CLUSTER, value: "yes"}]
        volumeMounts: [{name: cache, mountPath: /cache}]
      - name: sidecar
        image: envoy:1
    initContainers:
      - {name: warmup, image: busybox:1}
"""


@pytest.fixture
def platform(templates_dir) -> Platform:  # type: ignore[no-untyped-def]
    folder = templates_dir({"base.yaml": CLUSTER})
    return Platform(templates=folder, defaultImage="python:3.11", fallbackNamespace="platform")


def only_pod(manifests: list[dict[str, Any]]) -> dict[str, Any]:
    assert len(manifests) == 1
    return manifests[0]


def test_task_env_wins_over_cluster_env_once(render_pods, platform) -> None:  # type: ignore[no-untyped-def]
    @task(pod_template_name="base", env={"FOO": "2"})
    def job() -> None: ...

    pod = only_pod(render_pods(job, platform))
    env = env_of(container(pod, "primary"))
    assert env["FOO"] == "2" and env["CLUSTER"] == "yes"


def test_cluster_sidecar_and_init_container_survive(render_pods, platform) -> None:  # type: ignore[no-untyped-def]
    @task(pod_template_name="base", pod_template=PodTemplate({"containers": [
        {"name": "primary", "image": "app:1"}]}))
    def job() -> None: ...

    pod = only_pod(render_pods(job, platform))
    assert [c["name"] for c in pod["spec"]["containers"]] == ["primary", "sidecar"]
    assert container(pod, "sidecar")["image"] == "envoy:1"
    assert pod["spec"]["initContainers"] == [{"name": "warmup", "image": "busybox:1"}]


def test_false_in_higher_layer_overrides_true(render_pods, platform) -> None:  # type: ignore[no-untyped-def]
    @task(pod_template_name="base", pod_template=PodTemplate({"hostNetwork": False}))
    def job() -> None: ...

    assert only_pod(render_pods(job, platform))["spec"]["hostNetwork"] is False


def test_cluster_toleration_survives_task_toleration(render_pods, platform) -> None:  # type: ignore[no-untyped-def]
    mine = {"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}

    @task(pod_template_name="base", pod_template=PodTemplate({"tolerations": [mine]}))
    def job() -> None: ...

    tolerations = only_pod(render_pods(job, platform))["spec"]["tolerations"]
    assert tolerations == [{"key": "platform", "operator": "Exists", "effect": "NoSchedule"}, mine]


def test_patch_delete_removes_inherited_volume(render_pods, platform) -> None:  # type: ignore[no-untyped-def]
    template = PodTemplate({
        "volumes": [{"$patch": "delete", "name": "cache"}],
        "containers": [{"name": "primary",
                        "volumeMounts": [{"$patch": "delete", "mountPath": "/cache"}]}],
    })

    @task(pod_template_name="base", pod_template=template)
    def job() -> None: ...

    pod = only_pod(render_pods(job, platform))
    assert "volumes" not in pod["spec"]
    assert "volumeMounts" not in container(pod, "primary")
    assert "$patch" not in repr(pod)


def test_default_template_applies_and_named_replaces_it(render_pods, templates_dir) -> None:  # type: ignore[no-untyped-def]
    folder = templates_dir({
        "default.yaml": "apiVersion: v1\nkind: PodTemplate\nmetadata: {name: default}\n"
                        "template: {spec: {priorityClassName: low, containers: []}}\n",
        "other.yaml": "apiVersion: v1\nkind: PodTemplate\nmetadata: {name: other, namespace: team}\n"
                      "template: {spec: {schedulerName: custom}}\n",
    })
    platform = Platform(templates=folder, defaultTemplate="default", namespace="team",
                        fallbackNamespace="platform", defaultImage="python:3.11")

    @task
    def plain() -> None: ...

    @task(pod_template_name="other")
    def named() -> None: ...

    first, second = render_pods([plain, named], platform)
    assert first["spec"]["priorityClassName"] == "low"
    assert second["spec"]["schedulerName"] == "custom"
    assert "priorityClassName" not in second["spec"]  # exactly one cluster template
    assert first["metadata"]["namespace"] == "team"


def test_missing_default_template_is_fine_but_missing_named_is_an_error(
        render_pods, templates_dir) -> None:  # type: ignore[no-untyped-def]
    folder = templates_dir({"x.yaml": "apiVersion: v1\nkind: PodTemplate\nmetadata: {name: exists}\n"
                                      "template: {spec: {}}\n"})
    platform = Platform(templates=folder, defaultTemplate="nope", namespace="team",
                        fallbackNamespace="platform", defaultImage="python:3.11")

    @task
    def plain() -> None: ...

    assert render_pods(plain, platform)

    @task(pod_template_name="gpu")
    def named() -> None: ...

    with pytest.raises(TemplateNotFoundError) as error:
        render_pods(named, platform)
    text = str(error.value)
    assert "'gpu'" in text and "team, platform" in text and "platform/exists" in text
    assert "task 'named'" in text


def test_namespace_lookup_prefers_task_namespace(render_pods, templates_dir) -> None:  # type: ignore[no-untyped-def]
    folder = templates_dir({"t.yaml": """
        apiVersion: v1
        kind: PodTemplate
        metadata: {name: t, namespace: team}
        template: {spec: {schedulerName: from-team}}
        ---
        apiVersion: v1
        kind: PodTemplate
        metadata: {name: t}
        template: {spec: {schedulerName: from-platform}}
        """})
    platform = Platform(templates=folder, namespace="team", fallbackNamespace="platform",
                        defaultImage="python:3.11")

    @task(pod_template_name="t")
    def job() -> None: ...

    assert only_pod(render_pods(job, platform))["spec"]["schedulerName"] == "from-team"
    other = Platform(templates=folder, namespace="elsewhere", fallbackNamespace="platform",
                     defaultImage="python:3.11")
    assert only_pod(render_pods(job, other))["spec"]["schedulerName"] == "from-platform"


def test_run_override_replaces_the_task_template_and_merges_over_the_rest(render_pods, platform) -> None:  # type: ignore[no-untyped-def]
    @task(pod_template_name="base", env={"FOO": "2"},
          pod_template=PodTemplate({"nodeSelector": {"pool": "a"}}))
    def job() -> None: ...

    override = PodTemplate({"nodeSelector": {"zone": "z1"},
                            "containers": [{"name": "primary", "env": [{"name": "FOO", "value": "3"}]}]})
    pod = only_pod(render_pods(job.with_overrides(pod_template=override), platform))
    # As on Flyte: the task's own template's pod spec is replaced (issue 30) ...
    assert pod["spec"]["nodeSelector"] == {"zone": "z1"}
    assert env_of(container(pod, "primary"))["FOO"] == "3"
    assert pod["spec"]["tolerations"]  # ... the cluster template is not
    assert job.override is None  # with_overrides returns a copy


def test_cli_style_override_sits_above_task_override(render_pods) -> None:  # type: ignore[no-untyped-def]
    @task
    def job() -> None: ...

    task_override = job.with_overrides(pod_template=PodTemplate({"schedulerName": "a"}))
    pod = only_pod(render_pods(task_override, override=PodTemplate({"schedulerName": "b"})))
    assert pod["spec"]["schedulerName"] == "b"


def test_task_settings_beat_task_template(render_pods) -> None:  # type: ignore[no-untyped-def]
    template = PodTemplate({"containers": [{"name": "main", "image": "old:1",
                                            "env": [{"name": "A", "value": "t"}]}]},
                           primary_container_name="main")

    @task(pod_template=template, image="new:2", env={"A": "s"},
          requests=Resources(cpu="1", memory="1Gi"), limits=Resources(memory="2Gi"))
    def job() -> None: ...

    pod = only_pod(render_pods(job))
    main = pod["spec"]["containers"][0]
    assert main["name"] == "main" and main["image"] == "new:2"
    assert env_of(main) == {"A": "s"}
    # an unset limit is the request, as on Flyte (resolve/resources.py)
    assert main["resources"] == {"requests": {"cpu": "1", "memory": "1Gi"},
                                 "limits": {"memory": "2Gi", "cpu": "1"}}
    assert pod["metadata"]["annotations"]["kubectl.kubernetes.io/default-container"] == "main"


def test_gpu_maps_to_platform_name_with_limit_equal_request(render_pods) -> None:  # type: ignore[no-untyped-def]
    @task(requests=Resources(cpu="4", gpu=2))
    def job() -> None: ...

    platform = Platform(gpuResourceName="amd.com/gpu", defaultImage="python:3.11")
    resources = only_pod(render_pods(job, platform))["spec"]["containers"][0]["resources"]
    assert resources["requests"] == {"cpu": "4", "amd.com/gpu": "2"}
    assert resources["limits"] == {"cpu": "4", "amd.com/gpu": "2"}


def test_default_requests_fill_what_is_unset_and_each_limit_is_its_request(render_pods) -> None:  # type: ignore[no-untyped-def]
    @task(requests=Resources(cpu="3"))
    def job() -> None: ...

    platform = Platform(defaultImage="python:3.11", defaultResources={
        "requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"memory": "4Gi"}})
    resources = only_pod(render_pods(job, platform))["spec"]["containers"][0]["resources"]
    assert resources == {"requests": {"cpu": "3", "memory": "1Gi"},
                         "limits": {"cpu": "3", "memory": "1Gi"}}


def test_interruptible_adds_platform_fragment(render_pods) -> None:  # type: ignore[no-untyped-def]
    platform = Platform(defaultImage="python:3.11", interruptible={
        "tolerations": [{"key": "spot", "operator": "Exists"}], "nodeSelector": {"pool": "spot"}})

    @task(interruptible=True)
    def spot() -> None: ...

    @task
    def steady() -> None: ...

    spot_pod, steady_pod = render_pods([spot, steady], platform)
    assert spot_pod["spec"]["nodeSelector"] == {"pool": "spot"}
    assert "nodeSelector" not in steady_pod["spec"]


def test_magic_container_names_in_cluster_template(render_pods, templates_dir) -> None:  # type: ignore[no-untyped-def]
    folder = templates_dir({"m.yaml": """
        apiVersion: v1
        kind: PodTemplate
        metadata: {name: m}
        template:
          spec:
            containers:
              - {name: default, env: [{name: ALL, value: "1"}]}
              - {name: primary, env: [{name: ONLY_PRIMARY, value: "1"}]}
            initContainers:
              - {name: default-init, env: [{name: INIT, value: "1"}]}
        """})
    template = PodTemplate({
        "containers": [{"name": "work", "image": "w:1"}, {"name": "side", "image": "s:1"}],
        "initContainers": [{"name": "setup", "image": "i:1"}],
    }, primary_container_name="work")

    @task(pod_template_name="m", pod_template=template)
    def job() -> None: ...

    pod = only_pod(render_pods(job, Platform(templates=folder, defaultImage="python:3.11")))
    assert env_of(container(pod, "work")) == {"ALL": "1", "ONLY_PRIMARY": "1"}
    assert env_of(container(pod, "side")) == {"ALL": "1"}
    assert env_of(pod["spec"]["initContainers"][0]) == {"INIT": "1"}
    names = [c["name"] for c in pod["spec"]["containers"]]
    assert names == ["work", "side"] and "default" not in repr(names)


def test_system_labels_and_template_labels(render_pods, platform) -> None:  # type: ignore[no-untyped-def]
    @task(pod_template_name="base",
          pod_template=PodTemplate(labels={"owner": "me"}, annotations={"a": "b"}))
    def my_job() -> None: ...

    pod = only_pod(render_pods(my_job, platform))
    labels = pod["metadata"]["labels"]
    assert labels["team"] == "ml" and labels["owner"] == "me"
    assert labels["podtemplate.io/task"] == "my-job"
    assert labels["podtemplate.io/task-type"] == "python"
    assert labels["podtemplate.io/role"] == "pod"
    assert pod["metadata"]["annotations"]["a"] == "b"
    assert pod["metadata"]["name"] == "my-job"


def test_inputs_unchanged_and_copied_outputs_share_nothing(render_pods, platform) -> None:  # type: ignore[no-untyped-def]
    # Rendered manifests are read only (copy-on-write); copy=True gives independent ones.
    shared = PodTemplate({"tolerations": [{"key": "k", "operator": "Exists"}],
                          "containers": [{"name": "primary", "env": [{"name": "X", "value": "1"}]}]})
    before = copy.deepcopy(shared.pod_spec)

    @task(pod_template=shared, pod_template_name="base")
    def one() -> None: ...

    @task(pod_template=shared, pod_template_name="base")
    def two() -> None: ...

    first, second = render_pods([one, two], platform, copy=True)
    assert shared.pod_spec == before
    assert [first, second] == render_pods([one, two], platform)
    first["spec"]["tolerations"].append({"key": "leak"})
    container(first, "primary")["env"].append({"name": "LEAK", "value": "1"})
    assert {"key": "leak"} not in second["spec"]["tolerations"]
    assert "LEAK" not in env_of(container(second, "primary"))
    assert shared.pod_spec == before
    again = only_pod(render_pods(two, platform))
    assert again == second
    first["spec"]["tolerations"].clear()
    assert shared.pod_spec == before


def test_primary_container_comes_first(render_pods) -> None:  # type: ignore[no-untyped-def]
    template = PodTemplate({"containers": [{"name": "side", "image": "s:1"},
                                           {"name": "primary", "image": "p:1"}]})

    @task(pod_template=template)
    def job() -> None: ...

    pod = only_pod(render_pods(job))
    assert [c["name"] for c in pod["spec"]["containers"]] == ["primary", "side"]


# --- role layers (5, 6) and operator-owned fields (7), through a small test plugin ---


class Duo(ConfigModel):
    task_type: ClassVar[str] = "duo"
    leader: Role | None = None
    follower: Role | None = None


class DuoPlugin:
    @hookimpl
    def podtemplate_add_task_types(self) -> Sequence[TaskType]:
        return [TaskType(name="duo", distribution="duo-test", kind="Duo")]

    @hookimpl
    def podtemplate_define_roles(self, task, context):  # type: ignore[no-untyped-def]
        if task.task_type != "duo":
            return None
        operator = {"spec": {"containers": [{"name": "duo", "ports": [
            {"name": "duo", "containerPort": 7000}]}], "restartPolicy": "OnFailure"}}
        owned = (FieldDecl("spec.restartPolicy", "the operator restarts replicas"),)
        return [RoleSpec(name=name, template_path=f"spec.{name}.template", container_name="duo",
                         role=getattr(task.task_config, name), operator_layer=operator,
                         owned=owned) for name in ("leader", "follower")]

    @hookimpl
    def podtemplate_build_manifests(self, task, roles, pods, context):  # type: ignore[no-untyped-def]
        if task.task_type != "duo":
            return None
        manifest: dict[str, Any] = {"apiVersion": "test/v1", "kind": "Duo",
                                    "metadata": object_metadata(task, context)}
        for role in roles:
            place(manifest, role.template_path, pods[role.name])
        return [manifest]


def render_duo(job, **kwargs: Any) -> Mapping[str, dict[str, Any]]:  # type: ignore[no-untyped-def]
    from kubernetes.client import V1PodTemplateSpec

    manager = build_plugin_manager([DuoPlugin()])
    (manifest,) = render(job, platform=Platform(defaultImage="python:3.11"),
                         plugin_manager=manager, **kwargs)
    pods = {name: manifest["spec"][name]["template"] for name in ("leader", "follower")}
    for pod in pods.values():
        V1PodTemplateSpec.model_validate(pod)
    return pods


def test_role_template_and_settings_apply_to_their_role_only() -> None:
    follower = Role(pod_template=PodTemplate({"nodeSelector": {"gpu": "a100"}}),
                    env={"RANK": "follower"}, image="f:1", requests=Resources(cpu="2"))

    @task(task_config=Duo(follower=follower), env={"RANK": "any", "SHARED": "1"},
          pod_template=PodTemplate({"volumes": [{"name": "data", "emptyDir": {}}]}))
    def job() -> None: ...

    pods = render_duo(job)
    leader, follow = pods["leader"], pods["follower"]
    assert "nodeSelector" not in leader["spec"]
    assert follow["spec"]["nodeSelector"] == {"gpu": "a100"}
    assert env_of(container(follow, "duo")) == {"RANK": "follower", "SHARED": "1"}
    assert env_of(container(leader, "duo")) == {"RANK": "any", "SHARED": "1"}
    assert container(follow, "duo")["image"] == "f:1"
    assert follow["spec"]["volumes"] == leader["spec"]["volumes"] == [
        {"name": "data", "emptyDir": {}}]


def test_operator_layer_wins_and_renames_primary() -> None:
    template = PodTemplate({"restartPolicy": "Never", "containers": [
        {"name": "side", "image": "s:1"},
        {"name": "trainer", "image": "t:1", "ports": [{"containerPort": 9000}]}]},
        primary_container_name="trainer")

    @task(task_config=Duo(), pod_template=template)
    def job() -> None: ...

    pods = render_duo(job)
    for pod in pods.values():
        names = [c["name"] for c in pod["spec"]["containers"]]
        assert names == ["duo", "side"]
        assert pod["spec"]["restartPolicy"] == "OnFailure"
        ports = container(pod, "duo")["ports"]
        assert {"containerPort": 9000} in ports and {"name": "duo", "containerPort": 7000} in ports
        assert pod["metadata"]["labels"]["podtemplate.io/role"] in ("leader", "follower")


def test_provenance_names_the_layer_of_each_value(platform) -> None:  # type: ignore[no-untyped-def]
    from podtemplate.dispatch import define_roles
    from podtemplate.render import make_context
    from podtemplate.resolve.pod import resolve_pod

    @task(pod_template_name="base", env={"FOO": "2"})
    def job() -> None: ...

    context = make_context(platform=platform)
    (role,) = define_roles(job, context)
    provenance: dict[str, str] = {}
    resolve_pod(job, role, context, provenance=provenance)
    assert provenance["spec.containers[primary].env[FOO].value"] == "task settings"
    assert provenance["spec.containers[primary].env[CLUSTER].value"] == \
        "cluster template platform/base"
    assert provenance["spec.containers[primary].command"] == "operator (python)"


def test_scheduling_role_takes_placement_but_no_task_resources(templates_dir) -> None:  # type: ignore[no-untyped-def]
    from podtemplate.render import make_context

    folder = templates_dir({"gpu.yaml": """
        apiVersion: v1
        kind: PodTemplate
        metadata: {name: gpu}
        template:
          spec:
            nodeSelector: {pool: gpu}
            containers:
              - {name: primary, resources: {limits: {nvidia.com/gpu: "1"}}}
        """})
    context = make_context(platform=Platform(templates=folder, defaultImage="python:3.11"))

    @task(pod_template_name="gpu", requests=Resources(cpu="8", gpu=1),
          pod_template=PodTemplate({"tolerations": [{"key": "gpu", "operator": "Exists"}],
                                    "hostIPC": True}))
    def job() -> None: ...

    helper = RoleSpec(name="helper", template_path="", inherit="scheduling", operator_layer={
        "spec": {"containers": [{"name": "primary", "image": "helper:1"}]}})
    pod = resolve_pod(job, helper, context)
    assert pod["spec"]["nodeSelector"] == {"pool": "gpu"}
    assert pod["spec"]["tolerations"] == [{"key": "gpu", "operator": "Exists"}]
    assert "hostIPC" not in pod["spec"]
    assert "resources" not in pod["spec"]["containers"][0]


def test_default_image_fills_but_never_overrides_a_template_image(render_pods) -> None:  # type: ignore[no-untyped-def]
    platform = Platform(defaultImage="default:1")

    @task(pod_template=PodTemplate({"containers": [{"name": "primary", "image": "tpl:1"}]}))
    def templated() -> None: ...

    @task
    def bare() -> None: ...

    @task(image="own:1", pod_template=PodTemplate({"containers": [
        {"name": "primary", "image": "tpl:1"}]}))
    def own() -> None: ...

    images = [pod["spec"]["containers"][0]["image"]
              for pod in render_pods([templated, bare, own], platform)]
    assert images == ["tpl:1", "default:1", "own:1"]

"""Policy in the render: locked fields, enforce, registries and ceilings at every layer,
the operator's declared needs, policy plugins, and every violation of a render listed."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from kubernetes.client import V1PodTemplateSpec
from podtemplate import (
    ConfigModel,
    FieldDecl,
    Platform,
    PodTemplate,
    Resources,
    Role,
    RoleSpec,
    Task,
    TaskType,
    hookimpl,
    object_metadata,
    place,
    resolve_pod,
    task,
)
from podtemplate.context import RenderWarning
from podtemplate.dispatch import build_plugin_manager, define_roles
from podtemplate.errors import PolicyViolationError
from podtemplate.plugin import NOT_SET, PolicySubject, Violation
from podtemplate.policy import Policy
from podtemplate.render import iter_render, make_context
from podtemplate.testing import assert_valid_pod, container, env_of
from podtemplate.testing.policy_kit import write_templates


class Pair(ConfigModel):
    task_type: ClassVar[str] = "pair"
    leader: Role | None = None
    follower: Role | None = None


class PairPlugin:
    """Two roles whose operator names the primary container ``pair``; the ``hostnet``
    type's operator needs the node's network and says so."""

    @hookimpl
    def podtemplate_add_task_types(self) -> Sequence[TaskType]:
        return [TaskType(name="pair", distribution="pair-test", kind="Pair"),
                TaskType(name="hostnet", distribution="pair-test", kind="Pair")]

    @hookimpl
    def podtemplate_define_roles(self, task, context):  # type: ignore[no-untyped-def]
        if task.task_type not in ("pair", "hostnet"):
            return None
        spec: dict[str, Any] = {"containers": [{"name": "pair", "ports": [
            {"containerPort": 7000}]}]}
        owned = [FieldDecl("spec.containers[primary].ports", "the peers talk on 7000")]
        if task.task_type == "hostnet":
            spec["hostNetwork"] = True
            owned.append(FieldDecl("spec.hostNetwork", "the fabric needs the node's network"))
        config = task.task_config or Pair()
        return [RoleSpec(name=name, template_path=f"spec.{name}.template", container_name="pair",
                         role=getattr(config, name), operator_layer={"spec": spec},
                         owned=tuple(owned)) for name in ("leader", "follower")]

    @hookimpl
    def podtemplate_build_manifests(self, task, roles, pods, context):  # type: ignore[no-untyped-def]
        if task.task_type not in ("pair", "hostnet"):
            return None
        manifest: dict[str, Any] = {"apiVersion": "test/v1", "kind": "Pair",
                                    "metadata": object_metadata(task, context)}
        for role in roles:
            place(manifest, role.template_path, pods[role.name])
        return [manifest]


MANAGER = build_plugin_manager([PairPlugin()])
IMAGE = "ghcr.io/acme/python:3.11"


def pair_task(**roles: Role) -> Task:
    return Task(name="pair-job", task_type="pair", image=IMAGE, task_config=Pair(**roles))


@pytest.fixture
def templates(tmp_path: Path) -> Path:
    folder = write_templates(tmp_path / "templates")
    (folder / "admin.yaml").write_text(
        "apiVersion: v1\nkind: PodTemplate\nmetadata: {name: admin}\ntemplate:\n  spec:\n"
        "    serviceAccountName: ml-runner\n    automountServiceAccountToken: true\n"
        "    containers: [{name: primary, env: [{name: HTTP_PROXY, value: cluster}]}]\n",
        encoding="utf-8")
    return folder


def make(templates: Path, **policy: Any) -> Platform:
    return Platform(templates=templates, defaultTemplate="secure", defaultImage=IMAGE,
                    policy=Policy(**policy))


def run(tasks: Task | list[Task], platform: Platform, override: PodTemplate | None = None,
        manager: Any = MANAGER) -> tuple[list[dict[str, Any]], list[Violation], list[RenderWarning]]:
    """Manifests (each pod validated), violations and warnings of one render."""
    context = make_context(platform=platform, override=override, plugin_manager=manager)
    try:
        manifests = list(iter_render([tasks] if isinstance(tasks, Task) else tasks, context))
    except PolicyViolationError as error:
        return [], error.violations, context.warnings
    for manifest in manifests:
        if manifest["kind"] == "Pod":
            assert_valid_pod(manifest)
        else:
            for role in ("leader", "follower"):
                V1PodTemplateSpec.model_validate(manifest["spec"][role]["template"])
    return manifests, [], context.warnings


def by_layer(violations: list[Violation], rule: str) -> dict[str, set[str]]:
    """Layer -> the roles whose pods broke ``rule`` because of it."""
    found: dict[str, set[str]] = {}
    for v in violations:
        if v.rule == rule:
            assert v.origin is not None, v
            found.setdefault(v.origin.layer, set()).add(v.role or "")
    return found


EVIL = PodTemplate({"serviceAccountName": "cluster-admin"})


# ------------------------------------------------------------------------------ locked


@pytest.mark.parametrize(("layer", "tasks", "override", "roles"), [
    ("task template", pair_task(), None, {"leader", "follower"}),
    ("run override", pair_task(), EVIL, {"leader", "follower"}),
    ("task override", pair_task().with_overrides(pod_template=EVIL), None,
     {"leader", "follower"}),
    ("role template (follower)", pair_task(follower=Role(pod_template=EVIL)), None,
     {"follower"}),
], ids=["task-template", "run-override", "task-override", "role-template"])
def test_a_locked_field_set_by_a_task_layer_is_a_violation(
        templates: Path, layer: str, tasks: Task, override: PodTemplate | None,
        roles: set[str]) -> None:
    if layer == "task template":
        tasks = Task(name="pair-job", task_type="pair", image=IMAGE, task_config=Pair(),
                     pod_template=EVIL)
    _, violations, _ = run(tasks, make(templates, locked=["spec.serviceAccountName"]), override)
    assert by_layer(violations, "locked") == {layer: roles}
    assert all(v.value == "cluster-admin" and v.path == "spec.serviceAccountName"
               for v in violations)


@pytest.mark.parametrize(("layer", "job"), [
    ("task settings", Task(name="pair-job", task_type="pair", image="ghcr.io/acme/other:1")),
    ("role settings (leader)", Task(name="pair-job", task_type="pair",
                                    task_config=Pair(leader=Role(image="ghcr.io/acme/l:1")))),
], ids=["task-settings", "role-settings"])
def test_a_locked_field_set_by_settings_is_a_violation(templates: Path, layer: str,
                                                      job: Task) -> None:
    _, violations, _ = run(job, make(templates, locked=["spec.containers[primary].image"]))
    assert layer in by_layer(violations, "locked")


def test_platform_layers_may_set_a_locked_field_and_the_task_may_repeat_it(
        templates: Path) -> None:
    platform = make(templates, locked=["spec.serviceAccountName",
                                       "spec.containers[primary].resources"],
                    enforce={"priorityClassName": "batch"})
    named = Task(name="pair-job", task_type="pair", image=IMAGE, task_config=Pair(),
                 pod_template_name="admin",
                 pod_template=PodTemplate({"serviceAccountName": "ml-runner"}))
    platform = platform.model_copy(update={"default_resources": platform.default_resources
                                           .model_copy(update={"requests": {"cpu": "1"}})})
    manifests, violations, _ = run(named, platform)
    assert violations == []
    template = manifests[0]["spec"]["leader"]["template"]
    assert template["spec"]["serviceAccountName"] == "ml-runner"
    # the limit is the request's, as on Flyte (resolve/resources.py)
    assert container(template, "pair")["resources"] == {"requests": {"cpu": "1"},
                                                        "limits": {"cpu": "1"}}


def test_removing_a_locked_field_is_a_violation(templates: Path) -> None:
    job = Task(name="pair-job", task_type="pair", image=IMAGE, task_config=Pair(),
               pod_template_name="admin",
               pod_template=PodTemplate({"serviceAccountName": None}))
    _, violations, _ = run(job, make(templates, locked=["spec.serviceAccountName"]))
    assert {(v.role, v.rule, v.value) for v in violations} == {
        ("leader", "locked", NOT_SET), ("follower", "locked", NOT_SET)}


# ----------------------------------------------------------------------------- enforce

ENFORCE = {"automountServiceAccountToken": False,
           "containers": [{"name": "default", "env": [{"name": "HTTP_PROXY",
                                                       "value": "http://proxy:3128"}]}]}
TRUE = PodTemplate({"automountServiceAccountToken": True})


@pytest.mark.parametrize(("layer", "field", "job", "override"), [
    ("task template", "spec.automountServiceAccountToken",
     Task(name="pair-job", task_type="pair", image=IMAGE, pod_template=TRUE), None),
    ("run override", "spec.automountServiceAccountToken", pair_task(), TRUE),
    ("role template (follower)", "spec.automountServiceAccountToken",
     pair_task(follower=Role(pod_template=TRUE)), None),
    ("task settings", "spec.containers[pair].env[HTTP_PROXY].value",
     Task(name="pair-job", task_type="pair", image=IMAGE, env={"HTTP_PROXY": "mine"}), None),
    ("role settings (leader)", "spec.containers[pair].env[HTTP_PROXY].value",
     pair_task(leader=Role(env={"HTTP_PROXY": "mine"})), None),
], ids=["task-template", "run-override", "role-template", "task-settings", "role-settings"])
def test_enforce_wins_over_every_task_layer_with_a_warning_naming_it(
        templates: Path, layer: str, field: str, job: Task, override: PodTemplate | None
        ) -> None:
    manifests, violations, warnings = run(job, make(templates, enforce=ENFORCE), override)
    assert violations == []
    for role in ("leader", "follower"):
        pod = manifests[0]["spec"][role]["template"]
        assert pod["spec"]["automountServiceAccountToken"] is False
        assert env_of(container(pod, "pair"))["HTTP_PROXY"] == "http://proxy:3128"
    assert warnings, "a replaced task value warns"
    for warning in warnings:
        assert warning.field == field and layer in warning.message
        assert "policy enforces" in warning.message and warning.task == "pair-job"


def test_enforce_replacing_a_platform_value_does_not_warn(templates: Path) -> None:
    job = Task(name="pair-job", task_type="pair", image=IMAGE, pod_template_name="admin",
               pod_template=PodTemplate({"containers": [{"name": "side", "image": IMAGE}]}))
    manifests, _, warnings = run(job, make(templates, enforce=ENFORCE))
    assert warnings == []
    pod = manifests[0]["spec"]["leader"]["template"]
    assert pod["spec"]["automountServiceAccountToken"] is False
    for name in ("pair", "side"):  # default reaches every container
        assert env_of(container(pod, name))["HTTP_PROXY"] == "http://proxy:3128"


def test_provenance_names_the_policy_layer(templates: Path) -> None:
    job = pair_task()
    context = make_context(platform=make(templates, enforce=ENFORCE), plugin_manager=MANAGER)
    role = define_roles(job, context)[0]
    recorded: dict[str, str] = {}
    resolve_pod(job, role, context, provenance=recorded)
    assert recorded["spec.automountServiceAccountToken"] == "policy"
    assert recorded["spec.containers[pair].env[HTTP_PROXY].value"] == "policy"


# ------------------------------------------------------------------ registries, ceilings

SIDE = {"name": "side", "image": "docker.io/evil/side:1"}


@pytest.mark.parametrize(("layer", "job", "override"), [
    ("task settings", Task(name="pair-job", task_type="pair", image="docker.io/evil/x:1"),
     None),
    ("task template", Task(name="pair-job", task_type="pair", image=IMAGE, pod_template=PodTemplate(
        {"initContainers": [SIDE]})), None),
    ("run override", pair_task(), PodTemplate({"containers": [SIDE]})),
    ("role template (leader)", pair_task(leader=Role(pod_template=PodTemplate(
        {"containers": [SIDE]}))), None),
    ("role settings (follower)", pair_task(follower=Role(image="docker.io/evil/x:1")), None),
], ids=["task-settings", "task-template-init", "run-override", "role-template", "role-settings"])
def test_every_image_of_every_layer_must_come_from_an_allowed_registry(
        templates: Path, layer: str, job: Task, override: PodTemplate | None) -> None:
    _, violations, _ = run(job, make(templates, allowedRegistries=["ghcr.io/acme/"]), override)
    assert list(by_layer(violations, "allowedRegistries")) == [layer]
    assert all(v.value.startswith("docker.io/evil/") for v in violations)


BIG = {"resources": {"limits": {"cpu": "64", "memory": "1Ti"}}}


@pytest.mark.parametrize(("layer", "job", "override"), [
    ("task settings", Task(name="pair-job", task_type="pair", image=IMAGE,
                           requests=Resources(cpu="6")), None),
    ("task template", Task(name="pair-job", task_type="pair", image=IMAGE, pod_template=PodTemplate(
        {"containers": [{**SIDE, "image": IMAGE, **BIG}]})), None),
    ("run override", pair_task(), PodTemplate({"containers": [{"name": "primary", **BIG}]})),
    ("role template (follower)", pair_task(follower=Role(pod_template=PodTemplate(
        {"initContainers": [{"name": "warm", "image": IMAGE, **BIG}]}))), None),
    ("role settings (leader)", pair_task(leader=Role(limits=Resources(memory="9Gi"))), None),
], ids=["task-settings", "task-template", "run-override", "role-template", "role-settings"])
def test_no_request_or_limit_of_any_layer_may_pass_the_ceiling(
        templates: Path, layer: str, job: Task, override: PodTemplate | None) -> None:
    _, violations, _ = run(job, make(templates, maxResources={"cpu": "4", "memory": "8Gi"}),
                           override)
    assert list(by_layer(violations, "maxResources")) == [layer]


# ------------------------------------------------------------- operators and plugins


def test_an_operator_need_the_standard_forbids_is_reported_with_its_reason(
        templates: Path) -> None:
    job = Task(name="fabric", task_type="hostnet", image=IMAGE)
    _, violations, _ = run(job, make(templates, podSecurity="baseline"))
    assert {v.role for v in violations} == {"leader", "follower"}
    for violation in violations:
        assert violation.path == "spec.hostNetwork" and violation.rule == "baseline: hostNamespaces"
        assert violation.origin is not None and violation.origin.layer == "operator (hostnet)"
        assert "task type 'hostnet' sets this field itself" in violation.fix
        assert "the fabric needs the node's network" in str(violation)


def test_a_compliant_cluster_template_makes_operator_fields_pass_restricted(
        templates: Path) -> None:
    _, violations, _ = run(pair_task(), make(templates, podSecurity="restricted"))
    assert violations == []


class NoLatestTag:
    """An organisation's own rule, as a plugin."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    @hookimpl
    def podtemplate_check_policy(self, subject: PolicySubject, context: Any
                                 ) -> list[Violation]:
        self.seen.append((subject.task, subject.role))
        return [Violation(f"spec.containers[{c['name']}].image", "acme: pinned tags",
                          c["image"], "pin a version") for c in subject.pod["spec"]["containers"]
                if c["image"].endswith(":latest")]


def test_a_plugin_adds_its_own_check_on_every_role(templates: Path) -> None:
    rule = NoLatestTag()
    manager = build_plugin_manager([PairPlugin(), rule])
    job = pair_task(follower=Role(image="ghcr.io/acme/app:latest"))
    _, violations, _ = run(job, make(templates), manager=manager)
    assert sorted(rule.seen) == [("pair-job", "follower"), ("pair-job", "leader")]
    (violation,) = violations
    assert violation.role == "follower" and violation.rule == "acme: pinned tags"
    assert violation.origin is not None and violation.origin.layer == "role settings (follower)"


def test_every_violation_of_every_task_is_listed_and_nothing_is_output(
        templates: Path) -> None:
    @task(image=IMAGE, pod_template=PodTemplate({"hostPID": True, "containers": [
        {"name": "primary", "securityContext": {"privileged": True}}]}))
    def first() -> None: ...

    @task(image="docker.io/x:1")
    def second() -> None: ...

    @task(image=IMAGE)
    def clean() -> None: ...

    context = make_context(platform=make(templates, podSecurity="baseline",
                                         allowedRegistries=["ghcr.io/"]),
                           plugin_manager=MANAGER)
    produced: list[dict[str, Any]] = []
    with pytest.raises(PolicyViolationError) as raised:
        for manifest in iter_render([clean, first, second, clean], context):
            produced.append(manifest)
    assert [m["metadata"]["name"] for m in produced] == ["clean"]
    lines = raised.value.lines()
    assert sorted((v.task, v.rule) for v in raised.value.violations) == [
        ("first", "baseline: hostNamespaces"), ("first", "baseline: privileged"),
        ("second", "allowedRegistries")]
    assert len(lines) == 3 and all("\n" not in line for line in lines)
    assert any("spec.containers[primary].securityContext.privileged: baseline: privileged: "
               "value true, set by task template" in line for line in lines)


def test_violation_lines_name_task_role_path_rule_value_layer_and_file(
        templates: Path, tmp_path: Path) -> None:
    override = tmp_path / "override.yaml"
    override.write_text("apiVersion: v1\nkind: PodTemplate\ntemplate:\n  spec:\n    hostIPC: true\n",
                        encoding="utf-8")
    _, violations, _ = run(pair_task(), make(templates, podSecurity="baseline"),
                           PodTemplate.from_yaml(override))
    line = str(violations[0])
    assert line.startswith("task 'pair-job', role 'leader', spec.hostIPC: "
                           "baseline: hostNamespaces: value true, set by run override (")
    assert str(override) in line and "(fix: remove hostIPC" in line


def test_a_default_entry_reaches_every_container_and_each_is_reported(templates: Path) -> None:
    job = Task(name="pair-job", task_type="pair", image=IMAGE, pod_template=PodTemplate({
        "containers": [{"name": "default", "securityContext": {"privileged": True}},
                       {"name": "side", "image": IMAGE}]}))
    _, violations, _ = run(job, make(templates, podSecurity="baseline"))
    assert sorted((v.role, v.path) for v in violations) == [
        (role, f"spec.containers[{name}].securityContext.privileged")
        for role in ("follower", "leader") for name in ("pair", "side")]
    assert {v.origin and v.origin.layer for v in violations} == {"task template"}


def test_the_platform_default_image_is_attributed_to_platform_yaml(templates: Path) -> None:
    job = Task(name="pair-job", task_type="pair", task_config=Pair())
    platform = make(templates, allowedRegistries=["registry.acme.io/"])
    _, violations, _ = run(job, platform)
    assert {(v.role, v.value, v.origin and v.origin.layer) for v in violations} == {
        ("leader", IMAGE, "platform defaultImage"), ("follower", IMAGE, "platform defaultImage")}


def test_without_a_policy_nothing_is_judged_away(templates: Path) -> None:
    job = Task(name="pair-job", task_type="pair", image="docker.io/anything:latest",
               pod_template=PodTemplate({"hostNetwork": True}))
    manifests, violations, _ = run(job, Platform(defaultImage=IMAGE))
    assert violations == [] and manifests[0]["spec"]["leader"]["template"]["spec"]["hostNetwork"]




def test_every_layer_is_attributed_by_its_kind() -> None:
    from podtemplate.policy.attribution import owner_of
    from podtemplate.resolve import kinds
    from podtemplate.resolve.layers import Layer
    from podtemplate.resolve.pod import LAYER_ORDER

    assert [kind for kind, _ in LAYER_ORDER] == list(kinds.KINDS[:len(LAYER_ORDER)])

    def owner(kind: kinds.LayerKind) -> str:
        return owner_of(Layer(kind.name, {}, kind=kind))

    assert owner(kinds.CLUSTER_TEMPLATE) == owner(kinds.ROLE_CLUSTER_TEMPLATE) == "platform"
    assert owner(kinds.ROLE_TEMPLATE) == owner(kinds.RUN_OVERRIDE) == "task"
    assert owner(kinds.OPERATOR) == "operator"
    assert owner(kinds.POLICY) == "policy"

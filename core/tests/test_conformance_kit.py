"""The conformance kit fails deliberately broken plugins, naming plugin, role, field path
and layer in every message, and passes the built-in Python task type."""

from __future__ import annotations

import copy
import dataclasses
import subprocess
import sys
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import pytest
from podtemplate import (
    ConfigModel,
    FieldDecl,
    PodTemplate,
    RenderContext,
    Role,
    RoleSpec,
    Task,
    TaskType,
    WhenField,
    hookimpl,
    object_metadata,
    pod_manifest,
)
from podtemplate.conformance.duplicates import duplicate_findings
from podtemplate.conformance.oracle import config_at, filled_in, role_config_paths
from podtemplate.conformance.pod_checks import crd_findings, crd_missing_reason, shape_findings
from podtemplate.errors import DefinitionError
from podtemplate.model.roles import covers
from podtemplate.schemas import shipped_crd
from podtemplate.testing import LAYER_NAMES, LAYERS, Kit

PYTORCH_CRD = "podtemplate_pytorch:crds/kubeflow.org_pytorchjobs.json"


class PairConfig(ConfigModel):
    """Two roles, each with its own role template."""

    task_type: ClassVar[str]
    leader: Role = Role()
    follower: Role = Role()


class FixturePlugin:
    """A two-role task type emitting one v1 Pod per role; subclasses break it."""

    name = "pair"
    kind, api_version = "Pod", "v1"
    crds: tuple[str, ...] = ()

    def config(self, role_templates: Mapping[str, PodTemplate]) -> ConfigModel:
        config_class = type(f"{self.name.title()}Config", (PairConfig,),
                            {"__annotations__": {"task_type": ClassVar[str]},
                             "task_type": self.name})
        return config_class(**{role: Role(pod_template=role_templates.get(role))
                               for role in ("leader", "follower")})

    @hookimpl
    def podtemplate_add_task_types(self) -> Sequence[TaskType]:
        return [TaskType(self.name, distribution=f"podtemplate-{self.name}", kind=self.kind,
                         api_version=self.api_version, crds=self.crds)]

    @hookimpl
    def podtemplate_make_sample_task(self, task_type: str, pod_template: PodTemplate | None,
                                     pod_template_name: str | None,
                                     role_templates: Mapping[str, PodTemplate]) -> Task | None:
        if task_type != self.name:
            return None
        return Task(name=f"sample-{self.name}", task_type=self.name, image="busybox:1",
                    env={"SAMPLE": "1"}, pod_template=pod_template,
                    pod_template_name=pod_template_name,
                    task_config=self.config(role_templates))

    def roles(self, task: Task) -> list[RoleSpec]:
        return [RoleSpec(name=role, template_path="", role=getattr(task.task_config, role))
                for role in ("leader", "follower")]

    @hookimpl
    def podtemplate_define_roles(self, task: Task, context: RenderContext
                                 ) -> list[RoleSpec] | None:
        return self.roles(task) if task.task_type == self.name else None

    def build(self, task: Task, pods: Mapping[str, dict[str, Any]],
              context: RenderContext) -> list[dict[str, Any]]:
        return [pod_manifest(task, pods[role], context, name=f"{task.name}-{role}")
                for role in ("leader", "follower")]

    @hookimpl
    def podtemplate_build_manifests(self, task: Task, roles: Sequence[RoleSpec],
                                    pods: Mapping[str, dict[str, Any]],
                                    context: RenderContext) -> list[dict[str, Any]] | None:
        return self.build(task, pods, context) if task.task_type == self.name else None


class DropsTolerations(FixturePlugin):
    """Loses the tolerations of the follower's pod while building its manifest."""

    name = "drops-tolerations"

    def build(self, task: Task, pods: Mapping[str, dict[str, Any]],
              context: RenderContext) -> list[dict[str, Any]]:
        pods["follower"]["spec"].pop("tolerations", None)
        return super().build(task, pods, context)


class DuplicatesEnv(FixturePlugin):
    """Appends a copy of the primary container's first env var."""

    name = "duplicates-env"

    def build(self, task: Task, pods: Mapping[str, dict[str, Any]],
              context: RenderContext) -> list[dict[str, Any]]:
        primary = pods["leader"]["spec"]["containers"][0]  # the plugin's own to change
        primary["env"] = [*primary["env"], dict(primary["env"][0])]
        return super().build(task, pods, context)


class ColonLabel(FixturePlugin):
    """Labels the follower's pod with a value the API server refuses (a colon), as a Ray
    worker group's role name once did."""

    name = "colon-label"

    def build(self, task: Task, pods: Mapping[str, dict[str, Any]],
              context: RenderContext) -> list[dict[str, Any]]:
        pods["follower"]["metadata"]["labels"]["group"] = "worker:cpu"
        return super().build(task, pods, context)


class DeclaresTolerations(DropsTolerations):
    """Drops the follower's tolerations too, but declares it honestly."""

    name = "declares-tolerations"

    def roles(self, task: Task) -> list[RoleSpec]:
        leader, follower = super().roles(task)
        why = FieldDecl("spec.tolerations", "the follower runs on dedicated nodes")
        return [leader, dataclasses.replace(follower, unsupported=(why,))]


class BreaksCrd(FixturePlugin):
    """A PyTorchJob whose Worker replicas is a string and whose Worker pod carries a field
    the CRD does not know (its tolerations, misspelled)."""

    name = "breaks-crd"
    kind, api_version = "PyTorchJob", "kubeflow.org/v1"
    crds = (PYTORCH_CRD,)

    def roles(self, task: Task) -> list[RoleSpec]:
        return [RoleSpec(name=role, template_path=f"spec.pytorchReplicaSpecs.{key}.template",
                         container_name="pytorch", role=getattr(task.task_config, role))
                for role, key in (("leader", "Master"), ("follower", "Worker"))]

    def build(self, task: Task, pods: Mapping[str, dict[str, Any]],
              context: RenderContext) -> list[dict[str, Any]]:
        worker = pods["follower"]["spec"]
        if "tolerations" in worker:
            worker["tolerationz"] = worker.pop("tolerations")
        specs = {"Master": {"replicas": 1, "template": pods["leader"]},
                 "Worker": {"replicas": "two", "template": pods["follower"]}}
        return [{"apiVersion": self.api_version, "kind": self.kind,
                 "metadata": object_metadata(task, context),
                 "spec": {"pytorchReplicaSpecs": specs}}]


def messages(findings: Sequence[object]) -> list[str]:
    return [str(finding) for finding in findings]


# ------------------------------------------------------------------ the built-in type


def test_python_task_type_passes_with_nothing_lost() -> None:
    kit = Kit("python")
    outcomes = kit.outcomes()
    assert outcomes and not [o for o in outcomes if o.result == "lost"]
    assert {o.layer for o in outcomes if o.result == "reached"} == {"cluster", "task",
                                                                   "override"}
    assert not kit.unproven()
    assert not shape_findings(kit) and not kit.inputs_unmutated()


# ------------------------------------------------------------------ broken plugins


def test_dropped_tolerations_are_reported_for_that_role_at_every_layer() -> None:
    kit = Kit("drops-tolerations", extra_plugins=[DropsTolerations()])
    for layer in LAYERS:
        _, findings = kit.probe_layer(layer)
        assert [(f.role, f.field, f.layer) for f in findings] == [
            ("follower", "spec.tolerations", layer)]
        text = str(findings[0])
        for part in ("podtemplate-drops-tolerations", "role 'follower'", "spec.tolerations",
                     LAYER_NAMES[layer]):
            assert part in text, text
        assert "probe.podtemplate.io/tolerations" in text  # says what was expected


def test_declared_field_is_not_lost() -> None:
    kit = Kit("declares-tolerations", extra_plugins=[DeclaresTolerations()])
    outcomes = kit.outcomes()
    follower = {o.result for o in outcomes if o.role == "follower"
                and o.field == "spec.tolerations"}
    assert follower == {"unsupported"}
    assert not [o for o in outcomes if o.result == "lost"]


def test_duplicated_env_var_is_reported() -> None:
    # The render itself refuses what the build emits now (its changes are checked like
    # a template layer), so the kit reports a failed render naming role and field.
    kit = Kit("duplicates-env", extra_plugins=[DuplicatesEnv()])
    error = kit.baseline.error
    assert error is not None
    for part in ("role 'leader'", "spec.containers[0].env[SAMPLE]",
                 "the same key is given twice"):
        assert part in error, error
    _, findings = kit.probe_layer("task")
    assert findings and {f.check for f in findings} == {"render"}
    [duplicate] = [f for f in duplicate_findings(kit) if f.layer == "baseline"]
    assert duplicate.check == "duplicate-key" and duplicate.role == "leader"
    assert duplicate.field == "spec.containers[0].env[SAMPLE]", duplicate


def test_a_label_the_api_server_refuses_is_reported() -> None:
    # The render itself refuses the pod now (the API-server checks of the final pod), so
    # the kit reports it as a failed render naming role, field and rule.
    kit = Kit("colon-label", extra_plugins=[ColonLabel()])
    error = kit.baseline.error
    assert error is not None
    for part in ("role 'follower'", "metadata.labels.group", "'worker:cpu'",
                 "IsValidLabelValue"):
        assert part in error, error
    _, findings = kit.probe_layer("task")
    assert findings and {f.check for f in findings} == {"render"}


def test_label_syntax_problems_names_the_refused_label() -> None:
    from podtemplate.conformance.pod_checks import label_syntax_problems

    assert [key for key, _ in label_syntax_problems(
        {"group": "worker:cpu", "ok": "worker-cpu", "bad key!": "x"})] == ["group", "bad key!"]


def test_crd_violations_are_reported_against_the_real_crd() -> None:
    kit = Kit("breaks-crd", extra_plugins=[BreaksCrd()])
    found = crd_findings(kit)
    replicas = [f for f in found if "spec.pytorchReplicaSpecs.Worker.replicas" in f.message]
    assert replicas and "must be of type integer" in replicas[0].message
    assert replicas[0].role == "follower" and replicas[0].layer in LAYERS
    # A field the build puts in a pod is judged like a template's: the render refuses
    # the misspelled one (the CRD would prune it), naming the role and the field.
    _, probe = kit.probe_layer("task")
    assert {f.check for f in probe} == {"render"}
    text = str(probe[0])
    for part in ("podtemplate-breaks-crd", "role 'follower'", "spec.tolerationz",
                 "unknown field"):
        assert part in text, text


class UndeclaredCrd(FixturePlugin):
    """A custom resource type that ships no CRD for its kind."""

    name = "undeclared-crd"
    kind, api_version = "PyTorchJob", "kubeflow.org/v1"
    crds = ()


def test_no_crd_no_green() -> None:
    """Without its CRD a task type is unverified: the report fails unless allowed, and
    the conformance kit says why."""
    from podtemplate.coverage.matrix import coverage
    from podtemplate.coverage.text import to_markdown, to_table

    kit = Kit("undeclared-crd", extra_plugins=[UndeclaredCrd()])
    reason = crd_missing_reason(kit) or ""
    assert "declares no CRD for kubeflow.org/v1 PyTorchJob" in reason
    assert "podtemplate crd slim" in reason and "crds=" in reason
    assert crd_findings(kit) == []
    assert crd_missing_reason(Kit("breaks-crd", extra_plugins=[BreaksCrd()])) is None
    plugin = UndeclaredCrd()
    report = coverage([plugin.name], extra_plugins=[plugin])
    [result] = report.plugins
    assert "declares no CRD" in result.unverified
    assert not result.failed and report.failed, result.problems
    assert "undeclared-crd (unverified)" in to_table(report)
    assert "| undeclared-crd (unverified) |" in to_markdown(report)
    assert not coverage([plugin.name], extra_plugins=[plugin], allow_unverified=True).failed


def test_field_the_crd_would_prune_is_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    real = shipped_crd(PYTORCH_CRD)
    schema = copy.deepcopy(dict(real.versions["v1"]))
    replica = schema["properties"]["spec"]["properties"]["pytorchReplicaSpecs"]
    pod_spec = replica["additionalProperties"]["properties"]["template"]["properties"]["spec"]
    del pod_spec["properties"]["hostAliases"]  # as an older operator's CRD would lack it
    trimmed = dataclasses.replace(real, versions={"v1": schema})
    monkeypatch.setattr("podtemplate.conformance.pod_checks.crd_index",
                        lambda *_: {("kubeflow.org", "PyTorchJob"): trimmed})

    class Faithful(BreaksCrd):
        name = "faithful-job"

        def build(self, task: Task, pods: Mapping[str, dict[str, Any]],
                  context: RenderContext) -> list[dict[str, Any]]:
            specs = {"Master": {"replicas": 1, "template": pods["leader"]},
                     "Worker": {"replicas": 2, "template": pods["follower"]}}
            return [{"apiVersion": self.api_version, "kind": self.kind,
                     "metadata": object_metadata(task, context),
                     "spec": {"pytorchReplicaSpecs": specs}}]

    kit = Kit("faithful-job", extra_plugins=[Faithful()])
    _, findings = kit.probe_layer("cluster")
    assert {(f.role, f.field) for f in findings} == {("leader", "spec.hostAliases"),
                                                     ("follower", "spec.hostAliases")}
    assert all("prunes spec.pytorchReplicaSpecs." in f.message for f in findings)
    assert not crd_findings(kit)


# ------------------------------------------------------------------ declarations


class NativeAccount(FixturePlugin):
    """Moves the service account out of the pod into a manifest field, declared native."""

    name = "native-account"
    honest = True

    def roles(self, task: Task) -> list[RoleSpec]:
        why = FieldDecl("spec.serviceAccountName",
                        "native: metadata.annotations.account (the operator reads it there)")
        return [dataclasses.replace(role, owned=(why,)) for role in super().roles(task)]

    def build(self, task: Task, pods: Mapping[str, dict[str, Any]],
              context: RenderContext) -> list[dict[str, Any]]:
        manifests = super().build(task, pods, context)
        for manifest in manifests:
            account = manifest["spec"].pop("serviceAccountName", None)
            if account and self.honest:
                manifest["metadata"].setdefault("annotations", {})["account"] = account
        return manifests


class FakeNativeAccount(NativeAccount):
    name = "fake-native-account"
    honest = False


def test_native_mapping_is_checked_at_its_manifest_path() -> None:
    kit = Kit("native-account", extra_plugins=[NativeAccount()])
    results = {o.result for o in kit.outcomes() if o.field == "spec.serviceAccountName"}
    assert results == {"native"}
    fake = Kit("fake-native-account", extra_plugins=[FakeNativeAccount()])
    _, findings = fake.probe_layer("task")
    assert {(f.role, f.field) for f in findings} == {("leader", "spec.serviceAccountName"),
                                                     ("follower", "spec.serviceAccountName")}
    assert "metadata.annotations.account holds nothing" in findings[0].message


class SidecarsUnsupported(DropsTolerations):
    """Declares every container's tolerations... and resizePolicy, with a wildcard."""

    name = "wildcard"

    def roles(self, task: Task) -> list[RoleSpec]:
        why = (FieldDecl("spec.tolerations", "dedicated nodes"),
               FieldDecl("spec.containers[*].resizePolicy", "the operator resizes nothing"))
        return [dataclasses.replace(role, unsupported=why) for role in super().roles(task)]


def test_wildcard_declaration_covers_every_container() -> None:
    kit = Kit("wildcard", extra_plugins=[SidecarsUnsupported()])
    resize = {o.field: o.result for o in kit.outcomes() if o.field.endswith("resizePolicy")}
    assert resize == {"spec.containers[primary].resizePolicy": "unsupported",
                      "spec.containers[probe-sidecar].resizePolicy": "unsupported",
                      "spec.initContainers[probe-init].resizePolicy": "reached"}


class IgnoresRoleTemplates(FixturePlugin):
    name = "ignores-role-templates"

    def config(self, role_templates: Mapping[str, PodTemplate]) -> ConfigModel:
        return super().config({})


def test_sample_task_that_ignores_role_templates_is_reported() -> None:
    kit = Kit("ignores-role-templates", extra_plugins=[IgnoresRoleTemplates()])
    _, findings = kit.probe_layer("role")
    assert {(f.check, f.role) for f in findings} == {("sample", "leader"),
                                                     ("sample", "follower")}
    assert "ignored role_templates['leader']" in str(findings[0])


class RejectsHostNetwork(FixturePlugin):
    """Refuses any task whose own template asks for the host network."""

    name = "rejects-host-network"

    def roles(self, task: Task) -> list[RoleSpec]:
        if task.pod_template and task.pod_template.pod_spec.get("hostNetwork"):
            raise DefinitionError("hostNetwork is not allowed", field="spec.hostNetwork",
                                  fix="drop it")
        return super().roles(task)


def test_a_render_that_fails_loses_every_field_of_that_layer() -> None:
    kit = Kit("rejects-host-network", extra_plugins=[RejectsHostNetwork()])
    outcomes, findings = kit.probe_layer("task")
    main = {f.path for f in kit.probe.fields if f.variant == 0}
    lost = {o.field for o in outcomes if o.result == "lost"}
    assert lost == main
    assert [(f.check, f.layer) for f in findings if f.check == "render"] == [("render", "task")]
    assert "hostNetwork is not allowed" in str(findings[0])
    assert not [o for o in kit.probe_layer("cluster")[0] if o.result == "lost"]


@pytest.mark.parametrize(("declared", "path", "expected"), [
    ("spec.tolerations", "spec.tolerations", True),
    ("spec.tolerations", "spec.tolerationsX", False),
    ("spec.initContainers", "spec.initContainers[probe-init].image", True),
    ("spec.containers[*].ports", "spec.containers[probe-sidecar].ports", True),
    ("spec.containers[*].ports", "spec.initContainers[probe-init].ports", False),
    ("spec.containers[*].res", "spec.containers[primary].resources", False),
    ("spec.containers[primary].ports", "spec.containers[pytorch].ports", False),
])
def test_declared_paths_cover_their_fields(declared: str, path: str, expected: bool) -> None:
    assert covers(declared, path) is expected


def test_a_role_is_read_where_the_user_wrote_it() -> None:
    marker = PodTemplate({"nodeSelector": {"role": "w"}}, "primary")
    config = _Groups(groups=(Role(), Role(pod_template=marker, image="user:1")))
    paths = role_config_paths(config, {"w": marker})
    assert paths == {"w": ("groups", 1)}
    assert config_at(config, paths["w"]) is config.groups[1]
    assert config_at(_Groups(), paths["w"]) is None


def test_a_plugin_may_fill_in_a_setting_but_not_drop_one() -> None:
    user = Role(image="user:1")
    filled = filled_in(user, Role(env={"A": "1"}))
    assert filled is not None and (filled.image, filled.env) == ("user:1", {"A": "1"})
    assert filled_in(user, Role()) is user  # the plugin's empty Role changes nothing
    assert filled_in(user, Role(image="plugin:1")) is user  # the user's value stays


class _Groups(ConfigModel):
    groups: tuple[Role, ...] = ()


HOST_DNS = FieldDecl("spec.dnsPolicy", "the operator's", when=WhenField("spec.hostNetwork", True))


@pytest.mark.parametrize(("pod", "declared"), [
    ({"spec": {"hostNetwork": True}}, True),
    ({"spec": {"hostNetwork": False}}, False),
    ({"spec": {"hostNetwork": "true"}}, False),  # the value, and its type
    ({"spec": {}}, False),
    (None, True),  # no pod to judge by: counts as a plain declaration
])
def test_a_conditional_declaration_holds_where_its_condition_does(
        pod: dict[str, Any] | None, declared: bool) -> None:
    role = RoleSpec(name="r", template_path="", owned=(HOST_DNS,))
    assert (role.declared("spec.dnsPolicy", pod) is HOST_DNS) is declared


def test_a_condition_reads_the_primary_container_by_its_name() -> None:
    when = WhenField("spec.containers[primary].stdin", True)
    pod = {"spec": {"containers": [{"name": "side"}, {"name": "main", "stdin": True}]}}
    assert when.holds(pod, "main") and not when.holds(pod, "side")
    assert str(when) == "when spec.containers[primary].stdin is true"


def test_importing_the_kit_has_no_side_effects() -> None:
    code = ("import sys, podtemplate.testing as t; "
            "assert 'pytest' not in sys.modules, 'pytest imported'; "
            "assert 'podtemplate_pytorch' not in sys.modules, 'a plugin was loaded'; "
            "assert t.default_probe.cache_info().currsize == 0, 'probe built at import'")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)

"""The conformance kit alone catches realistic defects, planted one at a time.

``Mpi`` is a small MPIJob-style task type (a launcher and workers), written as a plugin
author would. It passes the kit; each variant below plants one defect in it, and core
defects are planted by patching core for one test. Every time, the kit's own findings
(nothing hand-written) must name the task type, the role, the field and the layer.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml
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
)
from podtemplate.testing import Finding, Kit, every_finding

CRD_PACKAGE = "podtemplate_mpi_test_crds"
CRD_FILE = "kubeflow.org_mpijobs.yaml"
REPLICA_TYPES = {"launcher": "Launcher", "worker": "Worker"}
CONTAINERS = {"launcher": "mpi-launcher", "worker": "mpi-worker"}


class MpiConfig(ConfigModel):
    task_type: ClassVar[str] = "mpi"
    launcher: Role = Role()
    worker: Role = Role(replicas=2)


class Mpi:
    """The example task type: an MPIJob with a launcher and workers."""

    name = "mpi"
    crd_file = CRD_FILE

    @property
    def crds(self) -> tuple[str, ...]:
        return (f"{CRD_PACKAGE}:{self.crd_file}",)

    @hookimpl
    def podtemplate_add_task_types(self) -> Sequence[TaskType]:
        return [TaskType(self.name, distribution="podtemplate-mpi", kind="MPIJob",
                         api_version="kubeflow.org/v2beta1", crds=self.crds)]

    @hookimpl
    def podtemplate_make_sample_task(self, task_type: str, pod_template: PodTemplate | None,
                                     pod_template_name: str | None,
                                     role_templates: Mapping[str, PodTemplate]) -> Task | None:
        if task_type != self.name:
            return None
        config = MpiConfig(launcher=Role(pod_template=role_templates.get("launcher")),
                           worker=Role(pod_template=role_templates.get("worker"), replicas=2))
        return Task(name="sample-mpi", task_type=self.name, image="mpioperator/base:1",
                    pod_template=pod_template, pod_template_name=pod_template_name,
                    task_config=config)

    def operator_layer(self, role: str, config: Role | None) -> dict[str, Any]:
        return {"spec": {"containers": [{"name": CONTAINERS[role]}]}}

    def owned(self, role: str) -> tuple[FieldDecl, ...]:
        return (FieldDecl("spec.containers[primary].name",
                          f"the MPI operator finds the {role} by its container name"),
                self.restart_policy(role))

    def restart_policy(self, role: str) -> FieldDecl:
        return FieldDecl("spec.restartPolicy", f"native: spec.mpiReplicaSpecs."
                         f"{REPLICA_TYPES[role]}.restartPolicy (the operator sets each pod's)")

    def role_config(self, config: MpiConfig, role: str) -> Role | None:
        return getattr(config, role)  # type: ignore[no-any-return]

    def roles(self, task: Task) -> list[RoleSpec]:
        config = task.task_config
        assert isinstance(config, MpiConfig)
        return [RoleSpec(name=role, template_path=f"spec.mpiReplicaSpecs.{kind}.template",
                         container_name=CONTAINERS[role], role=self.role_config(config, role),
                         operator_layer=self.operator_layer(role, getattr(config, role)),
                         owned=self.owned(role),
                         replicas_path=f"spec.mpiReplicaSpecs.{kind}.replicas"
                         if role == "worker" else None)
                for role, kind in REPLICA_TYPES.items()]

    @hookimpl
    def podtemplate_define_roles(self, task: Task, context: RenderContext
                                 ) -> list[RoleSpec] | None:
        return self.roles(task) if task.task_type == self.name else None

    def pod(self, pod: dict[str, Any]) -> dict[str, Any]:
        return pod

    def replica(self, pod: dict[str, Any], replicas: int) -> dict[str, Any]:
        """The replica spec: the pod's restartPolicy moves to it (the operator reads it
        there and overwrites the pod's)."""
        spec = dict(pod["spec"])
        policy = spec.pop("restartPolicy", None)
        replica = {"replicas": replicas, "template": self.pod({**pod, "spec": spec})}
        return {**replica, "restartPolicy": policy} if policy else replica

    @hookimpl
    def podtemplate_build_manifests(self, task: Task, roles: Sequence[RoleSpec],
                                    pods: Mapping[str, dict[str, Any]],
                                    context: RenderContext) -> list[dict[str, Any]] | None:
        if task.task_type != self.name:
            return None
        config = task.task_config
        assert isinstance(config, MpiConfig)
        replicas = {"launcher": 1, "worker": config.worker.replicas or 1}
        return [{"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob",
                 "metadata": object_metadata(task, context),
                 "spec": {"mpiReplicaSpecs": {
                     kind: self.replica(pods[role], replicas[role])
                     for role, kind in REPLICA_TYPES.items()}}}]


class LeaksWorkerRole(Mpi):
    """The launcher is given the worker's role config (a copy-paste slip)."""

    def role_config(self, config: MpiConfig, role: str) -> Role | None:
        return config.worker


class ForgetsRole(Mpi):
    """The RoleSpecs carry no role=: role templates and settings vanish."""

    def role_config(self, config: MpiConfig, role: str) -> Role | None:
        return None


class ReplacesRoleResources(Mpi):
    """Writes a role's requests itself, replacing what the layers below set."""

    def operator_layer(self, role: str, config: Role | None) -> dict[str, Any]:
        layer = super().operator_layer(role, config)
        if config is not None and config.requests is not None:
            layer["spec"]["containers"][0]["resources"] = {
                "$patch": "replace", "requests": config.requests.to_k8s()}
        return layer


class OwnsAffinity(Mpi):
    """Declares spec.affinity operator-owned and drops it."""

    def operator_layer(self, role: str, config: Role | None) -> dict[str, Any]:
        return {"spec": {**super().operator_layer(role, config)["spec"], "affinity": None}}

    def owned(self, role: str) -> tuple[FieldDecl, ...]:
        return (*super().owned(role), FieldDecl("spec.affinity", "the operator places pods"))


class PrimaryLast(Mpi):
    """Puts its own container after the template's sidecars."""

    def pod(self, pod: dict[str, Any]) -> dict[str, Any]:
        pod["spec"]["containers"].append(pod["spec"]["containers"].pop(0))
        return pod


class StripsRoleSettings(Mpi):
    """Rebuilds each role's config from its template and replicas: the role's own image,
    env and requests/limits are gone, and so is what RoleSpec.role says of them."""

    def role_config(self, config: MpiConfig, role: str) -> Role | None:
        given = getattr(config, role)
        return Role(pod_template=given.pod_template, replicas=given.replicas)


def _without_false(mapping: dict[str, Any], key: str) -> dict[str, Any]:
    """``mapping`` without ``key`` when it is false: a build that writes ``if value:``."""
    return {k: v for k, v in mapping.items() if k != key or v}


class DropsFalseAutomount(Mpi):
    """Copies automountServiceAccountToken only when it is true."""

    def pod(self, pod: dict[str, Any]) -> dict[str, Any]:
        return {**pod, "spec": _without_false(pod["spec"], "automountServiceAccountToken")}


class DropsFalseEscalation(Mpi):
    """Copies a container's allowPrivilegeEscalation only when it is true."""

    def pod(self, pod: dict[str, Any]) -> dict[str, Any]:
        containers = [{**c, "securityContext": _without_false(
            c["securityContext"], "allowPrivilegeEscalation")} if "securityContext" in c else c
            for c in pod["spec"]["containers"]]
        return {**pod, "spec": {**pod["spec"], "containers": containers}}


class HidesDropAsRuntime(Mpi):
    """Drops spec.affinity in its build, declared ``runtime:`` as if the operator set it."""

    def pod(self, pod: dict[str, Any]) -> dict[str, Any]:
        return {**pod, "spec": {k: v for k, v in pod["spec"].items() if k != "affinity"}}

    def owned(self, role: str) -> tuple[FieldDecl, ...]:
        return (*super().owned(role),
                FieldDecl("spec.affinity", "runtime: the MPI operator places the pods"))


class NativeNowhere(Mpi):
    """Declares schedulerName native at a path the MPIJob CRD does not have."""

    def owned(self, role: str) -> tuple[FieldDecl, ...]:
        return (*super().owned(role), FieldDecl(
            "spec.schedulerName", "native: spec.runPolicy.schedulingPolicy.scheduler"))


MCA_ENV = "OMPI_MCA_orte_keep_fqdn_hostnames"


class AppendsOwnEnv(Mpi):
    """Appends its own env var to the primary container, whatever the user's layers hold."""

    def pod(self, pod: dict[str, Any]) -> dict[str, Any]:
        primary, *rest = pod["spec"]["containers"]
        primary = {**primary, "env": [*primary.get("env", []),
                                      {"name": MCA_ENV, "value": "true"}]}
        return {**pod, "spec": {**pod["spec"], "containers": [primary, *rest]}}


class RestartPolicyOnPods(Mpi):
    """Leaves restartPolicy on the pods, undeclared: the operator overwrites it there."""

    def replica(self, pod: dict[str, Any], replicas: int) -> dict[str, Any]:
        return {"replicas": replicas, "template": self.pod(pod)}

    def owned(self, role: str) -> tuple[FieldDecl, ...]:
        return super().owned(role)[:1]


HOST_NETWORK_DNS = "ClusterFirstWithHostNet"


class HostNetworkDns(Mpi):
    """Writes dnsPolicy ClusterFirstWithHostNet on a host-network pod, as the operator
    would, declared for those pods only."""

    def pod(self, pod: dict[str, Any]) -> dict[str, Any]:
        if pod["spec"].get("hostNetwork") is not True:
            return pod
        return {**pod, "spec": {**pod["spec"], "dnsPolicy": HOST_NETWORK_DNS}}

    def owned(self, role: str) -> tuple[FieldDecl, ...]:
        return (*super().owned(role), FieldDecl(
            "spec.dnsPolicy", "the operator's DNS policy for a pod in the host network",
            when=WhenField("spec.hostNetwork", True)))


class DnsAlways(HostNetworkDns):
    """Writes that dnsPolicy on every pod, with the same conditional declaration."""

    def pod(self, pod: dict[str, Any]) -> dict[str, Any]:
        return {**pod, "spec": {**pod["spec"], "dnsPolicy": HOST_NETWORK_DNS}}


class NoCrd(Mpi):
    """Names a CRD that is not there."""

    crd_file = "kubeflow.org_mpijobs_v0.yaml"


@pytest.fixture(autouse=True)
def mpi_crd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A structural MPIJob CRD shipped by a package of its own (the kit prunes by it)."""
    template = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    replica = {"type": "object", "properties": {"replicas": {"type": "integer"},
                                                "restartPolicy": {"type": "string"},
                                                "template": template}}
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "mpiReplicaSpecs": {"type": "object", "additionalProperties": replica}}}}}
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "spec": {"group": "kubeflow.org", "names": {"kind": "MPIJob"}, "versions": [
               {"name": "v2beta1", "served": True, "schema": {"openAPIV3Schema": schema}}]}}
    package = tmp_path / CRD_PACKAGE
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / CRD_FILE).write_text(yaml.safe_dump(crd), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()


def findings_of(plugin: Mpi) -> list[Finding]:
    return every_finding(Kit("mpi", extra_plugins=[plugin]))


def assert_caught(findings: list[Finding], check: str, field: str, layer: str | None) -> None:
    """A finding of ``check`` whose message names the task type, a role, ``field`` and
    ``layer`` (None: a declaration's finding, which concerns no one layer)."""
    matching = [str(f) for f in findings if f.check == check and "task type 'mpi'" in str(f)
                and "role '" in str(f) and field in str(f)
                and (layer is None or f"layer {layer}" in str(f))]
    assert matching, "\n".join(map(str, findings)) or "the kit found nothing"


def test_the_example_task_type_passes_the_kit() -> None:
    assert findings_of(Mpi()) == []


@pytest.mark.parametrize(("plugin", "check", "field", "layer"), [
    (LeaksWorkerRole(), "roles", "RoleSpec.role", "role template (layer 5)"),
    (ForgetsRole(), "roles", "RoleSpec.role", "role template (layer 5)"),
    (ReplacesRoleResources(), "roles", "resources.requests.cpu",
     "task and role settings (layers 3, 6)"),
    (OwnsAffinity(), "declaration", "spec.affinity", "operator layer (layer 7)"),
    (PrimaryLast(), "primary", "spec.containers[0].name", "task template (layer 2)"),
    (StripsRoleSettings(), "roles", "spec.containers[primary].image",
     "task and role settings (layers 3, 6)"),
    (DropsFalseAutomount(), "probe", "spec.automountServiceAccountToken=false",
     "task template (layer 2)"),
    (DropsFalseEscalation(), "probe",
     "spec.containers[primary].securityContext.allowPrivilegeEscalation=false",
     "task template (layer 2)"),
    (HidesDropAsRuntime(), "declaration", "spec.affinity", "operator layer (layer 7)"),
    (NativeNowhere(), "declaration", "spec.schedulerName", None),
    (AppendsOwnEnv(), "duplicate-key", f"env[{MCA_ENV}]",
     "the plugin's build (podtemplate_build_manifests)"),
    (RestartPolicyOnPods(), "placement", "spec.restartPolicy", None),
    (DnsAlways(), "declaration", "spec.dnsPolicy", "task template (layer 2)"),
], ids=lambda value: type(value).__name__ if isinstance(value, Mpi) else None)
def test_the_kit_catches_a_plugin_defect(plugin: Mpi, check: str, field: str,
                                         layer: str) -> None:
    assert_caught(findings_of(plugin), check, field, layer)


def test_a_stripped_role_is_told_by_the_setting_it_lost() -> None:
    lost = [f for f in findings_of(StripsRoleSettings()) if f.check == "roles"]
    assert {f.field for f in lost} >= {"spec.containers[primary].image",
                                       "spec.containers[primary].env"}, lost


def test_a_duplicate_names_the_users_layer_and_the_build() -> None:
    found = [f for f in findings_of(AppendsOwnEnv()) if f.check == "duplicate-key"]
    assert found and all("task template (layer 2)" in f.message for f in found), found


def test_conditional_ownership_is_honoured() -> None:
    assert findings_of(HostNetworkDns()) == []


def test_without_its_crd_the_task_type_is_unverified() -> None:
    found = findings_of(NoCrd())
    assert [f.check for f in found] == ["unverified"], found
    assert "kubeflow.org_mpijobs_v0.yaml" in str(found[0]) and "cannot be read" in str(found[0])


# ------------------------------------------------------------------------ core defects


@pytest.fixture
def wrap(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Any, str, Any], None]]:
    """``wrap(module, name, make)`` replaces ``module.name`` by ``make(original)``."""
    def apply(module: Any, name: str, make: Any) -> None:
        monkeypatch.setattr(module, name, make(getattr(module, name)))
    yield apply


def _falsy_dropped(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _falsy_dropped(v) for k, v in value.items() if v not in (False, 0, "")}
    if isinstance(value, list):
        return [_falsy_dropped(v) for v in value]
    return value


def test_the_kit_catches_false_not_overriding(wrap: Any) -> None:
    for name in ("podtemplate.resolve.pod", "podtemplate.resolve._fast"):  # plain, fast
        wrap(importlib.import_module(name), "merge_into",
             lambda merge_into: lambda target, higher, **kw: merge_into(
                 target, _falsy_dropped(higher), **kw))
    assert_caught(findings_of(Mpi()), "precedence", "spec.hostNetwork",
                  "cluster template (layer 1) under task template (layer 2)")


def test_the_kit_catches_env_appended(monkeypatch: pytest.MonkeyPatch) -> None:
    from podtemplate.merge._list_rules import LIST_RULES

    merge = importlib.import_module("podtemplate.merge.engine")

    monkeypatch.setitem(LIST_RULES, "spec.containers[].env[]", {"strategy": "set"})
    merge._tree.cache_clear()
    merge._rules_at.cache_clear()
    try:
        assert_caught(findings_of(Mpi()), "precedence", ".env",
                      "cluster template (layer 1) under task template (layer 2)")
    finally:
        monkeypatch.undo()
        merge._tree.cache_clear()
        merge._rules_at.cache_clear()


def test_the_kit_catches_a_layer_losing_init_containers(wrap: Any) -> None:
    resolve = importlib.import_module("podtemplate.resolve.order")

    def drop(template_layer: Any) -> Any:
        def layer(kind: Any, label: str, template: PodTemplate, **kw: Any) -> Any:
            spec = {k: v for k, v in template.pod_spec.items() if k != "initContainers"}
            return template_layer(kind, label, PodTemplate(
                spec, template.primary_container_name, labels=template.labels,
                annotations=template.annotations), **kw)
        return layer

    wrap(resolve, "template_layer", drop)
    found = findings_of(Mpi())
    assert_caught(found, "probe", "spec.initContainers[probe-init]",
                  "cluster template (layer 1)")


def test_the_kit_catches_the_run_override_skipped(wrap: Any) -> None:
    resolve = importlib.import_module("podtemplate.resolve.pod")

    wrap(resolve, "build_layers", lambda build_layers: lambda task, role, context, primary:
         build_layers(task, role, dataclasses.replace(context, override=None), primary))
    found = findings_of(Mpi())
    assert_caught(found, "probe", "spec.tolerations", "run override (layer 4)")
    dropped = [f for f in found if f.field == "spec.tolerations" and f.check == "probe"]
    assert "the run override (layer 4) is dropped for this role" in dropped[0].message

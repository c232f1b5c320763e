"""`podtemplate explain` on one fixture with every layer: a named and a default cluster
template, platform defaults, an interruptible fragment, an inline task template, role
templates, a run override with `$patch: delete`, a null and falsy values.

Expected lines are not written down: each is looked up in the fixture's own text (the
line that holds a given snippet), so the test states *which* line must be named.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from podtemplate import PodTemplate, Resources, explain, render, task
from podtemplate.cli import main
from podtemplate.cli.targets import collect_tasks
from podtemplate.testing import assert_valid_custom_resource, assert_valid_pod

DEFAULT_TEMPLATE = """\
apiVersion: v1
kind: PodTemplate
metadata:
  name: default
template:
  metadata:
    labels:
      team: platform
  spec:
    priorityClassName: batch-default
    containers:
      - name: primary
        env:
          - name: CLUSTER
            value: from-default
      - name: default
        securityContext:
          allowPrivilegeEscalation: false
"""

# Two templates in one file: explain must name the line in the right document.
NAMED_TEMPLATES = """\
apiVersion: v1
kind: PodTemplate
metadata:
  name: cpu
template:
  spec:
    nodeSelector:
      pool: cpu
---
apiVersion: v1
kind: PodTemplate
metadata:
  name: gpu
template:
  metadata:
    labels:
      team: gpu-platform
    annotations:
      acme.io/owner: ml-platform
  spec:
    hostNetwork: true
    nodeSelector:
      pool: gpu
    securityContext:
      runAsUser: 1000
      fsGroup: 100
    affinity:
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
            - matchExpressions:
                - key: zone
                  operator: In
                  values: [a, b]
            - matchExpressions:
                - key: rack
                  operator: Exists
    tolerations:
      - key: nvidia.com/gpu
        operator: Exists
        effect: NoSchedule
    containers:
      - name: primary
        image: ghcr.io/acme/cuda:12
        env:
          - name: CLUSTER
            value: from-gpu
          - name: DEBUG
            value: "1"
      - name: log-shipper
        image: ghcr.io/acme/shipper:1
      - name: default
        terminationMessagePolicy: FallbackToLogsOnError
    initContainers:
      - name: default-init
        imagePullPolicy: IfNotPresent
      - name: fetch
        image: busybox:1.36
"""

PLATFORM = """\
templates: ./templates
fallbackNamespace: platform
defaultTemplate: default
defaultResources:
  requests:
    cpu: 250m
    memory: 512Mi
  limits:
    memory: 512Mi
interruptible:
  tolerations:
    - key: spot
      operator: Exists
      effect: NoSchedule
  nodeSelector:
    lifecycle: spot
"""

OVERRIDE = """\
apiVersion: v1
kind: PodTemplate
metadata:
  name: run
template:
  spec:
    hostNetwork: false
    nodeSelector:
      lifecycle: null
    securityContext:
      $patch: replace
      runAsNonRoot: true
    affinity:
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
            - matchExpressions:
                - key: zone
                  operator: In
                  values: [c]
    containers:
      - name: primary
        env:
          - name: DEBUG
            $patch: delete
          - name: EMPTY
            value: ""
"""

TASKS = '''\
from podtemplate import PodTemplate, Resources, Role, task
from podtemplate_pytorch import PyTorch

inline = PodTemplate(
    {"containers": [{"name": "main", "env": [{"name": "CLUSTER", "value": "from-inline"}]}],
     "terminationGracePeriodSeconds": 0},
    primary_container_name="main",
    labels={"team": "ml"},
)

worker = Role(
    replicas=2,
    pod_template=PodTemplate({"containers": [{"name": "primary",
                                               "env": [{"name": "ROLE", "value": "worker"}]}]}),
    requests=Resources(cpu="2"),
    env={"WORKER_ENV": "w"},
)


@task(
    image="ghcr.io/acme/train:1",
    env={"TASK_ENV": "t"},
    pod_template=inline,
    pod_template_name="gpu",
    interruptible=True,
    task_config=PyTorch(master=Role(pod_template_name="cpu"), worker=worker),
)
def train() -> None: ...


@task(image="python:3.11")
def plain() -> None: ...
'''


class Fixture:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.default = root / "templates" / "default.yaml"
        self.named = root / "templates" / "named.yaml"
        self.platform = root / "platform.yaml"
        self.override = root / "override.yaml"
        self.tasks = root / "explain_fixture_tasks.py"
        for path, text in ((self.default, DEFAULT_TEMPLATE), (self.named, NAMED_TEMPLATES),
                           (self.platform, PLATFORM), (self.override, OVERRIDE),
                           (self.tasks, TASKS)):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")

    def explained(self, **kwargs: Any) -> dict[str, Any]:
        return explain(collect_tasks([str(self.tasks)]), platform=self.platform,
                       override=self.override, **kwargs)


def line_of(path: Path, snippet: str, after: str | None = None) -> int:
    """The 1-based line of ``path`` holding ``snippet`` (the first after ``after``)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = 0
    if after is not None:
        start = next(i for i, text in enumerate(lines) if after in text) + 1
    return next(i + 1 for i, text in enumerate(lines) if i >= start and snippet in text)


def at(path: Path, line: int) -> dict[str, Any]:
    return {"file": str(path), "line": line}


def source_of(entry: dict[str, Any]) -> dict[str, Any] | None:
    """An entry's source with its file made absolute, to compare with the fixture's."""
    source = entry["source"]
    if source is None:
        return None
    return {"file": str(Path(source["file"]).resolve()), "line": source["line"]}


@pytest.fixture(scope="module")
def fixture(tmp_path_factory: pytest.TempPathFactory) -> Fixture:
    return Fixture(tmp_path_factory.mktemp("explain").resolve())


@pytest.fixture(scope="module")
def explained(fixture: Fixture) -> dict[str, Any]:
    return fixture.explained()


def role(explained: dict[str, Any], task: str, name: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [r for t in explained["tasks"] if t["task"] == task
                                   for r in t["roles"] if r["role"] == name]
    assert len(found) == 1
    return found[0]


def value(role_: dict[str, Any], path: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [v for v in role_["values"] if v["path"] == path]
    assert len(found) == 1, f"{path}: {[v['path'] for v in role_['values']]}"
    return found[0]


def removed(role_: dict[str, Any], path: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [v for v in role_["removed"] if v["path"] == path]
    assert len(found) == 1, f"{path}: {[v['path'] for v in role_['removed']]}"
    return found[0]


# ---------------------------------------------------------------- the final pod, all of it


def leaf_paths(value_: Any, path: str = "") -> Iterator[str]:
    """Every leaf of a rendered pod, spelled as explain spells it (test's own walk)."""
    keyed = {"containers": "name", "initContainers": "name", "env": "name", "volumes": "name",
             "volumeMounts": "mountPath"}
    if isinstance(value_, dict) and value_:
        for key, sub in value_.items():
            yield from leaf_paths(sub, f"{path}.{key}" if path else key)
    elif isinstance(value_, list) and value_ and isinstance(value_[0], dict):
        name = path.rsplit(".", 1)[-1]
        for pos, item in enumerate(value_):
            if name == "ports":
                key = f"{item['containerPort']},{item.get('protocol', 'TCP')}"
            else:
                key = item[keyed[name]] if name in keyed else pos
            yield from leaf_paths(item, f"{path}[{key}]")
    else:
        yield path


def test_every_leaf_of_every_rendered_pod_is_explained_once(fixture: Fixture,
                                                            explained: dict[str, Any]) -> None:
    manifests = render(collect_tasks([str(fixture.tasks)]), platform=fixture.platform,
                       override=fixture.override)
    job = next(m for m in manifests if m["kind"] == "PyTorchJob")
    assert_valid_custom_resource(job, "podtemplate_pytorch:crds/kubeflow.org_pytorchjobs.json")
    pod = next(m for m in manifests if m["kind"] == "Pod")
    assert_valid_pod(pod)
    pods = {("train", "master"): job["spec"]["pytorchReplicaSpecs"]["Master"]["template"],
            ("train", "worker"): job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"],
            ("plain", "pod"): {"metadata": pod["metadata"], "spec": pod["spec"]}}
    for (task_name, name), template in pods.items():
        paths = [v["path"] for v in role(explained, task_name, name)["values"]]
        assert len(paths) == len(set(paths))
        assert set(leaf_paths(template)) == set(paths)


def test_json_shape(explained: dict[str, Any]) -> None:
    assert set(explained) == {"tasks"}
    for one in explained["tasks"]:
        assert set(one) == {"task", "roles"}
        for role_ in one["roles"]:
            assert set(role_) == {"role", "values", "removed"}
            for entry in role_["values"]:
                assert set(entry) == {"path", "value", "layer", "source", "detail", "overridden"}
                for low in entry["overridden"]:
                    assert {"value", "layer", "source"} <= set(low)
            for entry in role_["removed"]:
                assert {"path", "value", "layer", "source"} <= set(entry)
    json.dumps(explained)  # plain JSON all through


# ------------------------------------------------------------------------ each layer


def test_named_cluster_template_in_a_multi_document_file(fixture: Fixture,
                                                         explained: dict[str, Any]) -> None:
    worker = role(explained, "train", "worker")
    pool = value(worker, "spec.nodeSelector.pool")
    assert pool["value"] == "gpu" and pool["layer"] == "cluster-template"
    assert source_of(pool) == at(fixture.named, line_of(fixture.named, "pool: gpu"))
    assert "gpu" in pool["detail"] and "named by the task" in pool["detail"]
    owner = value(worker, "metadata.annotations.acme.io/owner")
    assert owner["layer"] == "cluster-template"
    assert source_of(owner) == at(fixture.named, line_of(fixture.named, "acme.io/owner"))


def test_default_cluster_template_and_its_default_container(fixture: Fixture,
                                                            explained: dict[str, Any]) -> None:
    pod = role(explained, "plain", "pod")
    team = value(pod, "metadata.labels.team")
    assert (team["value"], team["layer"]) == ("platform", "cluster-template")
    assert source_of(team) == at(fixture.default, line_of(fixture.default, "team: platform"))
    assert "default template" in team["detail"]
    escalation = value(pod, "spec.containers[primary].securityContext.allowPrivilegeEscalation")
    assert escalation["value"] is False and escalation["layer"] == "cluster-template"
    assert source_of(escalation) == at(fixture.default,
                                       line_of(fixture.default, "allowPrivilegeEscalation"))
    assert "'default' container" in escalation["detail"]
    cluster = value(pod, "spec.containers[primary].env[CLUSTER].value")
    assert source_of(cluster) == at(fixture.default, line_of(fixture.default, "from-default"))
    assert "primary container 'primary'" not in (cluster["detail"] or "")  # same name here


def test_magic_containers_name_the_template_entry(fixture: Fixture,
                                                  explained: dict[str, Any]) -> None:
    worker = role(explained, "train", "worker")
    shipper = value(worker, "spec.containers[log-shipper].terminationMessagePolicy")
    assert shipper["layer"] == "cluster-template"
    assert source_of(shipper) == at(fixture.named, line_of(fixture.named,
                                                           "FallbackToLogsOnError"))
    assert "'default' container" in shipper["detail"]
    pull = value(worker, "spec.initContainers[fetch].imagePullPolicy")
    assert source_of(pull) == at(fixture.named, line_of(fixture.named, "IfNotPresent"))
    assert "'default-init' container" in pull["detail"]
    # A platform template's primary image is Flyte's placeholder: the task's wins, and the
    # template's is dropped as the template is read (model/conventions.py).
    image = value(worker, "spec.containers[pytorch].image")
    assert image["overridden"] == [] and image["layer"] != "cluster-template"
    cluster = value(worker, "spec.containers[pytorch].env[CLUSTER].value")
    primary_entry = next(entry for entry in (cluster, *cluster["overridden"])
                         if entry["value"] == "from-gpu")
    assert primary_entry["layer"] == "cluster-template"
    assert source_of(primary_entry) == at(fixture.named, line_of(fixture.named, "from-gpu"))
    assert "primary container 'primary', named 'pytorch'" in primary_entry["detail"]


def test_interruptible_fragment_from_platform_yaml(fixture: Fixture,
                                                   explained: dict[str, Any]) -> None:
    worker = role(explained, "train", "worker")
    spot = [v for v in worker["values"] if v["path"].startswith("spec.tolerations[")
            and v["path"].endswith(".key") and v["value"] == "spot"]
    assert len(spot) == 1 and spot[0]["layer"] == "interruptible"
    assert source_of(spot[0]) == at(fixture.platform, line_of(fixture.platform, "key: spot"))
    assert "unioned" in spot[0]["detail"]
    gpu = [v for v in worker["values"] if v["path"].endswith(".key")
           and v["value"] == "nvidia.com/gpu"]
    assert gpu[0]["layer"] == "cluster-template"
    assert gpu[0]["path"] == "spec.tolerations[0].key" and spot[0]["path"] == \
        "spec.tolerations[1].key"


def test_inline_task_template_and_task_settings(fixture: Fixture,
                                                explained: dict[str, Any]) -> None:
    worker = role(explained, "train", "worker")
    template_line = at(fixture.tasks, line_of(fixture.tasks, "inline = PodTemplate("))
    cluster = value(worker, "spec.containers[pytorch].env[CLUSTER].value")
    assert (cluster["value"], cluster["layer"]) == ("from-inline", "task-template")
    assert source_of(cluster) == template_line
    assert "primary container 'main', named 'pytorch'" in cluster["detail"]
    (lower,) = cluster["overridden"]
    assert (lower["value"], lower["layer"]) == ("from-gpu", "cluster-template")
    assert source_of(lower) == at(fixture.named, line_of(fixture.named, "from-gpu"))
    team = value(worker, "metadata.labels.team")
    assert (team["value"], team["layer"]) == ("ml", "task-template")
    assert [o["value"] for o in team["overridden"]] == ["gpu-platform"]
    grace = value(worker, "spec.terminationGracePeriodSeconds")
    assert grace["value"] == 0 and grace["layer"] == "task-template"  # a falsy value
    task_line = at(fixture.tasks, line_of(fixture.tasks, "@task(", after="worker = Role"))
    image = value(worker, "spec.containers[pytorch].image")
    assert (image["value"], image["layer"]) == ("ghcr.io/acme/train:1", "task-settings")
    assert source_of(image) == task_line
    env = value(worker, "spec.containers[pytorch].env[TASK_ENV].value")
    assert env["layer"] == "task-settings" and source_of(env) == task_line


def test_role_template_and_role_settings(fixture: Fixture, explained: dict[str, Any]) -> None:
    worker = role(explained, "train", "worker")
    role_line = line_of(fixture.tasks, "worker = Role(")
    role_env = value(worker, "spec.containers[pytorch].env[ROLE].value")
    assert role_env["layer"] == "role-template"
    assert source_of(role_env) == at(fixture.tasks, line_of(fixture.tasks,
                                                            "pod_template=PodTemplate("))
    cpu = value(worker, "spec.containers[pytorch].resources.requests.cpu")
    assert (cpu["value"], cpu["layer"]) == ("2", "role-settings")
    assert source_of(cpu) == at(fixture.tasks, role_line)
    worker_env = value(worker, "spec.containers[pytorch].env[WORKER_ENV].value")
    assert worker_env["layer"] == "role-settings"
    master = role(explained, "train", "master")
    assert not [v for v in master["values"] if "ROLE" in v["path"] or "WORKER_ENV" in v["path"]]


def test_a_role_names_a_cluster_template_first_in_its_file(fixture: Fixture,
                                                           explained: dict[str, Any]) -> None:
    pool = value(role(explained, "train", "master"), "spec.nodeSelector.pool")
    assert (pool["value"], pool["layer"]) == ("cpu", "role-template")
    assert source_of(pool) == at(fixture.named, line_of(fixture.named, "pool: cpu"))
    assert "named by role 'master'" in pool["detail"]
    (was,) = pool["overridden"]
    assert source_of(was) == at(fixture.named, line_of(fixture.named, "pool: gpu"))
    assert value(role(explained, "train", "worker"), "spec.nodeSelector.pool")["value"] == "gpu"


def test_platform_default_resources(fixture: Fixture, explained: dict[str, Any]) -> None:
    worker = role(explained, "train", "worker")
    memory = value(worker, "spec.containers[pytorch].resources.requests.memory")
    assert (memory["value"], memory["layer"]) == ("512Mi", "default-resources")
    assert source_of(memory) == at(fixture.platform,
                                   line_of(fixture.platform, "memory: 512Mi", after="requests"))
    limit = value(worker, "spec.containers[pytorch].resources.limits.memory")
    assert source_of(limit) == at(fixture.platform,
                                  line_of(fixture.platform, "memory: 512Mi", after="limits"))
    cpu = value(role(explained, "train", "master"),
                "spec.containers[pytorch].resources.requests.cpu")
    assert (cpu["value"], cpu["layer"]) == ("250m", "default-resources")
    assert "raised" not in limit["detail"] and "lowered" not in limit["detail"]


def test_a_limit_taken_from_the_request_or_capped_by_the_platform_says_so(
        fixture: Fixture) -> None:
    @task(image="python:3.11", requests=Resources(memory="2Gi", cpu="100m"))
    def hungry() -> None: ...

    (pod,) = explain(hungry, platform=fixture.platform)["tasks"][0]["roles"]
    # defaultResources.limits is a cap, as on Flyte: the request and its limit fall to it
    limit = value(pod, "spec.containers[primary].resources.limits.memory")
    assert (limit["value"], limit["layer"]) == ("512Mi", "default-resources")
    assert "defaultResources.limits caps both" in limit["detail"]
    assert source_of(limit) == at(fixture.platform,
                                  line_of(fixture.platform, "memory: 512Mi", after="limits"))
    # a limit copied from the request is the request's layer's
    cpu = value(pod, "spec.containers[primary].resources.limits.cpu")
    assert (cpu["value"], cpu["layer"]) == ("100m", "task-settings")


def test_run_override_falsy_values(fixture: Fixture, explained: dict[str, Any]) -> None:
    worker = role(explained, "train", "worker")
    host = value(worker, "spec.hostNetwork")
    assert (host["value"], host["layer"]) == (False, "run-override")
    assert source_of(host) == at(fixture.override, line_of(fixture.override, "hostNetwork"))
    (was,) = host["overridden"]
    assert (was["value"], was["layer"]) == (True, "cluster-template")
    assert source_of(was) == at(fixture.named, line_of(fixture.named, "hostNetwork: true"))
    empty = value(worker, "spec.containers[pytorch].env[EMPTY].value")
    assert (empty["value"], empty["layer"]) == ("", "run-override")
    assert source_of(empty) == at(fixture.override, line_of(fixture.override, 'value: ""'))


def test_removals_by_patch_delete_and_null(fixture: Fixture, explained: dict[str, Any]) -> None:
    worker = role(explained, "train", "worker")
    debug = removed(worker, "spec.containers[pytorch].env[DEBUG].value")
    assert (debug["value"], debug["layer"]) == ("1", "run-override")
    assert source_of(debug) == at(fixture.override, line_of(fixture.override, "name: DEBUG"))
    assert "$patch: delete" in debug["detail"] and "cluster-template" in debug["detail"]
    debug_name = removed(worker, "spec.containers[pytorch].env[DEBUG].name")
    assert "$patch: delete" in debug_name["detail"]
    lifecycle = removed(worker, "spec.nodeSelector.lifecycle")
    assert (lifecycle["value"], lifecycle["layer"]) == ("spot", "run-override")
    assert source_of(lifecycle) == at(fixture.override, line_of(fixture.override,
                                                                "lifecycle: null"))
    assert "null" in lifecycle["detail"] and "interruptible" in lifecycle["detail"]
    paths = [v["path"] for v in worker["values"]]
    assert not [p for p in paths if "DEBUG" in p or "lifecycle" in p]


def test_removals_by_patch_replace_and_a_replaced_atomic_list(
        fixture: Fixture, explained: dict[str, Any]) -> None:
    worker = role(explained, "train", "worker")
    user = removed(worker, "spec.securityContext.runAsUser")
    assert (user["value"], user["layer"]) == (1000, "run-override")
    assert "$patch: replace" in user["detail"]
    assert source_of(user) == at(fixture.override, line_of(fixture.override, "securityContext"))
    assert removed(worker, "spec.securityContext.fsGroup")["value"] == 100
    non_root = value(worker, "spec.securityContext.runAsNonRoot")
    assert (non_root["value"], non_root["layer"]) == (True, "run-override")
    terms = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution" \
        ".nodeSelectorTerms"
    zone = value(worker, f"{terms}[0].matchExpressions[0].values")  # plain values: one value
    assert (zone["value"], zone["layer"]) == (["c"], "run-override")
    assert source_of(zone) == at(fixture.override, line_of(fixture.override, "values: [c]"))
    (was,) = zone["overridden"]
    assert (was["value"], was["layer"]) == (["a", "b"], "cluster-template")
    assert source_of(was) == at(fixture.named, line_of(fixture.named, "values: [a, b]"))
    rack = removed(worker, f"{terms}[1].matchExpressions[0].key")
    assert (rack["value"], rack["layer"]) == ("rack", "run-override")
    assert "replaced whole" in rack["detail"]
    assert source_of(rack) == at(fixture.override, line_of(fixture.override, "nodeSelectorTerms"))


def test_operator_values_carry_the_declared_reason(explained: dict[str, Any]) -> None:
    worker = role(explained, "train", "worker")
    command = value(worker, "spec.containers[pytorch].command")
    assert command["layer"] == "operator" and command["source"] is None
    assert command["detail"].startswith("pytorch task type: ")
    name = value(worker, "spec.containers[pytorch].name")
    assert name["layer"] == "operator"
    assert [o["layer"] for o in name["overridden"]] == ["cluster-template"]


def test_system_values_say_why_they_have_no_source(explained: dict[str, Any]) -> None:
    worker = role(explained, "train", "worker")
    label = value(worker, "metadata.labels.podtemplate.io/role")
    assert (label["value"], label["layer"], label["source"]) == ("worker", "system", None)
    assert "no file" in label["detail"]


# ------------------------------------------------------------------------------ the CLI


def cli(*args: str) -> Any:
    return CliRunner().invoke(main, ["explain", *args], catch_exceptions=False)


def test_cli_json_is_the_python_api(fixture: Fixture, explained: dict[str, Any]) -> None:
    result = cli(str(fixture.tasks), "--platform", str(fixture.platform), "--override",
                 str(fixture.override), "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == explained


def test_cli_role_and_field_narrow(fixture: Fixture) -> None:
    result = cli(str(fixture.tasks), "--platform", str(fixture.platform), "--override",
                 str(fixture.override), "--format", "json", "--role", "worker",
                 "--field", "spec.containers[pytorch].env")
    data = json.loads(result.stdout)
    assert [t["task"] for t in data["tasks"]] == ["train"]
    (worker,) = data["tasks"][0]["roles"]
    assert worker["role"] == "worker"
    paths = {v["path"] for v in worker["values"]}
    assert "spec.containers[pytorch].env[ROLE].value" in paths
    assert all(p.startswith("spec.containers[pytorch].env[") for p in paths)
    assert {v["path"] for v in worker["removed"]} == {
        "spec.containers[pytorch].env[DEBUG].name", "spec.containers[pytorch].env[DEBUG].value"}


def test_cli_unknown_role_names_those_that_exist(fixture: Fixture) -> None:
    result = CliRunner().invoke(main, ["explain", str(fixture.tasks), "--platform",
                                       str(fixture.platform), "--role", "chief"])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "'chief'" in result.stderr and "master, pod, worker" in result.stderr


def test_cli_bad_input_as_render(fixture: Fixture, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("template: [unclosed\n")
    for command in ("render", "explain"):
        result = CliRunner().invoke(main, [command, str(fixture.tasks), "--platform",
                                           str(fixture.platform), "--override", str(bad)])
        assert result.exit_code == 2 and result.stdout == ""
        assert result.stderr.count("\n") == 1 and "invalid YAML" in result.stderr
    outputs = [CliRunner().invoke(main, [command, str(fixture.tasks), "--templates",
                                         str(tmp_path / "missing")]).stderr
               for command in ("render", "explain")]
    assert outputs[0] == outputs[1] and outputs[0].startswith("error: ")


def test_cli_text_table(fixture: Fixture) -> None:
    result = cli(str(fixture.tasks) + ":train", "--platform", str(fixture.platform),
                 "--override", str(fixture.override), "--role", "worker")
    assert result.exit_code == 0
    text = result.stdout
    assert "\x1b[" not in text  # no colour when not on a terminal
    assert text.startswith("task train · role worker\n")
    line = next(t for t in text.splitlines() if t.strip().startswith("spec.hostNetwork"))
    assert line.split()[1:3] == ["false", "run-override"]
    assert line.endswith(f"override.yaml:{line_of(fixture.override, 'hostNetwork')}")
    following = text.splitlines()[text.splitlines().index(line) + 1]
    assert following.strip().startswith("replaced true (cluster-template")
    assert "removed:" in text and "env[DEBUG].value" in text.split("removed:")[1]


def test_cli_diff_lists_each_layer_as_a_patch(fixture: Fixture) -> None:
    result = cli(str(fixture.tasks) + ":train", "--platform", str(fixture.platform),
                 "--override", str(fixture.override), "--role", "worker", "--diff",
                 "--format", "json")
    layers = json.loads(result.stdout)["tasks"][0]["roles"][0]["layers"]
    names = [layer["layer"] for layer in layers]
    assert names[:4] == ["cluster-template", "interruptible", "task-template", "task-settings"]
    override = next(layer for layer in layers if layer["layer"] == "run-override")
    host = next(c for c in override["set"] if c["path"] == "spec.hostNetwork")
    assert host["value"] is False and host["was"] == {"value": True, "layer": "cluster-template"}
    assert {g["path"] for g in override["removed"]} >= {"spec.nodeSelector.lifecycle",
                                                         "spec.containers[pytorch].env[DEBUG].value"}
    interruptible = next(layer for layer in layers if layer["layer"] == "interruptible")
    assert any(c["path"] == "spec.nodeSelector.lifecycle" for c in interruptible["set"])
    text = cli(str(fixture.tasks) + ":train", "--platform", str(fixture.platform), "--override",
               str(fixture.override), "--role", "worker", "--diff").stdout
    assert "~ spec.hostNetwork = false" in text and "- spec.nodeSelector.lifecycle" in text


def test_cli_html_page(fixture: Fixture, tmp_path: Path) -> None:
    page = tmp_path / "explain.html"
    result = cli(str(fixture.tasks), "--platform", str(fixture.platform), "--override",
                 str(fixture.override), "--format", "html", "-o", str(page))
    assert result.exit_code == 0
    html = page.read_text()
    # Self-contained: an inline script for the controls, nothing fetched.
    assert html.startswith("<!DOCTYPE html>") and "<script src" not in html and "http" not in \
        html.replace("http-equiv", "")
    assert html.count('<section class="pod"') == 3
    assert html.count('<nav class="index">') == 1 and 'id="search"' in html
    assert f"override.yaml:{line_of(fixture.override, 'hostNetwork')}" in html
    assert "~ spec.hostNetwork = false" in html  # the layer stack, as --diff prints it
    assert "- spec.nodeSelector.lifecycle = spot" in html


def test_yaml_fixture_is_what_it_claims(fixture: Fixture) -> None:
    """The snippets the tests look lines up by occur once, where meant."""
    named = fixture.named.read_text()
    assert named.count("hostNetwork: true") == 1 and named.count("from-gpu") == 1
    assert len([d for d in yaml.safe_load_all(named) if d]) == 2
    assert textwrap.dedent(OVERRIDE).count("lifecycle: null") == 1


def test_a_scheduling_only_role_says_what_it_takes(fixture: Fixture) -> None:
    from podtemplate_ray import Ray

    placement = PodTemplate({"nodeSelector": {"zone": "b"},
                             "containers": [{"name": "primary",
                                             "env": [{"name": "ONLY_TASK", "value": "1"}]}]})

    @task(image="ghcr.io/acme/ray:2", pod_template=placement, task_config=Ray())
    def ray_job() -> None: ...

    (only,) = explain(ray_job, platform=fixture.platform)["tasks"]
    roles = {r["role"]: r for r in only["roles"]}
    zone = value(roles["submitter"], "spec.nodeSelector.zone")
    assert (zone["value"], zone["layer"]) == ("b", "task-template")
    assert "takes only scheduling fields" in zone["detail"]
    assert zone["source"]["line"] == placement.defined_at.line  # type: ignore[union-attr]
    assert not [v for v in roles["submitter"]["values"] if "ONLY_TASK" in v["path"]]
    head_env = value(roles["head"], "spec.containers[ray-head].env[ONLY_TASK].value")
    assert head_env["layer"] == "task-template" and "scheduling" not in head_env["detail"]


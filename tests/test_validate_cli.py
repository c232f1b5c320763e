"""``podtemplate validate FILE...|-``: offline validation of any manifests, end to end.

Everything the demo renders validates (exit 0); each invalid document is named with its
document number, object, field path and rule (exit 1); kinds it cannot check are
reported as not checked, never as valid; unreadable input is exit 2, without a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result
from podtemplate.cli import main
from podtemplate.testing.apiserver_corpus import INVALID as INVALID_PODS
from podtemplate.testing.apiserver_corpus import base

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"


def validate(*args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(main, ["validate", *args], input=stdin, catch_exceptions=False)


@pytest.fixture(scope="module")
def demo_yaml() -> str:
    """What ``bash scripts/demo`` prints."""
    result = CliRunner().invoke(main, ["render", str(EXAMPLES), "--platform",
                                       str(EXAMPLES / "platform.yaml")],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_everything_the_demo_renders_is_valid(demo_yaml: str, tmp_path: Path) -> None:
    documents = [d for d in yaml.safe_load_all(demo_yaml) if d]
    kinds = {d["kind"] for d in documents}
    assert {"Pod", "ConfigMap", "PyTorchJob", "DaskJob", "SparkApplication",
            "RayJob"} <= kinds
    path = tmp_path / "demo.yaml"
    path.write_text(demo_yaml, encoding="utf-8")
    result = validate(str(path))
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert f"{len(documents)} document(s): {len(documents)} valid, 0 invalid, 0 not checked" \
        in result.stderr


def test_trainer_v2_objects_are_checked_against_their_shipped_crds() -> None:
    """The TrainingRuntime and TrainJob the Trainer target renders are custom resources of
    the pytorch task type too: validated, and a bad value named by its field."""
    rendered = CliRunner().invoke(main, [
        "render", f"{EXAMPLES / 'pytorch_tasks.py'}:train_vit", "--platform",
        str(EXAMPLES / "platform-trainer.yaml")], catch_exceptions=False)
    assert rendered.exit_code == 0, rendered.output
    good = validate("-", stdin=rendered.stdout)
    assert good.exit_code == 0, good.output
    assert "2 document(s): 2 valid, 0 invalid, 0 not checked" in good.stderr
    bad = validate("-", stdin=rendered.stdout.replace("numNodes: 5", "numNodes: five"))
    assert bad.exit_code == 1
    assert "(TrainJob train-vit): spec.trainer.numNodes: must be of type integer" in bad.stdout
    assert "TrainJob CRD of Kubeflow Trainer v2.3.0" in bad.stdout


def test_json_output_and_standard_input(demo_yaml: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["render", str(EXAMPLES), "--platform",
                                       str(EXAMPLES / "platform.yaml"), "--format", "json"],
                                catch_exceptions=False)
    path = tmp_path / "demo.json"
    path.write_text(result.stdout, encoding="utf-8")
    assert json.loads(result.stdout)["kind"] == "List"
    both = validate(str(path), "-", stdin=demo_yaml)
    assert both.exit_code == 0, both.output


INVALID = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: job}
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: two
      template:
        spec:
          containers: [{name: pytorch, image: x, resizePolicyy: []}]
---
apiVersion: v1
kind: Pod
metadata: {name: pod}
spec: {containers: [{name: main, image: x, node_selector: {a: b}}]}
---
apiVersion: kubernetes.dask.org/v1
kind: DaskJob
metadata: {name: dask}
spec:
  job:
    spec:
      containers:
        - name: job
          image: x
          livenessProbe: {httpGet: {path: /, port: 8080}}
  cluster: {spec: {scheduler: {spec: {containers: [{name: s, image: x}]}, service: {}},
                   worker: {spec: {containers: [{name: w, image: x}]}}}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: Bad_Name}
data: {"a b": x}
"""


@pytest.mark.parametrize(("document", "path", "rule", "words"), [
    ("#1 (PyTorchJob job)", "spec.pytorchReplicaSpecs.Worker.replicas",
     "PyTorchJob CRD of Kubeflow Training Operator v1.9.4", "must be of type integer"),
    ("#1 (PyTorchJob job)",
     "spec.pytorchReplicaSpecs.Worker.template.spec.containers[pytorch].resizePolicyy",
     "PyTorchJob CRD of Kubeflow Training Operator v1.9.4: pruned", "silently drop"),
    ("#1 (PyTorchJob job)",
     "spec.pytorchReplicaSpecs.Worker.template.spec.containers[pytorch].resizePolicyy",
     "field names are the API's camelCase names", "unknown field 'resizePolicyy'"),
    ("#2 (Pod pod)", "spec.containers[main].node_selector",
     "field names are the API's camelCase names", "unknown field 'node_selector'"),
    ("#3 (DaskJob dask)", "spec.job.spec.containers[job].livenessProbe.httpGet.port",
     "DaskJob CRD of dask-kubernetes operator 2025.4.3", "must be a string"),
    ("#4 (ConfigMap Bad_Name)", "metadata.name", "ConfigMap", "DNS-1123"),
    ("#4 (ConfigMap Bad_Name)", "data.a b", "ConfigMap", "ConfigMap key"),
])
def test_each_problem_is_named(tmp_path: Path, document: str, path: str, rule: str,
                               words: str) -> None:
    source = tmp_path / "bad.yaml"
    source.write_text(INVALID, encoding="utf-8")
    result = validate(str(source))
    assert result.exit_code == 1
    lines = [line for line in result.stdout.splitlines()
             if line.startswith(f"{source}{document}: {path}: ")]
    assert lines, result.stdout
    assert any(f"[rule: {rule}" in line and words in line for line in lines), lines
    assert "4 document(s): 0 valid, 4 invalid, 0 not checked" in result.stderr


@pytest.mark.parametrize(("text", "words"), [
    ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n",
     "no installed task type declares a CRD for apps/v1 Deployment"),
    ("apiVersion: ray.io/v1alpha1\nkind: RayJob\nmetadata: {name: r}\n",
     "version 'v1alpha1' is not checked"),
])
def test_what_cannot_be_checked_is_not_called_valid(text: str, words: str) -> None:
    result = validate("-", stdin=text)
    assert result.exit_code == 1
    assert words in result.stdout and "[rule: not checked]" in result.stdout
    assert "0 valid, 0 invalid, 1 not checked" in result.stderr


@pytest.mark.parametrize(("text", "words"), [
    ("kind: Pod\nmetadata: {name: p}\n", "-#1 (Pod p): no apiVersion: every Kubernetes"),
    ("apiVersion: v1\nmetadata: {name: p}\n", "-#1 (p): no kind"),
    ("metadata: {name: p}\n", "no apiVersion and no kind"),
    ("- a\n- list\n", "-#1: a list, not a Kubernetes object"),
    ("just text\n", "-#1: a string, not a Kubernetes object"),
    ("42\n", "-#1: an integer, not a Kubernetes object"),
    ("true\n", "-#1: a boolean, not a Kubernetes object"),
])
def test_documents_that_are_not_objects_get_a_clear_error(text: str, words: str) -> None:
    result = validate("-", stdin=text)
    assert result.exit_code == 1
    assert words in result.stdout and "[rule: document]" in result.stdout


def test_unreadable_input_is_exit_2_and_the_rest_is_still_checked(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("a: [b\n", encoding="utf-8")
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\xff\xfe\x00")
    valid = tmp_path / "pod.yaml"
    valid.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
                     "spec: {containers: [{name: c, image: x}]}\n", encoding="utf-8")
    result = validate(str(broken), str(binary), str(tmp_path / "missing.yaml"),
                      str(tmp_path), str(valid))
    assert result.exit_code == 2
    errors = result.stderr.splitlines()
    assert f"error: {broken}: not YAML or JSON: invalid YAML at line 2, column 1" in errors[0]
    assert errors[1].startswith(f"error: {binary}: cannot read:")
    assert errors[2] == f"error: {tmp_path / 'missing.yaml'}: cannot read: No such file or " \
                        "directory"
    assert errors[3].startswith(f"error: {tmp_path}: cannot read:")
    assert "1 document(s): 1 valid" in errors[4]
    assert "Traceback" not in result.output


def test_pod_templates_the_crd_keeps_opaque_are_still_checked() -> None:
    """Spark's CRD keeps driver.template as it is; the pod rules still apply to it."""
    text = ("apiVersion: sparkoperator.k8s.io/v1beta2\nkind: SparkApplication\n"
            "metadata: {name: s}\nspec:\n  type: Python\n  mode: cluster\n"
            "  sparkVersion: '3.5.0'\n  mainApplicationFile: local:///x.py\n"
            "  driver: {template: {spec: {containers: [{name: d, bogusField: 1}]}}}\n"
            "  executor: {}\n")
    result = validate("-", stdin=text)
    assert result.exit_code == 1
    assert "-#1 (SparkApplication s): spec.driver.template.spec.containers[d].bogusField:" \
        in result.stdout


def test_a_valid_file_alone_is_exit_0(tmp_path: Path) -> None:
    template = tmp_path / "template.yaml"
    template.write_text("apiVersion: v1\nkind: PodTemplate\nmetadata: {name: t}\n"
                        "template: {spec: {containers: [{name: c, image: x}]}}\n",
                        encoding="utf-8")
    assert validate(str(template)).exit_code == 0
    template.write_text("apiVersion: v1\nkind: PodTemplate\nmetadata: {name: t}\n"
                        "template: {spec: {containers: [{name: c, image: x, bogus: 1}]}}\n",
                        encoding="utf-8")
    result = validate(str(template))
    assert result.exit_code == 1
    assert "#1 (PodTemplate t): template.spec.containers[c].bogus:" in result.stdout


def test_platform_policy_is_applied_to_existing_manifests(demo_yaml: str, tmp_path: Path
                                                          ) -> None:
    """``--platform`` judges the pods of finished manifests by the platform's policy: the
    demo rendered without a policy breaks the restricted profile (one line per violation,
    exit 1); the same examples rendered under that policy pass it."""
    restricted = str(EXAMPLES / "platform-restricted.yaml")
    plain = tmp_path / "plain.yaml"
    plain.write_text(demo_yaml, encoding="utf-8")
    result = validate(str(plain), "--platform", restricted)
    assert result.exit_code == 1, result.output
    lines = [line for line in result.stdout.splitlines() if line.endswith("[policy]")]
    assert lines and any("restricted" in line for line in lines), result.stdout
    compliant = CliRunner().invoke(main, ["render", str(EXAMPLES), "--platform", restricted],
                                   catch_exceptions=False)
    assert compliant.exit_code == 0, compliant.output
    secure = tmp_path / "secure.yaml"
    secure.write_text(compliant.stdout, encoding="utf-8")
    passed = validate(str(secure), "--platform", restricted)
    assert passed.exit_code == 0, passed.output
    assert "0 policy violation(s)" in passed.stderr
    missing = validate(str(secure), "--platform", str(tmp_path / "nope.yaml"))
    assert missing.exit_code == 2 and "Traceback" not in missing.output


def test_each_pod_of_the_invalid_corpus_is_named_with_path_and_rule(tmp_path: Path) -> None:
    # The API server's pod rules (the corpus render refuses), as Pod and PodTemplate
    # documents in one file: every document invalid, each problem on its own line.
    documents = []
    for number, (name, change, _, _) in enumerate(INVALID_PODS):
        pod = base()
        change(pod)
        if number % 2:
            documents.append({"apiVersion": "v1", "kind": "PodTemplate",
                              "metadata": {"name": name}, "template": pod})
        else:
            documents.append({"apiVersion": "v1", "kind": "Pod", "metadata": {
                **pod["metadata"], "name": name}, "spec": pod["spec"]})
    source = tmp_path / "pods.yaml"
    source.write_text("\n---\n".join(json.dumps(d) for d in documents), encoding="utf-8")
    result = validate(str(source))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    for number, (name, _, path, rule) in enumerate(INVALID_PODS):
        kind, prefix = ("PodTemplate", "template.") if number % 2 else ("Pod", "")
        start = f"{source}#{number + 1} ({kind} {name}): {prefix}{path}: "
        assert any(line.startswith(start) and "[rule: " in line and rule in line
                   for line in lines), (start, rule, [x for x in lines if f"#{number + 1} " in x])
    count = len(INVALID_PODS)
    assert f"{count} document(s): 0 valid, {count} invalid, 0 not checked" in result.stderr


# The API server validates every object's metadata (k8s ValidateObjectMeta): a name (or a
# generateName) that is a DNS-1123 subdomain, a namespace that is a DNS-1123 label, label
# and annotation syntax. A custom resource or a PodTemplate object is no exception.
OBJECT_METADATA = [
    ("apiVersion: v1\nkind: Pod\nmetadata: {name: Bad_Name}\n"
     "spec: {containers: [{name: c, image: x}]}\n", "(Pod Bad_Name): metadata.name:"),
    ("apiVersion: v1\nkind: Pod\nmetadata: {labels: {a: b}}\n"
     "spec: {containers: [{name: c, image: x}]}\n", "(Pod): metadata.name: no name and no generateName"),
    ("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ML.team}\n"
     "spec: {containers: [{name: c, image: x}]}\n", "(Pod p): metadata.namespace:"),
    ("apiVersion: v1\nkind: PodTemplate\nmetadata: {name: t, labels: {a: 'b:c'}}\n"
     "template: {spec: {containers: [{name: c, image: x}]}}\n",
     "(PodTemplate t): metadata.labels.a:"),
    ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, annotations: {'bad key!': x}}\n"
     "data: {a: b}\n", "(ConfigMap c): metadata.annotations.bad key!:"),
]


@pytest.mark.parametrize(("text", "words"), OBJECT_METADATA)
def test_the_metadata_of_every_object_is_checked(text: str, words: str) -> None:
    result = validate("-", stdin=text)
    assert result.exit_code == 1, result.output
    assert f"-#1 {words}" in result.stdout, result.stdout


def test_the_metadata_of_a_custom_resource_is_checked(demo_yaml: str) -> None:
    """A RayJob (any custom resource) labelled with a value the API server refuses, or
    named with one, is invalid; the demo's own RayJob is valid."""
    (ray,) = [d for d in yaml.safe_load_all(demo_yaml) if d and d["kind"] == "RayJob"]
    assert validate("-", stdin=yaml.safe_dump(ray)).exit_code == 0
    name = ray["metadata"]["name"]
    ray["metadata"]["labels"]["podtemplate.io/task"] = "ray:train"
    ray["metadata"]["name"] = "Ray_Train"
    result = validate("-", stdin=yaml.safe_dump(ray))
    assert result.exit_code == 1, result.output
    assert "-#1 (RayJob Ray_Train): metadata.labels.podtemplate.io/task:" in result.stdout
    assert "-#1 (RayJob Ray_Train): metadata.name:" in result.stdout
    assert name != "Ray_Train"

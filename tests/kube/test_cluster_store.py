"""Issue 29, the cluster template store against the test API server: ``v1 PodTemplate``
objects read from the task's namespace, then ``fallbackNamespace``, as Flyte reads them;
each namespace listed once per render; a missing template listing those that exist;
RBAC refusing the list in one line; a template changed between two renders; explain
naming the object and its resourceVersion; and the examples rendering the same from the
cluster as from their folder."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from podtemplate import TemplateNotFoundError, load_platform, task
from podtemplate.cli import main
from podtemplate.cluster.podtemplates import ClusterTemplateStore
from podtemplate.errors import ClusterError
from podtemplate.provenance.trace import explain
from podtemplate.render import make_context, render_all
from podtemplate.testing import rendered_documents
from podtemplate.testing.kube import KubeServer

REPO = Path(__file__).resolve().parents[2]
DEFAULT_IMAGE = "ghcr.io/acme/python:3.11"  # examples/platform.yaml defaultImage


def put_template(server: KubeServer, namespace: str, name: str, spec: dict[str, Any],
                 labels: dict[str, str] | None = None) -> dict[str, Any]:
    """Create or replace ``namespace/name`` (server-side apply as the admin)."""
    return put_object(server, namespace, {
        "apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": name},
        "template": {"metadata": {"labels": labels or {}}, "spec": spec}})


def put_object(server: KubeServer, namespace: str, document: dict[str, Any]) -> dict[str, Any]:
    name = document["metadata"]["name"]
    body = {**document, "metadata": {"name": name, "namespace": namespace}}
    answer: dict[str, Any] = server.request(
        "PATCH", f"/api/v1/namespaces/{namespace}/podtemplates/{name}?fieldManager=admin"
        "&force=true", body, content_type="application/apply-patch+yaml")
    return answer


def node_pool(pool: str) -> dict[str, Any]:
    # The API server wants an image in every container of a PodTemplate (Flyte's docs put
    # a placeholder there); the task's own image replaces it.
    return {"nodeSelector": {"pool": pool},
            "containers": [{"name": "primary", "image": "placeholder:1",
                            "env": [{"name": "POOL", "value": pool}]}]}


def platform_for(server: KubeServer, namespace: str, fallback: str,
                 kubeconfig: Path | None = None, **more: Any) -> Any:
    return load_platform(None, templates="cluster", namespace=namespace,
                         fallback_namespace=fallback,
                         kubeconfig=str(kubeconfig or server.kubeconfig), **more)


@task(image="python:3.11", pod_template_name="gpu")
def on_gpu() -> None: ...


@task(image="python:3.11", pod_template_name="cpu")
def on_cpu() -> None: ...


@task(image="python:3.11", pod_template_name="nope")
def on_nothing() -> None: ...


@pytest.fixture
def fallback_namespace(kube_server: KubeServer) -> str:
    created = kube_server.request("POST", "/api/v1/namespaces", {
        "apiVersion": "v1", "kind": "Namespace", "metadata": {"generateName": "platform-"}})
    name: str = created["metadata"]["name"]
    return name


def test_the_task_namespace_first_then_the_fallback_each_listed_once(
        kube_server: KubeServer, kube_namespace: str, fallback_namespace: str) -> None:
    put_template(kube_server, kube_namespace, "gpu", node_pool("team-a100"))
    put_template(kube_server, fallback_namespace, "gpu", node_pool("shared-a100"))
    put_template(kube_server, fallback_namespace, "cpu", node_pool("shared-cpu"))
    context = make_context(platform=platform_for(kube_server, kube_namespace,
                                                 fallback_namespace))
    pods = render_all([on_gpu, on_cpu, on_gpu.with_overrides(name="again")], context)
    assert [pod["spec"]["nodeSelector"]["pool"] for pod in pods] == [
        "team-a100", "shared-cpu", "team-a100"]
    assert {"name": "POOL", "value": "shared-cpu"} in pods[1]["spec"]["containers"][0]["env"]
    store = context.store
    assert isinstance(store, ClusterTemplateStore)
    assert store.lists == [kube_namespace, fallback_namespace]  # once each, in that order


def test_a_missing_template_lists_those_that_exist(
        kube_server: KubeServer, kube_namespace: str, fallback_namespace: str) -> None:
    put_template(kube_server, kube_namespace, "gpu", node_pool("a100"))
    put_template(kube_server, fallback_namespace, "cpu", node_pool("cpu"))
    context = make_context(platform=platform_for(kube_server, kube_namespace,
                                                 fallback_namespace))
    with pytest.raises(TemplateNotFoundError) as raised:
        render_all([on_nothing], context)
    assert str(raised.value) == (
        f"task 'on_nothing', role 'pod', pod_template_name: pod template 'nope' not found in namespaces "
        f"{kube_namespace}, {fallback_namespace}; templates that exist: {kube_namespace}/gpu, "
        f"{fallback_namespace}/cpu (fix: correct pod_template_name, or create it in one of "
        "those namespaces (kubectl apply -f a kind: PodTemplate file, as for Flyte))")


def test_a_user_rbac_forbids_listing_gets_one_line_with_the_fix(
        kube_server: KubeServer, kube_namespace: str, fallback_namespace: str,
        tmp_path: Path) -> None:
    put_template(kube_server, kube_namespace, "gpu", node_pool("a100"))
    kubeconfig = kube_server.kubeconfig_for("no-templates")
    platform = platform_for(kube_server, kube_namespace, fallback_namespace, kubeconfig)
    with pytest.raises(ClusterError) as raised:
        render_all([on_gpu], make_context(platform=platform))
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(f"task 'on_gpu', role 'pod': permission denied (403) to list PodTemplates "
                              f"in namespace {kube_namespace} (")
    assert '"no-templates" cannot list resource "podtemplates"' in message
    assert f"--resource=podtemplates -n {kube_namespace}" in message
    # The CLI: the same line, exit 2, nothing on stdout.
    module = tmp_path / "gpu_tasks.py"
    module.write_text("from podtemplate import task\n\n@task(image='python:3.11', "
                      "pod_template_name='gpu')\ndef on_gpu() -> None: ...\n")
    platform_file = tmp_path / "platform.yaml"
    platform_file.write_text(yaml.safe_dump({
        "templates": "cluster", "kubeconfig": str(kubeconfig), "namespace": kube_namespace}))
    result = CliRunner().invoke(main, ["render", str(module), "--platform", str(platform_file)])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "permission denied (403)" in result.stderr


def test_a_template_changed_between_two_renders_is_read_again_and_explained(
        kube_server: KubeServer, kube_namespace: str, fallback_namespace: str) -> None:
    platform = platform_for(kube_server, kube_namespace, fallback_namespace)
    first = put_template(kube_server, fallback_namespace, "gpu", node_pool("old"))
    (pod,) = render_all([on_gpu], make_context(platform=platform))
    assert pod["spec"]["nodeSelector"] == {"pool": "old"}
    second = put_template(kube_server, fallback_namespace, "gpu", node_pool("new"),
                          labels={"tier": "gold"})
    assert second["metadata"]["resourceVersion"] != first["metadata"]["resourceVersion"]
    (pod,) = render_all([on_gpu], make_context(platform=platform))
    assert pod["spec"]["nodeSelector"] == {"pool": "new"}
    assert pod["metadata"]["labels"]["tier"] == "gold"
    values = {v["path"]: v for v in
              explain(on_gpu, platform=platform)["tasks"][0]["roles"][0]["values"]}
    source = {"file": f"{fallback_namespace}/gpu (resourceVersion "
                      f"{second['metadata']['resourceVersion']})", "line": None}
    for path in ("spec.nodeSelector.pool", "metadata.labels.tier",
                 "spec.containers[primary].env[POOL].value"):
        assert (values[path]["layer"], values[path]["source"]) == ("cluster-template", source)


def test_the_examples_render_the_same_from_the_cluster_as_from_their_folder(
        kube_server: KubeServer, kube_namespace: str, fallback_namespace: str,
        tmp_path: Path) -> None:
    # The folder's templates, placed as an admin would kubectl apply them: those naming
    # the task namespace (ml-team in the examples) there, the others in the fallback.
    folder = tmp_path / "templates"
    shutil.copytree(REPO / "examples" / "templates", folder)
    for path in sorted(folder.glob("*.yaml")):
        text = path.read_text().replace("namespace: ml-team", f"namespace: {kube_namespace}")
        path.write_text(text)
        for document in yaml.safe_load_all(text):
            # The server wants a container, with an image, in every PodTemplate (Flyte's
            # docs say so too); the platform's defaultImage is what the tasks' primary
            # containers get anyway.
            spec = document["template"]["spec"]
            spec.setdefault("containers", [{"name": "primary"}])
            for container in spec.get("containers", []) + spec.get("initContainers", []):
                container.setdefault("image", DEFAULT_IMAGE)
            put_object(kube_server, document["metadata"].get("namespace", fallback_namespace),
                       document)
    examples = str(REPO / "examples")
    common = ["--platform", f"{examples}/platform.yaml", "--namespace", kube_namespace]
    platform_file = tmp_path / "platform.yaml"
    platform_file.write_text((REPO / "examples" / "platform.yaml").read_text()
                             .replace("templates: ./templates", "templates: cluster")
                             .replace("fallbackNamespace: platform",
                                      f"fallbackNamespace: {fallback_namespace}")
                             + f"kubeconfig: {kube_server.kubeconfig}\n")
    runner = CliRunner()
    from_folder = runner.invoke(main, ["render", examples, *common, "--templates",
                                       str(folder)], catch_exceptions=False)
    assert from_folder.exit_code == 0, from_folder.stderr
    # There, templates without a namespace live in 'platform' (the examples' fallback);
    # here, in the fallback namespace made for this test.
    from_cluster = runner.invoke(main, ["render", examples, "--platform",
                                        str(platform_file), "--namespace", kube_namespace],
                                 catch_exceptions=False)
    assert from_cluster.exit_code == 0, from_cluster.stderr
    folder_docs = rendered_documents(from_folder.stdout)
    assert len(folder_docs) > 10
    for ours, theirs in zip(rendered_documents(from_cluster.stdout), folder_docs, strict=True):
        assert ours == theirs, difference(ours, theirs)


def difference(ours: Any, theirs: Any, path: str = "") -> str:
    """The first path where two documents differ, and both values there."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in sorted(set(ours) | set(theirs)):
            if ours.get(key) != theirs.get(key):
                return difference(ours.get(key), theirs.get(key), f"{path}.{key}")
    if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        for index, (one, other) in enumerate(zip(ours, theirs, strict=True)):
            if one != other:
                return difference(one, other, f"{path}[{index}]")
    return f"{path}: {ours!r} (cluster) != {theirs!r} (folder)"


def test_what_the_server_defaults_in_a_stored_template_is_left_to_it(
        kube_server: KubeServer, kube_namespace: str, fallback_namespace: str) -> None:
    written = {
        "containers": [
            {"name": "primary", "image": "placeholder:1", "ports": [{"containerPort": 80}],
             "env": [{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
             "readinessProbe": {"httpGet": {"port": 80, "path": "/"}},
             "volumeMounts": [{"name": "c", "mountPath": "/c"}]},
            {"name": "side", "image": "busybox", "imagePullPolicy": "IfNotPresent"}],
        "volumes": [{"name": "c", "configMap": {"name": "cm"}},
                    {"name": "s", "secret": {"secretName": "s", "defaultMode": 256}},
                    {"name": "h", "hostPath": {"path": "/x"}}],
        "terminationGracePeriodSeconds": 5}
    stored = put_template(kube_server, kube_namespace, "web", written)
    assert stored["template"]["spec"]["restartPolicy"] == "Always"  # the server's default
    context = make_context(platform=platform_for(kube_server, kube_namespace,
                                                 fallback_namespace))
    found = context.store.get(kube_namespace, "web") if context.store else None
    assert found is not None
    expected = {**written, "containers": [
        {k: v for k, v in written["containers"][0].items() if k != "image"},
        written["containers"][1]]}
    assert found.pod_spec == expected

"""Issue 29 without a server: platform.yaml's ``templates: cluster``, ``kubeconfig`` and
``context``; explain naming a cluster object as a value's source; the order and names
of ``apply``; and ``apply`` sending nothing when the render fails. The server side is in
tests/kube/test_cluster_*.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from podtemplate import PlatformConfigError, PodTemplate, build_plugin_manager, load_platform, task
from podtemplate.cli.main import main
from podtemplate.cluster.apply import apply_order, object_ref
from podtemplate.files.store import find_template, is_object_source, object_source
from podtemplate.hookspecs import hookimpl
from podtemplate.provenance.trace import explain


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_templates_cluster_with_a_kubeconfig_relative_to_the_platform_file(
        tmp_path: Path) -> None:
    path = _write(tmp_path / "platform.yaml", "templates: cluster\nkubeconfig: kube/config\n"
                  "context: ml\nfallbackNamespace: platform\n")
    platform = load_platform(path)
    assert platform.cluster_templates and platform.template_folder is None
    assert (platform.kubeconfig, platform.context) == (tmp_path / "kube" / "config", "ml")
    assert platform.lookup_namespaces == ["platform"]
    # A flag overrides the file; a folder stays the default store.
    assert load_platform(path, kubeconfig="other", context="b").kubeconfig == Path("other")
    folder = load_platform(_write(tmp_path / "f.yaml", "templates: t\n"))
    assert folder.template_folder == tmp_path / "t" and not folder.cluster_templates


@pytest.mark.parametrize(("text", "field"), [
    ("templates: cluster\nkubeContext: ml\n", "kubeContext"),
    ("templates: cluster\ncluster: {context: ml}\n", "cluster"),
])
def test_unknown_cluster_keys_stay_errors(tmp_path: Path, text: str, field: str) -> None:
    with pytest.raises(PlatformConfigError, match=f"unknown key '{field}'"):
        load_platform(_write(tmp_path / "platform.yaml", text))


def test_the_folder_store_does_not_answer_for_the_cluster() -> None:
    from podtemplate.files.builtin_store import podtemplate_make_template_store
    from podtemplate.render import make_context

    context = make_context(platform=load_platform(None, templates="cluster"))
    assert podtemplate_make_template_store(context) is None


class _ObjectStore:
    """A store holding one template read from a cluster (as the cluster store makes
    them), without a cluster."""

    def __init__(self) -> None:
        source = object_source("team", "gpu", "4711")
        self.template = PodTemplate.from_manifest(
            {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "gpu"},
             "template": {"spec": {"nodeSelector": {"pool": "a100"}}}}, source=source)

    def get(self, namespace: str, name: str) -> PodTemplate | None:
        return self.template if (namespace, name) == ("team", "gpu") else None

    def names(self) -> list[tuple[str, str]]:
        return [("team", "gpu")]

    @hookimpl(tryfirst=True)
    def podtemplate_make_template_store(self, context: Any) -> Any:
        return self


def test_explain_names_the_object_and_its_resource_version() -> None:
    assert is_object_source("team/gpu (resourceVersion 4711)")
    assert not is_object_source("examples/templates/gpu.yaml")

    @task(image="python:3.11", pod_template_name="gpu")
    def train() -> None: ...

    manager = build_plugin_manager([_ObjectStore()])
    result = explain(train, platform=load_platform(None, namespace="team"),
                     plugin_manager=manager)
    values = {v["path"]: v for v in result["tasks"][0]["roles"][0]["values"]}
    pool = values["spec.nodeSelector.pool"]
    assert (pool["value"], pool["layer"]) == ("a100", "cluster-template")
    assert pool["source"] == {"file": "team/gpu (resourceVersion 4711)", "line": None}


def test_a_missing_cluster_template_says_how_to_create_one() -> None:
    from podtemplate.cluster.podtemplates import ClusterTemplateStore

    store = ClusterTemplateStore(api_client=None)
    store._listed.update({"team": {}, "platform": {"cpu": {}}})  # as if listed
    with pytest.raises(Exception, match=r"not found in namespaces team, platform; templates "
                       r"that exist: platform/cpu \(fix: correct pod_template_name, or "
                       r"create it in one of those namespaces \(kubectl apply"):
        find_template(store, "gpu", ["team", "platform"], required=True)
    assert store.lists == []  # nothing listed again


def _manifest(kind: str, name: str, api_version: str = "v1") -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": name}}


def test_apply_order_puts_what_is_referred_to_first_and_keeps_render_order() -> None:
    trainer = "trainer.kubeflow.org/v1alpha1"
    rendered = [_manifest("TrainJob", "a", trainer), _manifest("TrainingRuntime", "a", trainer),
                _manifest("Pod", "b"), _manifest("ConfigMap", "b-script"),
                _manifest("TrainJob", "c", trainer), _manifest("TrainingRuntime", "c", trainer)]
    assert [object_ref(m) for m in apply_order(rendered)] == [
        "configmap/b-script", "trainingruntime.trainer.kubeflow.org/a",
        "trainingruntime.trainer.kubeflow.org/c", "trainjob.trainer.kubeflow.org/a",
        "pod/b", "trainjob.trainer.kubeflow.org/c"]


def test_apply_sends_nothing_when_the_render_fails(tmp_path: Path) -> None:
    bad = _write(tmp_path / "bad_tasks.py", "from podtemplate import task\n\n"
                 "@task(image='x:1', pod_template_name='nope')\ndef t() -> None: ...\n")
    # The kubeconfig does not exist: had apply tried to connect, it would say so.
    result = CliRunner().invoke(main, ["apply", str(bad), "--kubeconfig",
                                       str(tmp_path / "absent")], catch_exceptions=False)
    assert result.exit_code == 2
    assert "pod template 'nope' not found" in result.output
    assert "kubeconfig" not in result.output
    assert result.output.count("\n") == 1


def test_apply_refuses_a_client_dry_run(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["apply", "x.py", "--dry-run=client"])
    assert result.exit_code == 2 and "'client' is not one of 'none', 'server'" in result.output


def _item(name: str, version: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"metadata": {"name": name, "resourceVersion": version},
            "template": {"spec": spec}}


def test_the_store_lists_every_page_once_and_parses_a_template_when_used(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from podtemplate.cluster import podtemplates as cluster_store
    from podtemplate.cluster.connect import Answer
    from podtemplate.errors import PodTemplateError

    pages = {"": ({"continue": "p2"}, [_item("a", "7", {"nodeSelector": {"x": "1"}})]),
             "p2": ({}, [_item("broken", "8", {"restartPolicy": "Sometimes"})])}
    asked: list[tuple[str, dict[str, str]]] = []

    def request(api: Any, method: str, path: str, **kwargs: Any) -> Answer:
        query = dict(kwargs["query"])
        asked.append((path, query))
        meta, items = pages[query.get("continue", "")]
        return Answer(200, {"metadata": meta, "items": items}, ())

    monkeypatch.setattr(cluster_store, "request", request)
    store = cluster_store.ClusterTemplateStore(api_client=None)
    found = store.get("team", "a")
    assert found is not None and found.pod_spec == {"nodeSelector": {"x": "1"}}
    assert found.source == "team/a (resourceVersion 7)"
    assert store.get("team", "a") is found and store.get("team", "zz") is None
    assert [(p, q.get("continue")) for p, q in asked] == [
        ("/api/v1/namespaces/team/podtemplates", None),
        ("/api/v1/namespaces/team/podtemplates", "p2")]
    assert store.names() == [("team", "a"), ("team", "broken")]
    with pytest.raises(PodTemplateError, match=r"^team/broken \(resourceVersion 8\), "
                       r"spec.restartPolicy: "):
        store.get("team", "broken")  # only the task that names it fails
    assert len(asked) == 2 and store.lists == ["team"]

"""The test API server itself: the pinned version everywhere, every shipped CRD
Established, restricted users, and ``scripts/kube start|stop`` beside the session's
server (two instances side by side, no process left behind)."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import urllib.error
from pathlib import Path

import pytest
from podtemplate.testing.kube import KubeServer, shipped_crds
from podtemplate.testing.kube_build import KUBERNETES_VERSION, BuildError, binary, build, cache_dir

REPO = Path(__file__).resolve().parents[2]
POD_SOURCE = REPO / "core/src/podtemplate/schemas/kubernetes/pod.source.json"


def test_the_pinned_version_is_the_pod_schemas_and_the_servers(kube_server: KubeServer) -> None:
    schema_minor = json.loads(POD_SOURCE.read_text())["kubernetes_version"]
    assert KUBERNETES_VERSION.startswith(f"v{schema_minor}."), (
        "the pod schema and tools/kube move together: see the README")
    go_mod = (REPO / "tools/kube/go.mod").read_text()
    assert re.search(rf"^require k8s\.io/kubernetes {re.escape(KUBERNETES_VERSION)}\b", go_mod,
                     re.MULTILINE)
    assert kube_server.request("GET", "/version")["gitVersion"] == KUBERNETES_VERSION


def test_every_shipped_crd_is_established(kube_server: KubeServer) -> None:
    names = {document["metadata"]["name"] for document in shipped_crds()}
    assert len(names) >= 6  # dask, pytorch (3), ray, spark
    listed = kube_server.request("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions")
    established = {item["metadata"]["name"] for item in listed["items"]
                   if any(c["type"] == "Established" and c["status"] == "True"
                          for c in item["status"]["conditions"])}
    assert names <= established


def test_a_namespace_has_its_default_service_account(kube_server: KubeServer,
                                                      kube_namespace: str) -> None:
    account = kube_server.request(
        "GET", f"/api/v1/namespaces/{kube_namespace}/serviceaccounts/default")
    assert account["metadata"]["namespace"] == kube_namespace


def test_a_user_without_rbac_cannot_list_pod_templates(kube_server: KubeServer,
                                                       kube_namespace: str) -> None:
    from kubernetes import client

    api = client.CoreV1Api(kube_server.api_client(kube_server.kubeconfig_for("nobody")))
    with pytest.raises(client.ApiException) as refused:
        api.list_namespaced_pod_template(kube_namespace)
    assert refused.value.status == 403
    assert 'User "nobody"' in json.loads(refused.value.body)["message"]
    admin = client.CoreV1Api(kube_server.api_client())
    assert admin.list_namespaced_pod_template(kube_namespace).items == []


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_scripts_kube_starts_a_second_server_and_stops_it_leaving_nothing(
        kube_server: KubeServer, tmp_path: Path) -> None:
    script = str(REPO / "scripts" / "kube")
    started = subprocess.run([script, "start", str(tmp_path / "second")], capture_output=True,
                             text=True, timeout=300, check=False)
    state = json.loads((tmp_path / "second" / "server.json").read_text())
    try:
        assert started.returncode == 0, started.stderr
        kubeconfig = Path(started.stdout.strip())
        assert kubeconfig == tmp_path / "second" / "kubeconfig"
        second = KubeServer(tmp_path / "second", state["server"], state["token"],
                            tuple(state["pids"]))
        assert second.server != kube_server.server
        assert second.request("GET", "/version")["gitVersion"] == KUBERNETES_VERSION
        assert kube_server.request("GET", "/version")["gitVersion"] == KUBERNETES_VERSION
        assert len(state["pids"]) == 2 and all(_alive(pid) for pid in state["pids"])
    finally:
        stopped = subprocess.run([script, "stop", str(tmp_path / "second")],
                                 capture_output=True, text=True, timeout=120, check=False)
    assert stopped.returncode == 0, stopped.stderr
    assert not any(_alive(pid) for pid in state["pids"])
    assert not (tmp_path / "second" / "server.json").exists()
    with pytest.raises(urllib.error.URLError):
        second.request("GET", "/version")


def test_the_binaries_live_outside_the_repository() -> None:
    for name in ("kube-apiserver", "kubectl", "etcd"):
        path = binary(name)
        assert os.access(path, os.X_OK)
        assert REPO not in path.resolve().parents


def test_build_is_skipped_when_the_binaries_are_there() -> None:
    out = io.StringIO()
    assert build(out) == cache_dir()
    assert out.getvalue() == ""


def test_without_binaries_or_go_modules_the_build_fails_with_the_fix(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PODTEMPLATE_KUBE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PODTEMPLATE_KUBE_TOOLS", str(tmp_path / "no-tools"))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BuildError, match=r"binaries are not in .*\(fix: run `scripts/kube build`"):
        build(io.StringIO())

"""``podtemplate validate --server`` against the test API server: validate's format and
exit codes (0 valid, 1 a problem, 2 unreadable input or an unusable cluster), verdicts from
the server's dry-run, one line per problem; and ``cluster.connect``'s one-line errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result
from podtemplate.cli import main
from podtemplate.cluster import connect, dry_run
from podtemplate.errors import ClusterError
from podtemplate.testing.kube import KubeServer

GOOD_POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "good"},
            "spec": {"containers": [{"name": "main", "image": "python:3.11"}]}}
BAD_POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bad"},
           "spec": {"containers": [{"name": "main"}], "restartPolicy": "Sometimes"}}


def validate(kubeconfig: Path, *args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(main, ["validate", "--server", "--kubeconfig", str(kubeconfig),
                                     *args], input=stdin, catch_exceptions=False)


def write(path: Path, namespace: str, *documents: dict[str, Any]) -> Path:
    placed = [{**d, "metadata": {**d["metadata"], "namespace": namespace}} for d in documents]
    path.write_text(yaml.safe_dump_all(placed, sort_keys=False))
    return path


def test_valid_documents_exit_0(kube_server: KubeServer, kube_namespace: str,
                                tmp_path: Path) -> None:
    template = {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "gpu"},
                "template": {"spec": GOOD_POD["spec"]}}
    file = write(tmp_path / "ok.yaml", kube_namespace, GOOD_POD, template)
    result = validate(kube_server.kubeconfig, str(file))
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert "2 document(s): 2 valid, 0 invalid, 0 not checked" in result.stderr


def test_each_problem_is_one_line_with_the_servers_field_path(
        kube_server: KubeServer, kube_namespace: str, tmp_path: Path) -> None:
    file = write(tmp_path / "bad.yaml", kube_namespace, GOOD_POD, BAD_POD)
    result = validate(kube_server.kubeconfig, str(file))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert f"{file}#2 (Pod bad): spec.containers[0].image: Required value " \
           "[rule: server FieldValueRequired]" in lines
    assert any(line.startswith(f"{file}#2 (Pod bad): spec.restartPolicy: Unsupported value")
               and line.endswith("[rule: server FieldValueNotSupported]") for line in lines)
    assert not any("#1" in line for line in lines)
    assert "2 document(s): 1 valid, 1 invalid, 0 not checked" in result.stderr


def test_an_unknown_field_is_a_problem_under_strict(kube_server: KubeServer,
                                                    kube_namespace: str) -> None:
    pod = json.loads(json.dumps(GOOD_POD))
    pod["metadata"]["namespace"] = kube_namespace
    pod["spec"]["containers"][0]["imagePullPolicyy"] = "Always"
    result = validate(kube_server.kubeconfig, "-", stdin=json.dumps(pod))
    assert result.exit_code == 1
    assert "-#1 (Pod good): spec.containers[0].imagePullPolicyy: unknown field" in result.stdout


def test_a_kind_the_server_does_not_serve_is_not_checked(kube_server: KubeServer,
                                                         tmp_path: Path) -> None:
    file = tmp_path / "odd.yaml"
    file.write_text("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n")
    result = validate(kube_server.kubeconfig, str(file))
    assert result.exit_code == 1
    assert result.stdout.startswith(f"{file}#1 (Widget w): the server serves no kind 'Widget'")
    assert "[rule: not checked]" in result.stdout
    assert "1 not checked" in result.stderr


def test_unreadable_input_exits_2(kube_server: KubeServer, tmp_path: Path) -> None:
    result = validate(kube_server.kubeconfig, str(tmp_path / "missing.yaml"))
    assert result.exit_code == 2
    assert "cannot read" in result.stderr


def _error(result: Result) -> str:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output
    return lines[0]


def test_a_missing_kubeconfig_is_one_line_with_the_fix(tmp_path: Path) -> None:
    line = _error(validate(tmp_path / "none.yaml", "-", stdin="{}"))
    assert line.startswith(f"error: kubeconfig '{tmp_path / 'none.yaml'}' not found (fix: ")


def test_an_unknown_context_is_one_line_with_the_fix(kube_server: KubeServer) -> None:
    line = _error(validate(kube_server.kubeconfig, "--context", "prod", "-", stdin="{}"))
    assert "context 'prod' is not in kubeconfig" in line
    assert "(contexts: 'podtemplate-test')" in line and "(fix: pass --context" in line


def test_a_server_that_does_not_answer_is_one_line(kube_server: KubeServer,
                                                   tmp_path: Path) -> None:
    config = yaml.safe_load(kube_server.kubeconfig.read_text())
    config["clusters"][0]["cluster"]["server"] = "https://127.0.0.1:9"  # nothing listens
    (tmp_path / "down").write_text(yaml.safe_dump(config))
    line = _error(validate(tmp_path / "down", "-", stdin="{}"))
    assert "cannot reach the API server at https://127.0.0.1:9: connection refused" in line


def test_refused_credentials_are_one_line(kube_server: KubeServer, tmp_path: Path) -> None:
    config = yaml.safe_load(kube_server.kubeconfig.read_text())
    config["users"][0]["user"]["token"] = "not-the-token"
    (tmp_path / "stale").write_text(yaml.safe_dump(config))
    with pytest.raises(ClusterError, match=r"refused the credentials \(401 Unauthorized\)"):
        connect(tmp_path / "stale")
    assert "401 Unauthorized" in _error(validate(tmp_path / "stale", "-", stdin="{}"))


def test_a_forbidden_request_is_one_line(kube_server: KubeServer, kube_namespace: str,
                                         tmp_path: Path) -> None:
    kubeconfig = kube_server.kubeconfig_for("viewer-without-rights")
    file = write(tmp_path / "ok.yaml", kube_namespace, GOOD_POD)
    line = _error(validate(kubeconfig, str(file)))
    assert line.startswith("error: permission denied (403) to apply ")
    assert 'User "viewer-without-rights" cannot patch resource "pods"' in line
    assert "(fix: ask a cluster admin for an RBAC role" in line


def test_dry_run_returns_the_defaulted_object_and_writes_nothing(
        kube_server: KubeServer, kube_namespace: str) -> None:
    client = connect(kube_server.kubeconfig)
    verdict = dry_run(client, GOOD_POD, namespace=kube_namespace)
    assert verdict.accepted and verdict.causes == () and verdict.warnings == ()
    assert verdict.object is not None
    assert verdict.object["spec"]["restartPolicy"] == "Always"  # defaulted by the server
    assert kube_server.request("GET", f"/api/v1/namespaces/{kube_namespace}/pods")["items"] == []

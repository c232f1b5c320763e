"""A real Kubernetes API server for tests: etcd and kube-apiserver (the version of the
pod schema podtemplate ships) on 127.0.0.1, with every CRD the installed task types ship
installed and Established.

``scripts/kube start DIR`` / ``stop DIR`` and the pytest fixtures below share this code:

* ``kube_server`` (session): a :class:`KubeServer`; ``kubeconfig`` (admin, a static token),
  ``server`` (its URL), ``token``, ``api_client()``. ``kubeconfig_for(user, groups)`` writes a
  kubeconfig for any other user (a client certificate minted on demand): with no RBAC
  binding such a user may do nothing beyond discovery, so a test grants what it needs.
* ``kube_namespace`` (function): a fresh namespace with a ``default`` ServiceAccount.

When the binaries are missing the fixture builds them first (:mod:`.kube_build`; a cold
build takes 10-20 minutes on 2 cores and says so on stderr), or fails with the fix: it
never skips.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import secrets
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import yaml

from .kube_build import BuildError, binaries_present, binary, build

__all__ = ["KubeServer", "KubeStartError", "kube_namespace", "kube_server", "shipped_crds",
           "start", "stop"]

ADMIN = "podtemplate-admin"
_STATE = "server.json"
_APPROVAL = "api-approved.kubernetes.io"
_READY_SECONDS = 120.0
_CHILDREN: dict[int, subprocess.Popen[bytes]] = {}  # started by this process, reaped by stop


class KubeStartError(Exception):
    """The test API server did not start; the message names the log to read."""


@dataclass(frozen=True)
class KubeServer:
    """A running test API server (see the module's docstring)."""

    directory: Path
    server: str
    token: str
    pids: tuple[int, ...]

    @property
    def kubeconfig(self) -> Path:
        return self.directory / "kubeconfig"

    def api_client(self, kubeconfig: Path | None = None) -> Any:
        """A ``kubernetes.client.ApiClient`` for the admin (or for ``kubeconfig``)."""
        from kubernetes import config

        load: Any = config.new_client_from_config
        return load(config_file=str(kubeconfig or self.kubeconfig))

    def kubeconfig_for(self, user: str, groups: tuple[str, ...] = ()) -> Path:
        """A kubeconfig acting as ``user`` in ``groups`` (a client certificate signed by the
        server's client CA); RBAC gives it nothing until a test binds a role to it."""
        from .kube_certs import client_certificate

        certificate, key = client_certificate(self.directory, user, groups,
                                              self.directory / "users")
        path = self.directory / "users" / f"{user}.kubeconfig"
        _write_kubeconfig(path, self.server, self.directory, {
            "client-certificate": str(certificate), "client-key": str(key)})
        return path

    def request(self, method: str, path: str, body: Any = None,
                content_type: str = "application/json") -> Any:
        """One admin request; returns the decoded JSON answer (raises HTTPError)."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.server + path, data=data, method=method,
                                         headers={"Authorization": f"Bearer {self.token}",
                                                  "Content-Type": content_type})
        with urllib.request.urlopen(request, context=_tls(self.directory), timeout=30) as answer:
            return json.loads(answer.read() or b"null")


def _tls(directory: Path) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(directory / "certs" / "apiserver.crt"))


def _free_ports(count: int) -> list[int]:
    sockets = []
    for _ in range(count):
        handle = socket.socket()
        handle.bind(("127.0.0.1", 0))
        sockets.append(handle)
    ports = [handle.getsockname()[1] for handle in sockets]
    for handle in sockets:
        handle.close()
    return ports


def _write_kubeconfig(path: Path, server: str, directory: Path, user: dict[str, str]) -> None:
    config = {
        "apiVersion": "v1", "kind": "Config", "current-context": "podtemplate-test",
        "clusters": [{"name": "podtemplate-test", "cluster": {
            "server": server,
            "certificate-authority": str(directory / "certs" / "apiserver.crt")}}],
        "users": [{"name": "podtemplate-test", "user": user}],
        "contexts": [{"name": "podtemplate-test", "context": {
            "cluster": "podtemplate-test", "user": "podtemplate-test", "namespace": "default"}}],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(config, sort_keys=False))


def _die_with_parent() -> None:
    """In the child: get SIGTERM when the starting process dies (even by SIGKILL), so a
    killed test session leaves no server behind (Linux; elsewhere a no-op)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _spawn(name: str, args: list[str], directory: Path,
           tied: bool) -> subprocess.Popen[bytes]:
    with (directory / f"{name}.log").open("ab") as log:
        process = subprocess.Popen([str(binary(name)), *args], stdin=subprocess.DEVNULL,
                                   stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                                   preexec_fn=_die_with_parent if tied else None)
    _CHILDREN[process.pid] = process
    return process


def _wait(what: str, ready: Any, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + _READY_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log.read_text(errors="replace").strip().splitlines()[-3:]
            raise KubeStartError(f"{what} exited with {process.returncode}: "
                                 f"{' | '.join(tail)} (see {log})")
        try:
            if ready():
                return
        except (OSError, ssl.SSLError, urllib.error.URLError):
            pass
        time.sleep(0.2)
    raise KubeStartError(f"{what} not ready after {_READY_SECONDS:.0f} s (see {log})")


def _get_ok(url: str, context: ssl.SSLContext | None = None, token: str = "") -> bool:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    request = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(request, context=context, timeout=5) as answer:
        return bool(answer.status == 200)


def start(directory: Path, *, tied: bool = False) -> KubeServer:
    """Start etcd and kube-apiserver with their state in ``directory`` (created; it must
    not hold a running server), write ``directory/kubeconfig``, install the shipped CRDs
    and wait until each is Established. ``tied``: the servers die with this process."""
    try:
        from .kube_certs import write_client_ca, write_signing_key
    except ImportError:
        raise KubeStartError("the test API server needs the 'cryptography' package "
                             "(fix: pip install cryptography; scripts/test installs it)") from None
    if not binaries_present():
        raise KubeStartError("the test API server's binaries are missing "
                             "(fix: run `scripts/kube build`)")
    directory = directory.resolve()
    if (directory / _STATE).exists():
        raise KubeStartError(f"{directory} already holds a server "
                             f"(fix: `scripts/kube stop {directory}` first)")
    (directory / "certs").mkdir(parents=True, exist_ok=True)
    write_signing_key(directory / "sa.key", directory / "sa.pub")
    write_client_ca(directory)
    token = secrets.token_hex(16)
    (directory / "tokens.csv").write_text(f'{token},{ADMIN},{ADMIN},"system:masters"\n')
    etcd_port, peer_port, api_port = _free_ports(3)
    etcd_url, peer_url = f"http://127.0.0.1:{etcd_port}", f"http://127.0.0.1:{peer_port}"
    processes = [_spawn("etcd", [
        "--name=podtemplate", f"--data-dir={directory / 'etcd'}",
        f"--listen-client-urls={etcd_url}", f"--advertise-client-urls={etcd_url}",
        f"--listen-peer-urls={peer_url}", f"--initial-advertise-peer-urls={peer_url}",
        f"--initial-cluster=podtemplate={peer_url}", "--unsafe-no-fsync", "--log-level=warn",
    ], directory, tied)]
    server = f"https://127.0.0.1:{api_port}"
    running = KubeServer(directory, server, token, (processes[0].pid,))
    _save(running)
    try:
        _wait("etcd", lambda: _get_ok(f"{etcd_url}/health"), processes[0],
              directory / "etcd.log")
        processes.append(_spawn("kube-apiserver", _apiserver_flags(directory, etcd_url,
                                                                   api_port), directory, tied))
        running = KubeServer(directory, server, token, tuple(p.pid for p in processes))
        _save(running)
        certificate = directory / "certs" / "apiserver.crt"
        _wait("kube-apiserver", lambda: certificate.is_file() and _get_ok(
            f"{server}/readyz", _tls(directory), token), processes[1],
            directory / "kube-apiserver.log")
        _write_kubeconfig(running.kubeconfig, server, directory, {"token": token})
        install_crds(running)
    except BaseException:
        stop(directory)
        raise
    return running


def _apiserver_flags(directory: Path, etcd_url: str, port: int) -> list[str]:
    return [
        f"--etcd-servers={etcd_url}", "--bind-address=127.0.0.1", f"--secure-port={port}",
        "--advertise-address=127.0.0.1", f"--cert-dir={directory / 'certs'}",
        "--service-cluster-ip-range=10.0.0.0/24",
        "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
        f"--service-account-key-file={directory / 'sa.pub'}",
        f"--service-account-signing-key-file={directory / 'sa.key'}",
        f"--token-auth-file={directory / 'tokens.csv'}",
        f"--client-ca-file={directory / 'client-ca.crt'}",
        "--authorization-mode=RBAC", "--allow-privileged=true",
        "--endpoint-reconciler-type=none", "--profiling=false",
    ]


def _save(server: KubeServer) -> None:
    (server.directory / _STATE).write_text(json.dumps({
        "server": server.server, "token": server.token, "pids": list(server.pids)}))


def load(directory: Path) -> KubeServer:
    """The server running with its state in ``directory``."""
    state = json.loads((directory.resolve() / _STATE).read_text())
    return KubeServer(directory.resolve(), state["server"], state["token"],
                      tuple(state["pids"]))


def _ours(pid: int, directory: Path) -> bool:
    """Whether ``pid`` is still one of this server's processes (not a reused pid)."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z" and str(directory).encode() in command


def stop(directory: Path) -> None:
    """Stop the server in ``directory`` (kube-apiserver, then etcd): SIGTERM, then SIGKILL
    after 10 s. No process is left; the state file is removed."""
    directory = directory.resolve()
    if not (directory / _STATE).exists():
        return
    for pid in reversed(load(directory).pids):
        if not _ours(pid, directory):
            continue
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while _ours(pid, directory) and time.monotonic() < deadline:
            _reap(pid)
            time.sleep(0.05)
        if _ours(pid, directory):
            os.kill(pid, signal.SIGKILL)
            while _ours(pid, directory):
                _reap(pid)
                time.sleep(0.05)
        _reap(pid)
    (directory / _STATE).unlink()


def _reap(pid: int) -> None:
    """Collect ``pid`` when it is our child (the fixture's processes), so no zombie stays."""
    child = _CHILDREN.get(pid)
    if child is not None:
        if child.poll() is not None:
            del _CHILDREN[pid]
        return
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def shipped_crds() -> list[dict[str, Any]]:
    """The CRD documents of every installed task type (``TaskType.crds``)."""
    from ..dispatch import build_plugin_manager, task_types

    documents = []
    for task_type in task_types(build_plugin_manager()).values():
        for location in task_type.crds:
            package, _, resource = location.partition(":")
            text = resources.files(package).joinpath(resource).read_text(encoding="utf-8")
            documents.append(yaml.safe_load(text))
    return documents


def install_crds(server: KubeServer) -> list[str]:
    """Apply every shipped CRD and wait until each is Established and served; returns
    their names."""
    base = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    names, documents = [], shipped_crds()
    for document in documents:
        name = document["metadata"]["name"]
        group = str(document["spec"]["group"])
        if group.endswith((".k8s.io", ".kubernetes.io")):
            # a protected group needs this annotation, which the slimmed shipped CRDs drop
            document["metadata"].setdefault("annotations", {})[_APPROVAL] = (
                "unapproved, the shipped CRD's upstream annotation is not kept")
        try:
            server.request("PATCH", f"{base}/{name}?fieldManager=podtemplate-test&force=true",
                           document, content_type="application/apply-patch+yaml")
        except urllib.error.HTTPError as error:
            raise KubeStartError(f"the server refused the shipped CRD {name}: "
                                 f"{_message(error)}") from None
        names.append(name)
    deadline = time.monotonic() + _READY_SECONDS
    for document in documents:
        spec = document["spec"]
        served = [v["name"] for v in spec["versions"] if v.get("served")]
        paths = [f"/apis/{spec['group']}/{version}/{spec['names']['plural']}"
                 for version in served]
        while not _established(server, f"{base}/{document['metadata']['name']}", paths):
            if time.monotonic() > deadline:
                raise KubeStartError(f"CRD {document['metadata']['name']} not Established "
                                     f"(see {server.directory / 'kube-apiserver.log'})")
            time.sleep(0.1)
    return names


def _message(error: urllib.error.HTTPError) -> str:
    """The Status message of a refused request."""
    try:
        return str(json.loads(error.read())["message"])[:2000]
    except (ValueError, KeyError, TypeError):
        return str(error)


def _established(server: KubeServer, crd: str, paths: list[str]) -> bool:
    conditions = (server.request("GET", crd).get("status") or {}).get("conditions") or []
    if not any(c["type"] == "Established" and c["status"] == "True" for c in conditions):
        return False
    try:
        for path in paths:
            server.request("GET", f"{path}?limit=1")
    except urllib.error.HTTPError:
        return False
    return True


# ---------------------------------------------------------------------------- fixtures


def _ensure_binaries(config: pytest.Config) -> None:
    if binaries_present():
        return
    capture = config.pluginmanager.getplugin("capturemanager")
    sys.stderr.write("\nkube_server: building kube-apiserver, kubectl and etcd once "
                     "(a cold build takes 10-20 minutes on 2 cores)\n")
    try:
        if capture is not None:
            with capture.global_and_fixture_disabled():
                build(sys.stderr)
        else:
            build(sys.stderr)
    except BuildError as error:
        pytest.fail(str(error), pytrace=False)


@pytest.fixture(scope="session")
def kube_server(request: pytest.FixtureRequest) -> Iterator[KubeServer]:
    """A real API server for the session (see the module's docstring)."""
    _ensure_binaries(request.config)
    with tempfile.TemporaryDirectory(prefix="podtemplate-kube-") as folder:
        try:
            server = start(Path(folder), tied=True)
        except KubeStartError as error:
            pytest.fail(f"the test API server did not start: {error}", pytrace=False)
        try:
            yield server
        finally:
            stop(Path(folder))


@pytest.fixture
def kube_namespace(kube_server: KubeServer) -> str:
    """A fresh namespace with a ``default`` ServiceAccount; returns its name. (Nothing
    finalizes namespaces on this server, so they are left in place.)"""
    created = kube_server.request("POST", "/api/v1/namespaces", {
        "apiVersion": "v1", "kind": "Namespace", "metadata": {"generateName": "test-"}})
    name: str = created["metadata"]["name"]
    kube_server.request("POST", f"/api/v1/namespaces/{name}/serviceaccounts", {
        "apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default"}})
    return name


def main(argv: list[str] | None = None) -> int:
    """``python -m podtemplate.testing.kube build|start DIR|stop DIR`` (scripts/kube)."""
    args = sys.argv[1:] if argv is None else argv
    usage = "usage: scripts/kube build [--force] | start DIR | stop DIR"
    try:
        if args[:1] == ["build"] and set(args[1:]) <= {"--force"}:
            build(sys.stderr, force="--force" in args)
        elif len(args) == 2 and args[0] == "start":
            started = time.monotonic()
            server = start(Path(args[1]))
            print(f"kube: {server.server} ready in {time.monotonic() - started:.1f} s",
                  file=sys.stderr)
            print(server.kubeconfig)
        elif len(args) == 2 and args[0] == "stop":
            stop(Path(args[1]))
        else:
            print(usage, file=sys.stderr)
            return 2
    except (BuildError, KubeStartError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

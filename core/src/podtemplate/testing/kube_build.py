"""The binaries of the test API server: kube-apiserver, kubectl and etcd, built once per
machine from the Go modules the repository pins (``tools/kube`` and ``tools/etcd``) into
a cache outside the repository, keyed by the Kubernetes version.

``scripts/kube build`` and the ``kube_server`` fixture call :func:`build`; a warm Go build
cache makes it a link (about a minute), a cold one compiles ~2,200 packages (40 min
measured on a busy 2-core machine). Moving the pinned version: see the README (the pod
schema moves with it).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

__all__ = ["ETCD_VERSION", "KUBERNETES_VERSION", "BINARIES", "BuildError", "binaries_present",
           "binary", "build", "cache_dir", "go_build", "tools_dir"]

KUBERNETES_VERSION = "v1.35.4"  # tools/kube/go.mod; the pod schema's minor (1.35)
ETCD_VERSION = "v3.6.5"  # tools/etcd/go.mod: the etcd Kubernetes 1.35 is built against
BINARIES = ("kube-apiserver", "kubectl", "etcd")
CACHE_VARIABLE = "PODTEMPLATE_KUBE_CACHE"
TOOLS_VARIABLE = "PODTEMPLATE_KUBE_TOOLS"

_MAJOR, _MINOR = KUBERNETES_VERSION[1:].split(".")[:2]
_KUBE_LDFLAGS = " ".join((
    "-s -w",
    f"-X k8s.io/component-base/version.gitVersion={KUBERNETES_VERSION}",
    f"-X k8s.io/component-base/version.gitMajor={_MAJOR}",
    f"-X k8s.io/component-base/version.gitMinor={_MINOR}",
    "-X k8s.io/component-base/version.gitTreeState=clean",
))
# (tools/ folder, packages, -ldflags): one `go build` each
_BUILDS = (
    ("kube", ("k8s.io/kubernetes/cmd/kube-apiserver", "k8s.io/kubernetes/cmd/kubectl"),
     _KUBE_LDFLAGS),
    ("etcd", ("go.etcd.io/etcd/server/v3",), "-s -w"),
)


class BuildError(Exception):
    """The binaries cannot be built here; the message says why and how to fix it."""


def cache_dir() -> Path:
    """Where the binaries of the pinned version live (never inside the repository)."""
    base = os.environ.get(CACHE_VARIABLE) or str(Path.home() / ".cache/podtemplate/kube")
    return Path(base) / KUBERNETES_VERSION


def binary(name: str) -> Path:
    return cache_dir() / name


def binaries_present() -> bool:
    return all(os.access(binary(name), os.X_OK) for name in BINARIES)


def tools_dir() -> Path | None:
    """The repository's ``tools/`` folder (the pinned Go modules), or None when this
    package runs outside a checkout and ``PODTEMPLATE_KUBE_TOOLS`` is not set."""
    explicit = os.environ.get(TOOLS_VARIABLE)
    if explicit:
        return Path(explicit) if (Path(explicit) / "kube/go.mod").is_file() else None
    for start in (Path(__file__).resolve(), Path.cwd().resolve()):
        for folder in start.parents:
            if (folder / "tools/kube/go.mod").is_file():
                return folder / "tools"
    return None


@contextmanager
def _locked() -> Iterator[None]:
    """One build at a time per cache (two test sessions may start together)."""
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def build(out: TextIO = sys.stderr, *, force: bool = False) -> Path:
    """Build the missing binaries into :func:`cache_dir` (all of them with ``force``),
    printing each package as it compiles; returns the folder."""
    folder = cache_dir()
    if binaries_present() and not force:
        return folder
    tools = tools_dir()
    go = shutil.which("go")
    if tools is None or go is None:
        missing = "Go (go1.25 or newer) is not on PATH" if go is None else (
            "the pinned Go modules (tools/kube, tools/etcd) are not found")
        raise BuildError(f"the test API server's binaries are not in {folder} and {missing} "
                         f"(fix: run `scripts/kube build` in a podtemplate checkout, or set "
                         f"{TOOLS_VARIABLE} to its tools/ folder)")
    with _locked():
        started = time.monotonic()
        for module, packages, ldflags in _BUILDS:
            names = [package.rsplit("/", 1)[-1] if module == "kube" else "etcd"
                     for package in packages]
            if not force and all(os.access(folder / name, os.X_OK) for name in names):
                continue
            go_build(go, tools / module, packages, ldflags, folder, names, out)
        out.write(f"kube: binaries ready in {folder} ({time.monotonic() - started:.0f} s)\n")
    return folder


def go_build(go: str, module: Path, packages: tuple[str, ...], ldflags: str, folder: Path,
             names: list[str], out: TextIO, *, label: str = "kube",
             retry: str = "scripts/kube build") -> None:
    """``go build`` of ``packages`` of the Go module ``module`` into ``folder`` (as
    ``names``), printing ``[n/total] package`` as each compiles; the binaries appear
    whole or not at all. ``label`` starts each message, ``retry`` is the fix named."""
    env = {**os.environ, "CGO_ENABLED": "0"}
    listing = subprocess.run([go, "list", "-deps", *packages], cwd=module, env=env,
                             capture_output=True, text=True, check=False)
    if listing.returncode != 0:
        raise BuildError(f"go list in {module} failed: {listing.stderr.strip()[-400:]} "
                         "(fix: check the Go module proxy is reachable and go.sum is intact)")
    total = len(listing.stdout.split())
    partial = folder / ".partial"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    out.write(f"{label}: building {' '.join(names)} from {module} "
              f"({total} packages; already compiled ones are not listed)\n")
    target = f"{partial}/" if len(packages) > 1 else str(partial / names[0])
    command = [go, "build", "-v", "-trimpath", "-ldflags", ldflags, "-o", target, *packages]
    process = subprocess.Popen(command, cwd=module, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    compiled, tail = 0, list[str]()
    for line in process.stdout:
        line = line.rstrip()
        if " " in line or not line:  # not a package name: an error, keep it for the message
            tail = [*tail[-20:], line]
            out.write(f"{line}\n")
        else:
            compiled += 1
            out.write(f"[{compiled}/{total}] {line}\n")
        out.flush()
    if process.wait() != 0:
        raise BuildError(f"go build in {module} failed: {' | '.join(tail)[-600:]} "
                         f"(fix: see the output above; run `{retry}` to retry)")
    for name in names:
        (partial / name).replace(folder / name)
    shutil.rmtree(partial, ignore_errors=True)

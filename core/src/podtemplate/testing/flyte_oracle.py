"""Flyte's own code as the oracle of the tests (issue 30).

Two oracles, each built once per machine into a cache outside the repository
(``${PODTEMPLATE_FLYTE_CACHE:-~/.cache/podtemplate/flyte}``), keyed by version:

- **flytekit** (:data:`FLYTEKIT_VERSION`): a venv of its own with flytekit and the
  flytekit plugins of the distributed task types. :meth:`FlytekitOracle.serialize` runs a
  module of flytekit code in it and returns each task's ``TaskTemplate`` as
  ``pyflyte register`` would upload it (the protobuf as JSON: the container or the
  ``k8sPod`` pod spec, resources, config, metadata).
- **Flyte's backend** (:data:`FLYTEPLUGINS_VERSION`): ``tools/flyte``, a small Go
  program over ``github.com/flyteorg/flyteplugins``' ``flytek8s.ToK8sPodSpec``, the
  code propeller runs to turn a task template and the default PodTemplate into the pod
  it creates. :meth:`FlyteBackendOracle.pod` gives that pod. The Go module proxy serves
  the standalone ``flyteplugins`` module up to v1.0.67 (2023); the monorepo's
  ``github.com/flyteorg/flyte/flyteplugins``, where the code lives now, is refused
  (403) by the proxy this repository builds from, so the newer releases cannot be run
  here (docs/from-flytekit.md says where they differ).

``python -m podtemplate.testing.flyte_oracle build`` (``scripts/flyte-oracle build``,
which ``.ci/run`` calls) builds both; the fixtures :func:`flytekit_oracle` and
:func:`flyte_backend_oracle` build what is missing on first use and never skip: a build
that cannot be done fails the test with the fix.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import pytest

from .kube_build import BuildError, go_build, tools_dir

__all__ = ["FLYTEKIT_PACKAGES", "FLYTEKIT_VERSION", "FLYTEPLUGINS_VERSION",
           "FlyteBackendOracle", "FlytekitOracle", "OracleError", "backend_binary",
           "build", "cache_root", "flyte_backend_oracle", "flytekit_oracle", "flytekit_venv"]

FLYTEKIT_VERSION = "1.16.31"
FLYTEPLUGINS_VERSION = "v1.0.67"  # tools/flyte/go.mod
# The kubernetes client of flytekit's era (37 wants python-dateutil 3, which botocore,
# under flytekit's storage layer, refuses).
FLYTEKIT_PACKAGES = (f"flytekit=={FLYTEKIT_VERSION}",
                     f"flytekitplugins-kfpytorch=={FLYTEKIT_VERSION}",
                     f"flytekitplugins-dask=={FLYTEKIT_VERSION}",
                     "kubernetes<32", "python-dateutil<3")
CACHE_VARIABLE = "PODTEMPLATE_FLYTE_CACHE"
_SERIALIZER = Path(__file__).with_name("flytekit_serialize.py")
_RETRY = "scripts/flyte-oracle build"


class OracleError(Exception):
    """An oracle answered with an error (flytekit refused the code, the backend the task)."""


def cache_root() -> Path:
    return Path(os.environ.get(CACHE_VARIABLE) or Path.home() / ".cache/podtemplate/flyte")


def _key(*parts: str | bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode() if isinstance(part, str) else part)
    return digest.hexdigest()[:12]


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """One build at a time per cache entry (test sessions may start together)."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with (folder.parent / f".{folder.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def flytekit_venv(out: TextIO = sys.stderr) -> Path:
    """The flytekit venv's python, created with :data:`FLYTEKIT_PACKAGES` when missing."""
    folder = cache_root() / f"flytekit-{FLYTEKIT_VERSION}-{_key(*FLYTEKIT_PACKAGES)}"
    python, stamp = folder / "bin/python", folder / ".installed"
    if stamp.is_file():
        return python
    with _locked(folder):
        if stamp.is_file():
            return python
        started = time.monotonic()
        shutil.rmtree(folder, ignore_errors=True)
        out.write(f"flyte-oracle: creating the flytekit venv {folder} "
                  f"({' '.join(FLYTEKIT_PACKAGES)})\n")
        _run([sys.executable, "-m", "venv", str(folder)], out, "creating the venv")
        _run([str(python), "-m", "pip", "install", "--disable-pip-version-check",
              "--progress-bar", "off", *FLYTEKIT_PACKAGES], out, "pip install")
        stamp.write_text(" ".join(FLYTEKIT_PACKAGES) + "\n")
        out.write(f"flyte-oracle: flytekit venv ready ({time.monotonic() - started:.0f} s)\n")
    return python


def _run(command: list[str], out: TextIO, what: str) -> None:
    """Run ``command``, its progress lines (pip's Collecting/Installing...) shown."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert process.stdout is not None
    tail: list[str] = []
    for line in process.stdout:
        tail = [*tail[-15:], line.rstrip()]
        if line.startswith(("Collecting", "Installing", "Successfully", "ERROR")):
            out.write(f"flyte-oracle: {line}")
            out.flush()
    if process.wait() != 0:
        raise BuildError(f"flyte-oracle: {what} failed: {' | '.join(tail)[-600:]} "
                         f"(fix: check that PyPI is reachable, then run `{_RETRY}`)")


def backend_binary(out: TextIO = sys.stderr) -> Path:
    """The backend oracle's binary, built from ``tools/flyte`` when missing (keyed by
    :data:`FLYTEPLUGINS_VERSION` and the program's source)."""
    tools = tools_dir()
    module = tools / "flyte" if tools is not None else None
    if module is None or not (module / "go.mod").is_file():
        raise BuildError("the Flyte backend oracle's Go module (tools/flyte) is not found "
                         f"(fix: run the tests from a podtemplate checkout, or `{_RETRY}`)")
    source = b"".join((module / name).read_bytes() for name in ("go.mod", "go.sum", "main.go"))
    folder = cache_root() / f"flyteplugins-{FLYTEPLUGINS_VERSION}-{_key(source)}"
    binary = folder / "flyte-pod"
    if os.access(binary, os.X_OK):
        return binary
    go = shutil.which("go")
    if go is None:
        raise BuildError(f"the Flyte backend oracle is not built in {folder} and Go is not "
                         f"on PATH (fix: install Go 1.25 or newer, then `{_RETRY}`)")
    with _locked(folder):
        if not os.access(binary, os.X_OK):
            started = time.monotonic()
            folder.mkdir(parents=True, exist_ok=True)
            go_build(go, module, (".",), "-s -w", folder, ["flyte-pod"], out,
                     label="flyte-oracle", retry=_RETRY)
            out.write(f"flyte-oracle: {binary} ready ({time.monotonic() - started:.0f} s)\n")
    return binary


def build(out: TextIO = sys.stderr) -> tuple[Path, Path]:
    """Both oracles, built when missing: (the flytekit venv's python, the backend binary)."""
    return flytekit_venv(out), backend_binary(out)


@dataclass(frozen=True)
class FlytekitOracle:
    """flytekit :data:`FLYTEKIT_VERSION` in its own venv."""

    python: Path

    def serialize(self, source: str, module: str = "flyte_tasks") -> dict[str, Any]:
        """Each task of the flytekit module ``source`` (dedented) by its variable name:
        its ``TaskTemplate`` as JSON (protobuf field names in camelCase), as
        ``pyflyte register`` serializes it (project ``p``, domain ``d``, version ``v1``,
        default image ``ghcr.io/acme/python:3.11``)."""
        with tempfile.TemporaryDirectory(prefix="podtemplate-flytekit-") as folder:
            (Path(folder) / f"{module}.py").write_text(textwrap.dedent(source))
            done = subprocess.run([str(self.python), str(_SERIALIZER), folder, module],
                                  capture_output=True, text=True, check=False,
                                  env={**os.environ, "PYTHONNOUSERSITE": "1"})
        if done.returncode != 0:
            raise OracleError(f"flytekit refused the module: {done.stderr.strip()[-2000:]}")
        answer: dict[str, Any] = json.loads(done.stdout)
        return answer


@dataclass(frozen=True)
class FlyteBackendOracle:
    """flyteplugins :data:`FLYTEPLUGINS_VERSION`'s ``flytek8s.ToK8sPodSpec``."""

    binary: Path

    def pod(self, task_template: dict[str, Any], *,
            pod_templates: list[dict[str, Any]] | tuple[()] = (),
            config: dict[str, Any] | None = None,
            platform_resources: dict[str, Any] | None = None,
            override_resources: dict[str, Any] | None = None,
            interruptible: bool = False, namespace: str = "flyte",
            inputs: dict[str, Any] | None = None) -> dict[str, Any]:
        """The pod Flyte creates for ``task_template`` (:meth:`FlytekitOracle.serialize`'s
        JSON): ``{"metadata", "spec", "primaryContainerName"}``. ``pod_templates`` are
        the ``v1 PodTemplate`` objects propeller watches; ``config`` the k8s plugin
        config (``default-pod-template-name``, ``gpu-resource-name``, ``default-cpus``,
        ``resource-tolerations``...); ``platform_resources`` the task resource defaults
        (requests) and limits (limits) of the admin's configuration."""
        request = {"taskTemplate": task_template, "podTemplates": list(pod_templates),
                   "config": config or {}, "platformResources": platform_resources,
                   "overrideResources": override_resources, "interruptible": interruptible,
                   "namespace": namespace, "inputs": inputs}
        done = subprocess.run([str(self.binary)], input=json.dumps(request),
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise OracleError(done.stderr.strip()[-2000:])
        answer: dict[str, Any] = json.loads(done.stdout)
        return answer


def _built(make: Any) -> Any:
    try:
        return make()
    except BuildError as error:
        pytest.fail(str(error), pytrace=False)


@pytest.fixture(scope="session")
def flytekit_oracle() -> FlytekitOracle:
    """flytekit in its own venv (built on first use; see the module's docstring)."""
    return FlytekitOracle(_built(flytekit_venv))


@pytest.fixture(scope="session")
def flyte_backend_oracle() -> FlyteBackendOracle:
    """Flyte's backend pod builder (built on first use; see the module's docstring)."""
    return FlyteBackendOracle(_built(backend_binary))


def main(argv: list[str] | None = None) -> int:
    """``python -m podtemplate.testing.flyte_oracle build`` (scripts/flyte-oracle)."""
    args = sys.argv[1:] if argv is None else argv
    if args != ["build"]:
        print("usage: scripts/flyte-oracle build", file=sys.stderr)
        return 2
    try:
        python, binary = build()
    except BuildError as error:
        print(error, file=sys.stderr)
        return 1
    print(f"flyte-oracle: flytekit {FLYTEKIT_VERSION}: {python}", file=sys.stderr)
    print(f"flyte-oracle: flyteplugins {FLYTEPLUGINS_VERSION}: {binary}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

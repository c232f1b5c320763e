"""``podtemplate new-plugin``: the distribution it writes installs into a fresh venv, its
own tests (the conformance kit) pass as written, ``coverage`` finds nothing LOST on the
declared roles, and a task of the new type renders; a request the CRD contradicts is
one line, exit 2, nothing written."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result
from podtemplate.cli.main import main
from podtemplate.testing import rendered_documents

ROLES = "launcher,worker"


def mpi_crd() -> dict[str, Any]:
    """An MPIJob-shaped CRD (kubeflow.org/v2beta1, replica specs in a map keyed by role),
    made from the PyTorchJob CRD the pytorch plugin ships, so its pod schema is a real
    operator's."""
    text = resources.files("podtemplate_pytorch").joinpath(
        "crds/kubeflow.org_pytorchjobs.json").read_text(encoding="utf-8")
    crd = json.loads(text)
    crd["metadata"]["name"] = "mpijobs.kubeflow.org"
    crd["spec"]["names"] = {"kind": "MPIJob", "listKind": "MPIJobList", "plural": "mpijobs",
                            "singular": "mpijob"}
    [version] = crd["spec"]["versions"]
    version["name"] = "v2beta1"
    spec = version["schema"]["openAPIV3Schema"]["properties"]["spec"]
    spec["properties"]["mpiReplicaSpecs"] = spec["properties"].pop("pytorchReplicaSpecs")
    spec["properties"]["slotsPerWorker"] = {"type": "integer", "minimum": 1}
    spec["required"] = ["mpiReplicaSpecs", "slotsPerWorker"]
    spec["description"] = "MPIJobSpec: prose the shipped CRD does not keep"
    return crd


def new_plugin(*args: str) -> Result:
    return CliRunner().invoke(main, ["new-plugin", *args], catch_exceptions=False)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("scaffold")
    (folder / "mpi.yaml").write_text(yaml.safe_dump(mpi_crd()), encoding="utf-8")
    result = new_plugin("mpi", "--kind", "MPIJob", "--api-version", "kubeflow.org/v2beta1",
                        "--roles", ROLES, "--crd", str(folder / "mpi.yaml"),
                        "--into", str(folder))
    assert result.exit_code == 0, result.output
    return folder / "podtemplate-mpi"


@pytest.fixture(scope="module")
def venv(generated: Path) -> Path:
    """A fresh venv that sees this one's packages (core, pytest) and holds the generated
    distribution, installed by pip, editable, offline."""
    root = generated.parent / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True,
                   timeout=120)
    python = root / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                           "['purelib'])"], capture_output=True, text=True, check=True,
                          timeout=60).stdout.strip()
    ours = sysconfig.get_paths()["purelib"]
    Path(site, "_podtemplate_dev.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index",
         "--no-build-isolation", "-e", str(generated)],
        capture_output=True, text=True, timeout=300, check=False)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return python


def run(python: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS")}
    return subprocess.run([str(python), *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600, check=False)


def test_it_writes_a_complete_distribution(generated: Path) -> None:
    package = generated / "src" / "podtemplate_mpi"
    assert sorted(p.name for p in package.iterdir()) == [
        "__init__.py", "build.py", "config.py", "crds", "plugin.py", "py.typed", "roles.py"]
    pyproject = tomllib.loads((generated / "pyproject.toml").read_text())
    assert pyproject["project"]["entry-points"]["podtemplate"] == {
        "mpi": "podtemplate_mpi.plugin:MpiType"}
    assert pyproject["tool"]["setuptools"]["package-data"]["podtemplate_mpi"] == [
        "py.typed", "crds/*.json"]
    assert pyproject["project"]["optional-dependencies"]["test"] == ["podtemplate[test]>=0.1"]
    crd = json.loads((package / "crds" / "kubeflow.org_mpijobs.json").read_text())
    assert [v["name"] for v in crd["spec"]["versions"]] == ["v2beta1"]
    assert "MPIJobSpec" not in json.dumps(crd)  # slimmed: no descriptions
    roles = (package / "roles.py").read_text()
    assert '"worker": "spec.mpiReplicaSpecs.Worker.template"' in roles
    assert '"worker": "spec.mpiReplicaSpecs.Worker.restartPolicy"' in roles
    assert '"launcher": "spec.mpiReplicaSpecs.Launcher.replicas"' in roles
    assert 'SPEC: dict[str, Any] = {"slotsPerWorker": 1}' in (package / "build.py").read_text()
    assert (generated / "conftest.py").is_file()
    readme = (generated / "README.md").read_text()
    assert "podtemplate crd slim UPSTREAM.yaml --into src/podtemplate_mpi/crds --repository " \
        "OWNER/NAME \\\n    --path PATH" in readme
    assert "class TestMpiTypeConformance(ConformanceSuite)" in (
        generated / "tests" / "test_mpi.py").read_text()


FIRST_EDIT = "    for role in roles:\n"


def test_its_code_passes_ruff_and_strict_mypy_by_its_own_config(generated: Path,
                                                                tmp_path: Path) -> None:
    """With the pyproject it is written with (line length, strict mypy; no options given)
    and after the first edit an author makes: a spec field set in build.py."""
    edited = tmp_path / "podtemplate-mpi"
    shutil.copytree(generated, edited)
    build = edited / "src" / "podtemplate_mpi" / "build.py"
    text = build.read_text()
    assert FIRST_EDIT in text
    build.write_text(text.replace(
        FIRST_EDIT, '    manifest["spec"]["slotsPerWorker"] = 2\n' + FIRST_EDIT))
    tools = Path(sys.executable).parent
    lint = subprocess.run([str(tools / "ruff"), "check", "--select", "E,F,I,UP,B,W,Q", "."],
                          cwd=edited, capture_output=True, text=True, timeout=120, check=False)
    assert lint.returncode == 0, lint.stdout
    typed = subprocess.run([str(tools / "mypy"), "--no-incremental"], cwd=edited,
                           capture_output=True, text=True, timeout=600, check=False)
    assert typed.returncode == 0, typed.stdout
    assert "in 7 source files" in typed.stdout  # src, tests and conftest.py, as configured


def test_its_own_tests_pass_in_a_fresh_venv(generated: Path, venv: Path) -> None:
    result = run(venv, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                 "-W", "error", cwd=generated)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    summary = result.stdout.strip().splitlines()[-1]
    assert summary.split()[1:2] == ["passed"] and int(summary.split()[0]) >= 12, summary


def test_a_task_of_the_new_type_renders_and_nothing_is_lost(generated: Path,
                                                             venv: Path) -> None:
    (generated.parent / "hpc.py").write_text(textwrap.dedent("""
        from podtemplate import PodTemplate, Role, task
        from podtemplate_mpi import Mpi

        GPU = PodTemplate(pod_spec={"nodeSelector": {"pool": "hpc"},
                                    "restartPolicy": "OnFailure"})


        @task(image="ghcr.io/acme/hpc:1", task_config=Mpi(worker=Role(replicas=4,
                                                                      pod_template=GPU)))
        def solve(n: int = 3) -> None: ...
    """))
    cli = "from podtemplate.cli import main; main()"
    rendered = run(venv, "-c", cli, "render", "hpc.py", cwd=generated.parent)
    assert rendered.returncode == 0, rendered.stderr
    [job] = rendered_documents(rendered.stdout)
    assert (job["apiVersion"], job["kind"]) == ("kubeflow.org/v2beta1", "MPIJob")
    worker = job["spec"]["mpiReplicaSpecs"]["Worker"]
    assert worker["replicas"] == 4
    assert worker["template"]["spec"]["nodeSelector"] == {"pool": "hpc"}
    # the operator sets each pod's restartPolicy from the replica spec's: it moves there
    assert worker["restartPolicy"] == "OnFailure"
    assert "restartPolicy" not in worker["template"]["spec"]
    assert worker["template"]["spec"]["containers"][0]["image"] == "ghcr.io/acme/hpc:1"
    assert "nodeSelector" not in job["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]
    coverage = run(venv, "-c", cli, "coverage", "--plugin", "mpi", "--format", "json",
                   cwd=generated.parent)
    assert coverage.returncode == 0, coverage.stdout[-2000:] + coverage.stderr
    [plugin] = json.loads(coverage.stdout)["plugins"]
    assert plugin["roles"] == ["launcher", "worker"]
    assert plugin["totals"]["LOST"] == 0 and plugin["totals"]["applied"] > 100


@pytest.mark.parametrize(("args", "message"), [
    (["--kind", "PyTorchJob"], "the CRD is of kind 'MPIJob', not 'PyTorchJob' (fix: --kind MPIJob)"),
    (["--api-version", "kubeflow.org/v1"], "the CRD stores kubeflow.org/v2beta1, not "
     "kubeflow.org/v1 (fix: --api-version kubeflow.org/v2beta1)"),
    (["--roles", "launcher,Worker"], "role name 'Worker' is not a lowercase DNS-1123 label "
     "(fix: --roles worker; a replica map's key Worker is derived from it)"),
    (["--roles", "launcher,job_runner"], "role name 'job_runner' is not a lowercase DNS-1123 "
     "label (fix: name roles like worker, job-runner)"),
    (["--roles", "worker,worker"], "a role is named twice"),
    (["--name", "MPI"], "task type name 'MPI' is not a lowercase name"),
])
def test_a_request_the_crd_contradicts_is_one_line(tmp_path: Path, args: list[str],
                                                   message: str) -> None:
    (tmp_path / "mpi.yaml").write_text(yaml.safe_dump(mpi_crd()), encoding="utf-8")
    options = {"--kind": "MPIJob", "--api-version": "kubeflow.org/v2beta1", "--roles": ROLES,
               "--crd": str(tmp_path / "mpi.yaml"), "--into": str(tmp_path / "out"),
               "--name": "mpi"}
    options.update(dict(zip(args[::2], args[1::2], strict=True)))
    name = options.pop("--name")
    result = new_plugin(name, *[part for pair in options.items() for part in pair])
    assert result.exit_code == 2, result.output
    [line] = result.output.splitlines()
    assert line.startswith("error: ") and message in line
    assert not (tmp_path / "out").exists()


def test_a_role_the_crd_does_not_place_needs_its_path(tmp_path: Path) -> None:
    crd = mpi_crd()
    spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    replica = spec["properties"].pop("mpiReplicaSpecs")["additionalProperties"]
    spec["properties"].update({"launcherSpec": replica, "workerSpec": replica})
    spec["required"] = []
    (tmp_path / "mpi.yaml").write_text(yaml.safe_dump(crd), encoding="utf-8")
    common = ["mpi", "--kind", "MPIJob", "--api-version", "kubeflow.org/v2beta1", "--crd",
              str(tmp_path / "mpi.yaml"), "--into", str(tmp_path)]
    refused = new_plugin(*common, "--roles", "launcher,driver")
    assert refused.exit_code == 2
    assert "cannot tell where role 'driver' has its pod template in the CRD (pod templates " \
        "found: spec.launcherSpec.template, spec.workerSpec.template) (fix: name its path: " \
        "--roles driver=spec.PATH.template)" in refused.output
    written = new_plugin(*common, "--roles", "launcher,driver=spec.workerSpec.template")
    assert written.exit_code == 0, written.output
    roles = (tmp_path / "podtemplate-mpi" / "src" / "podtemplate_mpi" / "roles.py").read_text()
    assert '"launcher": "spec.launcherSpec.template"' in roles
    assert '"driver": "spec.workerSpec.template"' in roles
    elsewhere = new_plugin(*common, "--roles", "launcher,driver=spec.runPolicy.template")
    assert elsewhere.exit_code == 2
    assert "--roles: spec.runPolicy.template is not a pod template in the CRD (pod templates " \
        "found: spec.launcherSpec.template, spec.workerSpec.template) (fix: name one of them: " \
        "--roles driver=spec.PATH.template)" in elsewhere.output
    again = new_plugin(*common, "--roles", "launcher")
    assert again.exit_code == 2 and "podtemplate-mpi exists and is not empty" in again.output


def test_it_says_where_each_role_went_and_which_map_keys_it_guessed(tmp_path: Path) -> None:
    """A replica map's keys are the operator's and the CRD does not list them, so a role
    named ``workers`` becomes the key ``Workers`` without complaint: the output says so."""
    (tmp_path / "mpi.yaml").write_text(yaml.safe_dump(mpi_crd()), encoding="utf-8")
    result = new_plugin("mpi", "--kind", "MPIJob", "--api-version", "kubeflow.org/v2beta1",
                        "--roles", "launcher,workers", "--crd", str(tmp_path / "mpi.yaml"),
                        "--into", str(tmp_path))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "role workers: its pod template at spec.mpiReplicaSpecs.Workers.template" in lines
    [check] = [line for line in lines if line.startswith("check: ")]
    assert "the replica map keys Launcher, Workers are guessed from the role names" in check
    assert "edit TEMPLATE_PATHS and REPLICAS_PATHS in roles.py" in check
    one = new_plugin("mpi", "--kind", "MPIJob", "--api-version", "kubeflow.org/v2beta1",
                     "--roles", "worker", "--crd", str(tmp_path / "mpi.yaml"),
                     "--into", str(tmp_path / "one"))
    assert "check: the replica map key Worker is guessed" in one.output

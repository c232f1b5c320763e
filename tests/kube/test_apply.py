"""Issue 29, ``podtemplate apply`` against the test API server: every example applied,
then applied again ("unchanged" for every object); ``--dry-run=server`` changing nothing
and telling what would change; a field owned by another field manager refused in one
line (with what was already applied), then taken with ``--force-conflicts``; and the
interop path, ``podtemplate render ... | kubectl apply --server-side -f -``."""

from __future__ import annotations

import itertools
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any
from urllib.error import HTTPError

from click.testing import CliRunner, Result
from podtemplate.cli import main
from podtemplate.cluster.apply import object_ref
from podtemplate.testing import rendered_documents
from podtemplate.testing.kube import KubeServer
from podtemplate.testing.kube_build import binary

REPO = Path(__file__).resolve().parents[2]
RENDER = "from podtemplate.cli import main; main(prog_name='podtemplate')"


def examples_in(namespace: str, tmp_path: Path) -> tuple[str, ...]:
    """The examples, with their platform file placing the task namespace's template (t4,
    in ml-team there) in ``namespace``."""
    folder = tmp_path / "templates"
    shutil.copytree(REPO / "examples" / "templates", folder)
    for path in folder.glob("*.yaml"):
        path.write_text(path.read_text().replace("namespace: ml-team", f"namespace: {namespace}"))
    platform = tmp_path / "platform.yaml"
    platform.write_text((REPO / "examples" / "platform.yaml").read_text()
                        .replace("templates: ./templates", f"templates: {folder}")
                        .replace("namespace: ml-team", f"namespace: {namespace}"))
    return str(REPO / "examples"), "--platform", str(platform)


def prepare_for(server: KubeServer, namespace: str, documents: list[dict[str, Any]]) -> None:
    """What the examples' pods name and a cluster's admin would have made: their
    ServiceAccounts in ``namespace`` and their PriorityClasses."""
    found: dict[str, set[str]] = {"serviceAccountName": set(), "priorityClassName": set()}

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key in found and isinstance(item, str):
                    found[key].add(item)
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(documents)
    made = [(f"/api/v1/namespaces/{namespace}/serviceaccounts", {
        "apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}})
        for name in sorted(found["serviceAccountName"])]
    made += [("/apis/scheduling.k8s.io/v1/priorityclasses", {
        "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
        "metadata": {"name": name}, "value": 1000}) for name in sorted(found["priorityClassName"])]
    for path, body in made:
        try:
            server.request("POST", path, body)
        except HTTPError as error:
            if error.code != 409:  # already made by another test
                raise


def apply(server: KubeServer, namespace: str, *args: str) -> Result:
    return CliRunner().invoke(main, ["apply", *args, "--namespace", namespace,
                                     "--kubeconfig", str(server.kubeconfig)],
                              catch_exceptions=False)


def render(namespace: str, *args: str) -> list[dict[str, Any]]:
    result = CliRunner().invoke(main, ["render", *args, "--namespace", namespace],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return rendered_documents(result.stdout)


def lines(result: Result) -> list[str]:
    return result.stdout.splitlines()


def live(server: KubeServer, path: str) -> dict[str, Any] | None:
    try:
        found: dict[str, Any] = server.request("GET", path)
    except HTTPError as error:
        if error.code == 404:
            return None
        raise
    return found


def test_the_examples_apply_then_apply_again_unchanged(
        kube_server: KubeServer, kube_namespace: str, tmp_path: Path) -> None:
    examples = examples_in(kube_namespace, tmp_path)
    documents = render(kube_namespace, *examples)
    prepare_for(kube_server, kube_namespace, documents)
    refs = [object_ref(m) for m in documents]
    first = apply(kube_server, kube_namespace, *examples)
    assert first.exit_code == 0, first.output
    assert sorted(lines(first)) == sorted(f"{ref} created" for ref in refs)
    # In dependency order: every ConfigMap before the first Pod.
    kinds = [line.partition("/")[0] for line in lines(first)]
    assert max(i for i, k in enumerate(kinds) if k == "configmap") < kinds.index("pod")
    again = apply(kube_server, kube_namespace, *examples)
    assert again.exit_code == 0, again.output
    assert lines(again) == [line.replace(" created", " unchanged") for line in lines(first)]
    dry = apply(kube_server, kube_namespace, *examples, "--dry-run=server")
    assert dry.exit_code == 0, dry.output
    assert lines(dry) == [line.replace(" created", " unchanged (server dry run)")
                          for line in lines(first)]


TASKS = textwrap.dedent("""
    from podtemplate import task
    from podtemplate_shell import ShellTask

    report = ShellTask(name="report", script="echo hello", image="busybox:1.36")

    @task(image="IMAGE")
    def train() -> None: ...
""")


_MODULES = itertools.count()


def tasks_module(tmp_path: Path, image: str) -> Path:
    """A module of the two tasks with ``image``, under a name no other module of the
    session has (the CLI refuses a second module of one name)."""
    module = tmp_path / f"apply_jobs_{next(_MODULES)}.py"
    module.write_text(TASKS.replace("IMAGE", image))
    return module


def test_a_server_dry_run_changes_nothing(kube_server: KubeServer, kube_namespace: str,
                                          tmp_path: Path) -> None:
    pod = f"/api/v1/namespaces/{kube_namespace}/pods/train"
    module = tasks_module(tmp_path, "python:3.11")
    first = apply(kube_server, kube_namespace, str(module), "--dry-run=server")
    assert first.exit_code == 0, first.output
    assert lines(first) == ["configmap/report-script created (server dry run)",
                            "pod/report created (server dry run)",
                            "pod/train created (server dry run)"]
    assert live(kube_server, pod) is None
    assert apply(kube_server, kube_namespace, str(module)).exit_code == 0
    before = live(kube_server, pod)
    assert before is not None
    # A newer image for every primary container (the one field of a pod that may change).
    override = tmp_path / "newer.yaml"
    override.write_text("containers: [{name: primary, image: 'python:3.12'}]\n")
    changed = apply(kube_server, kube_namespace, str(module), "--override", str(override),
                    "--dry-run=server")
    assert changed.exit_code == 0, changed.output
    assert lines(changed) == ["configmap/report-script unchanged (server dry run)",
                              "pod/report configured (server dry run)",
                              "pod/train configured (server dry run)"]
    after = live(kube_server, pod)
    assert after == before  # same resourceVersion, same image: nothing stored
    assert after["spec"]["containers"][0]["image"] == "python:3.11"


def test_a_field_of_another_manager_is_one_line_then_taken_by_force(
        kube_server: KubeServer, kube_namespace: str, tmp_path: Path) -> None:
    module = str(tasks_module(tmp_path, "python:3.11"))
    (_, _, pod) = render(kube_namespace, module)
    # Another manager applies the same pod first, with another image.
    theirs = {**pod, "spec": {**pod["spec"], "containers": [
        {**pod["spec"]["containers"][0], "image": "python:3.10"}]}}
    kube_server.request("PATCH", f"/api/v1/namespaces/{kube_namespace}/pods/train"
                        "?fieldManager=other-team", theirs,
                        content_type="application/apply-patch+yaml")
    refused = apply(kube_server, kube_namespace, module)
    assert refused.exit_code == 1
    assert lines(refused) == ["configmap/report-script created", "pod/report created"]
    error, summary = refused.stderr.splitlines()
    container = pod["spec"]["containers"][0]["name"]
    assert error.startswith(
        f"error: pod/train (namespace {kube_namespace}): spec.containers[name=\"{container}\"]"
        '.image: conflict with "other-team"')
    assert "[Conflict] (fix: rerun with --force-conflicts" in error
    assert summary == ("error: applied before the refusal: configmap/report-script, "
                       "pod/report; not sent: nothing")
    path = f"/api/v1/namespaces/{kube_namespace}/pods/train"
    assert live(kube_server, path)["spec"]["containers"][0]["image"] == "python:3.10"
    forced = apply(kube_server, kube_namespace, module, "--force-conflicts")
    assert forced.exit_code == 0, forced.output
    assert lines(forced) == ["configmap/report-script unchanged", "pod/report unchanged",
                             "pod/train configured"]
    taken = live(kube_server, path)
    assert taken["spec"]["containers"][0]["image"] == "python:3.11"
    assert apply(kube_server, kube_namespace, module).stdout.count(" unchanged\n") == 3


def test_a_refusal_stops_the_apply_and_says_what_was_not_sent(
        kube_server: KubeServer, kube_namespace: str, tmp_path: Path) -> None:
    # The ConfigMap exists with another manager's data: the first object is refused.
    kube_server.request("PATCH", f"/api/v1/namespaces/{kube_namespace}/configmaps/"
                        "report-script?fieldManager=other-team", {
                            "apiVersion": "v1", "kind": "ConfigMap",
                            "metadata": {"name": "report-script"},
                            "data": {"script.sh": "echo theirs"}},
                        content_type="application/apply-patch+yaml")
    refused = apply(kube_server, kube_namespace, str(tasks_module(tmp_path, "python:3.11")))
    assert refused.exit_code == 1 and refused.stdout == ""
    assert refused.stderr.splitlines()[-1] == (
        "error: applied before the refusal: nothing; not sent: pod/report, pod/train")
    assert live(kube_server, f"/api/v1/namespaces/{kube_namespace}/pods/report") is None


def test_render_piped_to_kubectl_apply_server_side(kube_server: KubeServer,
                                                   kube_namespace: str, tmp_path: Path) -> None:
    examples = examples_in(kube_namespace, tmp_path)
    kubectl = binary("kubectl")
    rendered = subprocess.run([sys.executable, "-c", RENDER, "render", *examples,
                               "--namespace", kube_namespace], cwd=REPO, capture_output=True,
                              text=True, timeout=120, check=False)
    assert rendered.returncode == 0, rendered.stderr
    prepare_for(kube_server, kube_namespace, rendered_documents(rendered.stdout))
    applied = subprocess.run([str(kubectl), "--kubeconfig", str(kube_server.kubeconfig),
                              "apply", "--server-side", "-f", "-"], input=rendered.stdout,
                             capture_output=True, text=True, timeout=120, check=False)
    assert applied.returncode == 0, applied.stderr
    count = len(rendered_documents(rendered.stdout))
    assert applied.stdout.count(" serverside-applied\n") == count
    for document in rendered_documents(rendered.stdout):
        found = subprocess.run([str(kubectl), "--kubeconfig", str(kube_server.kubeconfig),
                                "get", "-n", kube_namespace, object_ref(document), "-o", "name"],
                               capture_output=True, text=True, timeout=60, check=False)
        assert found.returncode == 0, found.stderr
    # Taking the objects over from kubectl's field manager: a pod's tolerations (an atomic
    # list the server extends) are kubectl's, so podtemplate refuses until forced.
    taken = apply(kube_server, kube_namespace, *examples, "--force-conflicts")
    assert taken.exit_code == 0, taken.output
    assert len(lines(taken)) == count


def test_a_training_runtime_goes_in_before_the_train_job_naming_it(
        kube_server: KubeServer, kube_namespace: str) -> None:
    trainer = (f"{REPO / 'examples' / 'pytorch_tasks.py'}:train_vit", "--platform",
               str(REPO / "examples" / "platform-trainer.yaml"))
    result = apply(kube_server, kube_namespace, *trainer)
    assert result.exit_code == 0, result.output
    assert lines(result) == ["trainingruntime.trainer.kubeflow.org/train-vit created",
                             "trainjob.trainer.kubeflow.org/train-vit created"]
    job = live(kube_server, f"/apis/trainer.kubeflow.org/v1alpha1/namespaces/{kube_namespace}"
               "/trainjobs/train-vit")
    assert job is not None and job["spec"]["runtimeRef"]["name"] == "train-vit"

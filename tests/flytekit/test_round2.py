"""Issue 30, flytekit parity round 2: ported flytekit code renders with only the imports
changed (``ported_round2/``), or fails with one line per needed change, all in one
render: flytekit names we do not provide give a hint, every refusal of a file is reported
together, a required input without ``--input`` is refused at render, and image
placeholders are resolved from platform.yaml's ``images:`` or refused."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import podtemplate
import pytest
from click.testing import CliRunner
from podtemplate import FlytekitNameError
from podtemplate.cli.main import main
from podtemplate.testing import render_cli, rendered_documents
from podtemplate.testing.policy_kit import assert_valid_manifest

PORTED = Path(__file__).resolve().parent / "ported_round2"
IMAGES = "images:\n  trainer: ghcr.io/acme/train:1.2\n  default: python:3.11-slim\n"


def _render(*args: str) -> list[dict[str, Any]]:
    result = render_cli(*args)
    assert result.exit_code == 0, result.output
    manager = podtemplate.build_plugin_manager()
    documents = rendered_documents(result.stdout)
    for document in documents:
        assert_valid_manifest(document, manager)
    return documents


def _errors(result: Any) -> list[str]:
    return [line for line in result.output.splitlines() if line.startswith("error: ")]


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_worker_master_and_the_policy_enums_render_as_flytekit_means_them() -> None:
    documents = _render(f"{PORTED / 'pytorch_replicas.py'}")
    jobs = {d["metadata"]["name"]: d["spec"] for d in documents if d["kind"] == "PyTorchJob"}
    mnist = jobs["mnist-pytorch-job"]
    assert mnist["pytorchReplicaSpecs"]["Worker"]["replicas"] == 2
    assert mnist["runPolicy"] == {"cleanPodPolicy": "All", "backoffLimit": 2}
    for replica in mnist["pytorchReplicaSpecs"].values():
        assert replica["restartPolicy"] == "Never"
    legacy = jobs["legacy-num-workers"]
    assert legacy["pytorchReplicaSpecs"]["Worker"]["replicas"] == 3
    worker_pod = legacy["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]
    assert not any(v.get("emptyDir", {}).get("medium") == "Memory"
                   for v in worker_pod.get("volumes", []))  # increase_shared_mem=False


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_flytekits_pod_task_config_is_the_tasks_pod_template() -> None:
    (pod,) = _render(str(PORTED / "pod_plugin.py"))
    assert pod["metadata"]["labels"]["team"] == "ml"
    containers = {c["name"]: c for c in pod["spec"]["containers"]}
    assert list(containers) == ["primary", "secondary"]
    assert containers["primary"]["image"] == "python:3.11-slim"
    assert containers["primary"]["volumeMounts"] == [{"mountPath": "/data",
                                                      "name": "shared-data"}]
    assert containers["secondary"]["image"] == "alpine"


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_a_pod_task_config_beside_a_pod_template_is_refused() -> None:
    from podtemplate import DefinitionError, Pod, PodTemplate, task

    with pytest.raises(DefinitionError, match=r"task_config=Pod\(...\) and pod_template= "
                       r"both given"):
        task(image="x:1", task_config=Pod(pod_spec={}),
             pod_template=PodTemplate({}))(lambda: None)


def test_num_workers_beside_a_different_worker_count_is_refused() -> None:
    from podtemplate import DefinitionError, Role
    from podtemplate_pytorch import PyTorch

    with pytest.raises(DefinitionError, match=r"num_workers=3\) and worker replicas 2"):
        PyTorch(num_workers=3, worker=Role(replicas=2))


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_each_replica_keeps_its_own_restart_policy_as_on_flyte() -> None:
    # flyteplugins kfoperators common_operator.go ToReplicaSpecWithOverrides sets each
    # replica spec's RestartPolicy from its own replica config.
    from podtemplate import Platform, render, task
    from podtemplate_pytorch import Master, PyTorch, RestartPolicy, Worker

    @task(image="python:3.11", task_config=PyTorch(
        master=Master(restart_policy=RestartPolicy.ALWAYS),
        worker=Worker(restart_policy=RestartPolicy.FAILURE), restart_policy="Never"))
    def train() -> None: ...

    (job,) = render(train, platform=Platform())
    specs = job["spec"]["pytorchReplicaSpecs"]
    assert (specs["Master"]["restartPolicy"], specs["Worker"]["restartPolicy"]) == (
        "Always", "OnFailure")


@pytest.mark.parametrize(("package", "name", "hint"), [
    ("podtemplate", "Secret", "mount the secret with a template"),
    ("podtemplate", "TaskMetadata", "activeDeadlineSeconds"),
    ("podtemplate", "kwtypes", "inputs=['x']"),
    ("podtemplate", "workflow", "drop @workflow"),
    ("podtemplate", "ImageSpec", "image='{{.image.NAME}}'"),
    ("podtemplate_spark", "DatabricksV2", "task_config=Spark(spark_conf=...)"),
    ("podtemplate_ray", "AutoscalerOptionsConfig", "Ray(autoscaler_options=AutoscalerOptions("),
    ("podtemplate_shell", "OutputLocation", "drop OutputLocation and output_locs="),
])
def test_a_flytekit_name_we_do_not_provide_fails_to_import_with_the_hint(
        package: str, name: str, hint: str) -> None:
    module = importlib.import_module(package)
    with pytest.raises(ImportError) as raised:
        exec(f"from {package} import {name}", {})
    assert isinstance(raised.value, FlytekitNameError)
    message = str(raised.value)
    assert f"{name} is flytekit's" in message and hint in message and "\n" not in message
    assert not hasattr(module, "NoSuchName")  # other names: a plain AttributeError


REFUSED = '''\
from podtemplate import Resources, task
from podtemplate_pytorch import Elastic


@task(container_image="python:3.11", retries=3, cache=True)
def first(a: int = 1) -> int:
    return a


@task(container_image="python:3.11",
      task_config=Elastic(nnodes=2, start_method="spawn"))
def second() -> None: ...


@task(container_image="python:3.11", resources=Resources(cpu="1"))
def third() -> None: ...


@task(container_image="python:3.11")
def fine() -> None: ...


again = fine.with_overrides(timeout=60)
'''


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_every_refusal_of_a_file_is_reported_in_one_render(tmp_path: Path) -> None:
    module = tmp_path / "flytekit_refusals_r2.py"
    module.write_text(REFUSED)
    result = render_cli(str(module))
    assert result.exit_code == 2
    lines = _errors(result)
    expected = [(5, "@task(retries=...)"), (5, "@task(cache=...)"),
                (11, "Elastic(start_method=...)"), (15, "@task(resources=...)"),
                (23, "with_overrides(timeout=...)")]
    assert len(lines) == len(expected), result.output
    for line, (number, what) in zip(lines, expected, strict=True):
        assert line.startswith(f"error: {module}:{number}, "), line
        assert what in line and "(fix: " in line, line


def test_a_statement_that_only_names_a_refused_task_is_skipped_not_reported(
        tmp_path: Path) -> None:
    module = tmp_path / "flytekit_refusals_r2b.py"
    module.write_text(textwrap.dedent('''\
        from podtemplate import task

        @task(image="python:3.11", cache=True)
        def first() -> None: ...

        later = first.with_overrides(image="python:3.12")
        also = [later, first]
    '''))
    result = render_cli(str(module))
    assert result.exit_code == 2
    (line,) = _errors(result)
    assert f"{module}:3" in line and "cache" in line


def test_an_error_that_is_no_refusal_still_ends_the_import_at_its_line(
        tmp_path: Path) -> None:
    module = tmp_path / "flytekit_refusals_r2c.py"
    module.write_text('from podtemplate import task\n\n'
                      '@task(image="python:3.11", cache=True)\ndef first() -> None: ...\n\n'
                      'value = 1 / 0\n')
    result = render_cli(str(module))
    assert result.exit_code == 2
    (line,) = _errors(result)
    assert "ZeroDivisionError" in line and f"{module}:6" in line


def test_imported_flytekit_names_are_reported_with_the_other_refusals(tmp_path: Path) -> None:
    module = tmp_path / "flytekit_names_r2.py"
    module.write_text(textwrap.dedent('''\
        from podtemplate import Secret, task
        from podtemplate_shell import OutputLocation

        SECRET = Secret(group="db", key="password")

        @task(image="python:3.11", secret_requests=[SECRET])
        def uses_secret() -> None: ...

        @task(image="python:3.11", cache=True)
        def cached() -> None: ...
    '''))
    result = render_cli(str(module))
    assert result.exit_code == 2
    lines = _errors(result)
    # `task` of the same import statement is still bound: the task's own refusal is
    # reported too (secret_requests= names SECRET, whose Secret(...) was refused: skipped).
    numbers = [re.search(r"\.py:(\d+)[:,] ", line) for line in lines]
    assert [match.group(1) for match in numbers if match] == ["1", "2", "9"], lines
    assert "Secret is flytekit's" in lines[0] and "OutputLocation is flytekit's" in lines[1]
    assert "@task(cache=...)" in lines[2]


def test_a_required_input_without_input_is_one_line_naming_it_and_the_fix() -> None:
    result = render_cli(f"{PORTED / 'image_placeholders.py'}:train",
                        "--platform", str(_platform_file()))
    assert result.exit_code == 2
    (line,) = _errors(result)
    assert "task 'train', inputs.learning_rate: input 'learning_rate' of the function" in line
    assert "(fix: --input learning_rate=VALUE" in line


def test_image_placeholders_are_resolved_from_the_platform_images() -> None:
    documents = _render(str(PORTED / "image_placeholders.py"), "--platform",
                        str(_platform_file()), "--input", "learning_rate=0.1")
    images = {d["metadata"]["name"]: d["spec"]["containers"][0]["image"] for d in documents}
    assert images == {"train": "ghcr.io/acme/train:1.2", "evaluate": "python:3.11-slim"}


def test_an_image_placeholder_naming_no_image_is_one_line() -> None:
    result = render_cli(f"{PORTED / 'image_placeholders.py'}:train",
                        "--input", "learning_rate=0.1")
    assert result.exit_code == 2
    (line,) = _errors(result)
    assert "spec.containers[primary].image: image placeholder {{.image.trainer.fqn}} names " \
           "no image of platform.yaml's images" in line
    assert "(fix: add images: {trainer: REGISTRY/IMAGE:TAG} to platform.yaml" in line


def test_validate_refuses_an_image_still_holding_a_placeholder(tmp_path: Path) -> None:
    manifest = tmp_path / "pod.yaml"
    manifest.write_text(textwrap.dedent('''\
        apiVersion: v1
        kind: Pod
        metadata: {name: train}
        spec:
          containers:
          - name: main
            image: "{{.image.trainer.fqn}}:{{.image.trainer.version}}"
    '''))
    result = CliRunner().invoke(main, ["validate", str(manifest)], catch_exceptions=False)
    assert result.exit_code == 1
    assert "spec.containers[main].image: image '{{.image.trainer.fqn}}:" in result.output
    assert "still holds a placeholder" in result.output


def test_the_core_package_hints_exactly_the_names_it_has_hints_for() -> None:
    from podtemplate.migration import CORE_NAMES

    assert set(CORE_NAMES) == podtemplate._FLYTEKIT_ONLY


def test_the_ported_files_import_cleanly_in_a_fresh_interpreter() -> None:
    # The hint mechanism must not break ordinary imports of every provided name.
    code = ("import podtemplate_pytorch, podtemplate_ray, podtemplate_shell, podtemplate_spark,"
            " podtemplate; [getattr(m, n) for m in (podtemplate_pytorch, podtemplate_ray, "
            "podtemplate_shell, podtemplate_spark, podtemplate) for n in m.__all__]")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


_PLATFORM: list[Path] = []


def _platform_file() -> Path:
    if not _PLATFORM:
        import tempfile

        folder = Path(tempfile.mkdtemp(prefix="podtemplate-r2-"))
        (folder / "platform.yaml").write_text(IMAGES)
        _PLATFORM.append(folder / "platform.yaml")
    return _PLATFORM[0]

"""The ported set (issue 30): short task definitions in Flyte's spellings, one file per
theme under ``tests/flyte_ported/``, each rendered as a user would with the set's
platform.yaml. A file either renders, with the pod facts Flyte gives the same code, or
fails with exactly the one-line hints expected, all of them in one render.

Themes 3 (resources) and 4 (Flyte's documented default PodTemplate) are also judged
against flytekit and Flyte's backend by the oracle tests (tests/flyte_oracle); here they
render with the set's own platform files, as a migrating user would."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import podtemplate
import pytest
from podtemplate.testing import render_cli, rendered_documents
from podtemplate.testing.policy_kit import assert_valid_manifest

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")
PORTED = Path(__file__).resolve().parent / "flyte_ported"
PLATFORM = str(PORTED / "platform.yaml")
LABEL = "k8s.amazonaws.com/accelerator"


def _render(name: str, *inputs: str) -> dict[str, dict[str, Any]]:
    result = render_cli(str(PORTED / name), "--platform", PLATFORM, *inputs)
    assert result.exit_code == 0, result.output
    manager = podtemplate.build_plugin_manager()
    documents = rendered_documents(result.stdout)
    for document in documents:
        assert_valid_manifest(document, manager)
    return {f"{d['kind']}/{d['metadata']['name']}": d for d in documents}


def _errors(name: str, *extra: str) -> list[str]:
    result = render_cli(str(PORTED / name), *extra)
    assert result.exit_code == 2, result.output
    return [line.removeprefix("error: ") for line in result.output.splitlines()
            if line.startswith("error: ")]


def _replica_pods(job: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: spec["template"]["spec"]
            for name, spec in job["spec"]["pytorchReplicaSpecs"].items()}


def test_theme1_flytekit_names_render_as_flytekit_means_them() -> None:
    found = _render("theme1_flytekit_names.py")
    mnist = found["PyTorchJob/mnist"]["spec"]
    assert mnist["pytorchReplicaSpecs"]["Worker"]["replicas"] == 3
    # each replica its own restart policy (the master's unset: Flyte's Never)
    assert [mnist["pytorchReplicaSpecs"][r]["restartPolicy"] for r in ("Master", "Worker")] \
        == ["Never", "OnFailure"]
    assert mnist["runPolicy"] == {"cleanPodPolicy": "Running"}
    master = _replica_pods(found["PyTorchJob/mnist"])["Master"]["containers"][0]
    assert master["resources"]["limits"]["memory"] == "4Gi"
    assert found["PyTorchJob/legacy"]["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] == 2
    dask = found["DaskJob/crunch"]["spec"]["cluster"]["spec"]
    assert dask["worker"]["replicas"] == 4
    pod = found["Pod/pod-plugin"]
    assert [c["name"] for c in pod["spec"]["containers"]] == ["primary", "sidecar"]
    assert pod["metadata"]["labels"]["team"] == "ml"


def test_theme2_old_client_objects_render_as_the_api_server_reads_them() -> None:
    spec = _render("theme2_kubernetes_objects.py")["Pod/on-gpu-nodes"]["spec"]
    assert spec["containers"][0]["resources"]["limits"] == {"cpu": "2", "memory": "4Gi"}
    assert {"key": "num-gpus", "operator": "Equal", "value": "1",
            "effect": "NoSchedule"} in spec["tolerations"]


def test_theme3_a_gpu_is_flytes_gpu_resource_with_its_toleration() -> None:
    spec = _render("theme3_resources.py")["Pod/train-gpu"]["spec"]
    resources = spec["containers"][0]["resources"]
    assert resources["requests"]["nvidia.com/gpu"] == resources["limits"]["nvidia.com/gpu"] == "1"
    assert {"key": "nvidia.com/gpu", "operator": "Exists",
            "effect": "NoSchedule"} in spec["tolerations"]


def test_theme5_flytes_behaviours() -> None:
    found = _render("theme5_behaviours.py", "--input", "a=3")
    a100 = found["Pod/on-a100"]["spec"]
    assert {"key": LABEL, "operator": "Equal", "value": "nvidia-tesla-a100",
            "effect": "NoSchedule"} in a100["tolerations"]
    assert a100["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"] == [{"matchExpressions": [
            {"key": LABEL, "operator": "In", "values": ["nvidia-tesla-a100"]}]}]
    single = found["Pod/one-node"]["spec"]["containers"][0]
    assert single["command"] == ["torchrun"] and "--nnodes=1" in single["args"]
    assert "--nproc_per_node=2" in single["args"]
    many = found["PyTorchJob/many-nodes"]["spec"]
    assert many["pytorchReplicaSpecs"]["Worker"]["replicas"] == 3
    assert {"key": "timeout", "value": "1200"} in many["elasticPolicy"]["rdzvConf"]
    replicas = found["PyTorchJob/replicas"]["spec"]["pytorchReplicaSpecs"]
    assert {r["restartPolicy"] for r in replicas.values()} == {"Never"}
    assert found["DaskJob/runner"]["spec"]["job"]["spec"]["restartPolicy"] == "Never"
    moved = found["Pod/moved"]["spec"]
    assert moved["hostIPC"] is True and "nodeSelector" not in moved
    assert found["Pod/ellipse"]["spec"]["containers"][0]["command"] == ["echo", "3"]
    image = found["Pod/placeholder"]["spec"]["containers"][0]["image"]
    assert image == "ghcr.io/acme/train:2.1"


def test_theme5_an_unknown_image_placeholder_is_one_line() -> None:
    (line,) = _errors("theme5_image_unknown.py", "--platform", PLATFORM)
    assert line.startswith("task 'evaluate', role 'pod', spec.containers[primary].image: image "
                           "placeholder {{.image.evaluator.fqn}} names no image of "
                           "platform.yaml's images (known: trainer)")
    assert "(fix: add images: {evaluator: REGISTRY/IMAGE:TAG} to platform.yaml" in line


def test_theme6_a_required_input_is_one_line_naming_it() -> None:
    (line,) = _errors("theme6_required_input.py", "--platform", PLATFORM)
    assert line.startswith("task 'train', inputs.learning_rate: input 'learning_rate' of "
                           "the function has no --input and no default")
    assert "(fix: --input learning_rate=VALUE" in line


def test_theme7_every_refusal_of_the_file_in_one_render() -> None:
    module = PORTED / "theme7_every_refusal.py"
    lines = _errors("theme7_every_refusal.py", "--platform", PLATFORM)
    expected = [
        (4, "Secret is flytekit's; podtemplate has no Secret"),
        (7, "V1Container.command: V1Container(command='tail -f /var/log/app.log'): the "
            "Kubernetes API takes a list here"),
        (11, "retries: @task(retries=...) is a setting of Flyte's engine"),
        (15, "task_config.elastic.start_method: Elastic(start_method=...) is flytekit's"),
    ]
    assert len(lines) == len(expected), lines
    for line, (number, what) in zip(lines, expected, strict=True):
        assert line.startswith(f"{module}:{number}") and what in line, line
        assert line.count("(fix: ") == 1, line
    assert "(fix: write command=['tail', '-f', '/var/log/app.log'])" in lines[1]


def test_theme8_spark_platform_defaults_are_not_native_spark_fields() -> None:
    result = render_cli(str(PORTED / "theme8_spark.py"), "--platform", PLATFORM)
    assert result.exit_code == 0 and "warning" not in result.output, result.output
    (app,) = rendered_documents(result.stdout)
    for role in ("driver", "executor"):
        section = app["spec"][role]
        assert not {"cores", "coreRequest", "memory"} & set(section), section
        container = section["template"]["spec"]["containers"][0]
        assert container["resources"]["requests"] == {"cpu": "500m", "memory": "1Gi"}
    assert app["spec"]["sparkConf"]["spark.executor.cores"] == "1"


def test_every_theme_file_is_rendered_by_a_test_here() -> None:
    import sys

    tested = {name for name in dir(sys.modules[__name__]) if name.startswith("test_theme")}
    themes = {path.stem.split("_")[0] for path in PORTED.glob("theme*.py")}
    assert themes == {f"theme{n}" for n in range(1, 9)}
    assert all(any(name.startswith(f"test_{theme}_") for name in tested) for theme in themes)


def _render_with(platform: str, name: str) -> dict[str, dict[str, Any]]:
    result = render_cli(str(PORTED / name), "--platform", str(PORTED / platform))
    assert result.exit_code == 0, result.output
    return {f"{d['kind']}/{d['metadata']['name']}": d
            for d in rendered_documents(result.stdout)}


def test_theme3_resources_are_completed_as_flytes_backend_completes_them() -> None:
    found = _render_with("platform_default_template.yaml", "theme3_flyte_fill.py")

    def resources(name: str) -> dict[str, Any]:
        resources: dict[str, Any] = found[f"Pod/{name}"]["spec"]["containers"][0]["resources"]
        return resources

    # limits alone: the request is the limit, not the platform's default request
    assert resources("limits-only") == {"requests": {"cpu": "4", "memory": "8Gi"},
                                        "limits": {"cpu": "4", "memory": "8Gi"}}
    # an unset limit is the request, not the platform's limit
    assert resources("requests-only") == {"requests": {"cpu": "1", "memory": "2Gi"},
                                          "limits": {"cpu": "1", "memory": "2Gi"}}
    # the platform's limits cap what is above them
    assert resources("above-the-cap")["requests"]["cpu"] == "4"
    assert resources("above-the-cap")["limits"]["cpu"] == "4"


def test_theme4_flytes_default_template_gives_no_placeholder_image_and_no_noop() -> None:
    found = _render_with("platform_default_template.yaml", "theme4_default_template.py")
    for name, image in (("no-image", "python:3.11-slim"), ("own-image", "ghcr.io/acme/etl:3")):
        pod = found[f"Pod/{name}"]
        containers = pod["spec"]["containers"]
        assert [c["name"] for c in containers] == ["primary"], containers
        assert containers[0]["image"] == image
        # the rest of the default template still applies
        assert containers[0]["terminationMessagePolicy"] == "FallbackToLogsOnError"
        assert {"key": "dedicated", "operator": "Equal", "value": "ml",
                "effect": "NoSchedule"} in pod["spec"]["tolerations"]
        assert pod["metadata"]["labels"]["platform"] == "flyte"

"""Issue 30, theme 8: what only platform.yaml's ``defaultResources`` gives the Spark
containers does not become a native Spark field (as on Flyte, whose spark plugin takes
cores and memory from the Spark configuration alone: flyteplugins k8s/spark/spark.go), so
``spark_conf`` or Spark's own defaults decide; a warning about a native value names the
layer that set it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from podtemplate import Platform, PodTemplate, RenderContext, Resources, task
from podtemplate_spark import Spark

Render = Callable[..., tuple[dict[str, Any], RenderContext]]
DEFAULTS = Platform(defaultImage="python:3.11",
                    defaultResources={"requests": {"cpu": "500m", "memory": "1Gi"},
                                      "limits": {"cpu": "2"}})


def test_platform_defaults_stay_in_the_pod_and_out_of_the_native_fields(
        render_spark: Render) -> None:
    @task(image="spark:1", task_config=Spark(spark_conf={"spark.executor.cores": "1"}))
    def job() -> None: ...

    manifest, context = render_spark(job, DEFAULTS)
    for role in ("driver", "executor"):
        section = manifest["spec"][role]
        assert not {"cores", "coreRequest", "coreLimit", "memory"} & set(section), section
        resources = section["template"]["spec"]["containers"][0]["resources"]
        assert resources["requests"] == {"cpu": "500m", "memory": "1Gi"}
    assert context.warnings == []


def test_what_the_task_sets_is_still_native_beside_the_platform_defaults(
        render_spark: Render) -> None:
    @task(image="spark:1", requests=Resources(memory="4Gi"), task_config=Spark())
    def job() -> None: ...

    manifest, _ = render_spark(job, DEFAULTS)
    executor = manifest["spec"]["executor"]
    assert executor["memory"] == "4g"  # the task's memory, in Spark's unit
    assert "coreRequest" not in executor and "cores" not in executor  # only defaults


def test_a_warning_names_the_layer_that_set_the_native_value(render_spark: Render) -> None:
    template = PodTemplate({"containers": [{"name": "primary",
                                            "resources": {"requests": {"cpu": "3"}}}]})

    @task(image="spark:1", pod_template=template,
          task_config=Spark(spark_conf={"spark.executor.cores": "1"}))
    def job() -> None: ...

    # no cpu cap here: a cap of 2 would lower the template's 3 first (with its own warning)
    uncapped = Platform(defaultImage="python:3.11",
                        defaultResources={"requests": {"cpu": "500m", "memory": "1Gi"}})
    _, context = render_spark(job, uncapped)
    (warning,) = [str(w) for w in context.warnings]
    assert "spark_conf['spark.executor.cores']='1' wins over cores 3 taken from the " \
           "executor pod (set by the task template)" in warning

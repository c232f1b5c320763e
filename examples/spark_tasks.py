"""Spark tasks: each renders to one Kubeflow Spark Operator SparkApplication whose driver
and executors carry their full pods in spec.driver.template / spec.executor.template.

Render them:  podtemplate render examples/spark_tasks.py --platform examples/platform.yaml
(needs podtemplate-spark installed).
"""

from podtemplate import PodTemplate, Resources, Role, task
from podtemplate_spark import Spark, SparkApplicationTask, SparkRole

# Executors get a scratch volume for Spark's local dirs (Spark uses volumes named
# spark-local-dir-* for shuffle and spill) and a read-only dataset volume.
executor_volumes = PodTemplate(
    pod_spec={
        "volumes": [
            {"name": "spark-local-dir-1", "emptyDir": {"sizeLimit": "50Gi"}},
            {"name": "datasets", "persistentVolumeClaim": {"claimName": "datasets",
                                                           "readOnly": True}},
        ],
        "containers": [
            {"name": "primary", "volumeMounts": [
                {"name": "spark-local-dir-1", "mountPath": "/var/spark/local"},
                {"name": "datasets", "mountPath": "/datasets", "readOnly": True},
            ]},
        ],
    },
)

# The driver stays on on-demand nodes: a lost driver loses the whole application.
driver_on_demand = PodTemplate(pod_spec={"nodeSelector": {"node-pool": "on-demand"}})


@task(
    image="ghcr.io/acme/spark-py:3.5.5",
    pod_template_name="spark-default",
    task_config=Spark(
        spark_conf={"spark.sql.shuffle.partitions": 200, "spark.sql.adaptive.enabled": True},
        driver=Role(pod_template=driver_on_demand,
                    requests=Resources(cpu="1", memory="2Gi")),
        executor=SparkRole(replicas=8, interruptible=True, pod_template=executor_volumes,
                           requests=Resources(cpu="4", memory="16Gi"),
                           memory_overhead="2Gi"),
    ),
)
def daily_rollup(day: str = "2026-01-01") -> int:
    """A PySpark function task: the driver runs this function; executors on spot nodes."""
    from pyspark.sql import SparkSession  # only in the Spark image, not needed to render

    spark = SparkSession.builder.getOrCreate()
    events = spark.read.parquet(f"/datasets/events/day={day}")
    return int(events.groupBy("user_id").count().count())


# A JVM application: the SparkPi example jar of the Spark image, on GPU executors.
spark_pi = SparkApplicationTask(
    name="spark-pi",
    image="apache/spark:3.5.5",
    main_application_file="local:///opt/spark/examples/jars/spark-examples_2.12-3.5.5.jar",
    main_class="org.apache.spark.examples.SparkPi",
    arguments=["1000"],
    executor=Role(replicas=2, requests=Resources(cpu="2", memory="4Gi", gpu=1)),
)

"""flytesnacks "pyspark pi" example, ported: spark_conf as written, flytekit's
driver_pod/executor_pod; interruptible=True puts the executors on spot nodes, not the
driver (as on Flyte)."""

from podtemplate import PodTemplate, Resources, task
from podtemplate_spark import Spark

fast_disks = PodTemplate({"nodeSelector": {"disk": "nvme"}})


@task(
    task_config=Spark(
        spark_conf={
            "spark.driver.memory": "1000M",
            "spark.executor.memory": "1000M",
            "spark.executor.cores": "1",
            "spark.executor.instances": "2",
            "spark.driver.cores": "1",
        },
        executor_pod=fast_disks,
    ),
    limits=Resources(mem="2000M"),
    container_image="ghcr.io/flyteorg/flytekit:py3.11-spark",
    interruptible=True,
)
def hello_spark(partitions: int = 10) -> float:
    import random

    from pyspark.sql import SparkSession

    session = SparkSession.builder.getOrCreate()
    n = 100000 * partitions
    count = session.sparkContext.parallelize(range(1, n + 1), partitions).map(
        lambda _: 1 if random.random() ** 2 + random.random() ** 2 <= 1 else 0).reduce(
        lambda a, b: a + b)
    return 4.0 * count / n

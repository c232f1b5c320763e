"""Theme 8: Spark with the platform's defaultResources: the Spark conf decides."""

from podtemplate import task
from podtemplate_spark import Spark


@task(container_image="ghcr.io/acme/spark:1",
      task_config=Spark(spark_conf={"spark.executor.cores": "1", "spark.driver.memory": "2g",
                                    "spark.executor.instances": "2"}))
def aggregate() -> None: ...

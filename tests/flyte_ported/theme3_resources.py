"""Theme 3: resources as Flyte gives them, where both agree: a GPU is requested and
limited under the platform's GPU name, and brings its toleration."""

from podtemplate import Resources, task


@task(container_image="python:3.11", requests=Resources(cpu="2", mem="8Gi", gpu=1),
      limits=Resources(cpu="2", mem="8Gi", gpu=1))
def train_gpu() -> None: ...

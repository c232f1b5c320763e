"""Tasks whose images are flytekit's placeholders, resolved from platform.yaml's images."""

from podtemplate import task


@task(container_image="{{.image.trainer.fqn}}:{{.image.trainer.version}}")
def train(learning_rate: float) -> None: ...


@task(container_image="{{.image.default}}")
def evaluate(split: str = "test") -> None: ...

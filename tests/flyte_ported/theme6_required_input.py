"""Theme 6: a required input without --input is refused at render, not at pod start."""

from podtemplate import task


@task(container_image="python:3.11")
def train(learning_rate: float, epochs: int = 1) -> None: ...

"""Theme 5: an image placeholder naming no image of the platform's images."""

from podtemplate import task


@task(container_image="{{.image.evaluator.fqn}}:{{.image.evaluator.version}}")
def evaluate() -> None: ...

"""Theme 4: Flyte's documented default PodTemplate (placeholder image, noop container)
under tasks with and without an image."""

from podtemplate import task


@task
def no_image() -> None: ...


@task(container_image="ghcr.io/acme/etl:3")
def own_image() -> None: ...

"""flytesnacks "raw containers", ported: ContainerTask with typed inputs filled into the
command line (``--input a=... --input b=...``)."""

from podtemplate_container import ContainerTask

calculate_ellipse_area_shell = ContainerTask(
    name="ellipse-area-metadata-shell",
    image="ghcr.io/flyteorg/rawcontainers-shell:v2",
    inputs={"a": float, "b": float},
    command=["./calculate-ellipse-area.sh", "/var/outputs", "{{.inputs.a}}", "{{.inputs.b}}"],
)

calculate_ellipse_area_python = ContainerTask(
    name="calculate_ellipse_area_python",
    image="ghcr.io/flyteorg/rawcontainers-python:v2",
    inputs={"a": float, "b": float},
    command=["python", "calculate-ellipse-area.py"],
    arguments=["/var/outputs", "{{.inputs.a}}", "{{.inputs.b}}"],
)

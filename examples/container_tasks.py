"""Container tasks: any image, command and args, each rendered to one v1 Pod.

Needs the plugin:  pip install podtemplate-container
Render them:       podtemplate render examples/container_tasks.py --platform examples/platform.yaml
"""

from podtemplate import Resources
from podtemplate_container import ContainerTask

# Runs a Go binary from the private registry; no Python in the image. The named template
# adds the pull secret and the security context, the task its own command and args.
migrate = ContainerTask(
    name="db-migrate",
    image="registry.acme.io/platform/migrate:4.17",
    command=["/usr/local/bin/migrate"],
    args=["-path", "/migrations", "-database", "$(DATABASE_URL)", "up"],
    env={"DATABASE_URL": "postgres://analytics@db.ml-team:5432/analytics"},
    requests=Resources(cpu="250m", memory="256Mi"),
    limits=Resources(memory="256Mi"),
    pod_template_name="private-registry",
)

# The image's own ENTRYPOINT with new args, on the cluster default template and on spot
# nodes (interruptible).
nightly_report = ContainerTask(
    name="nightly-report",
    image="ghcr.io/acme/reports:2.3",
    args=["--report", "daily-usage", "--format", "parquet"],
    requests=Resources(cpu="1", memory="2Gi"),
    interruptible=True,
)

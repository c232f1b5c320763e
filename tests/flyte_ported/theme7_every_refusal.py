"""Theme 7: a file needing several changes says all of them in one render."""

from kubernetes.client import V1Container
from podtemplate import Secret, task
from podtemplate_pytorch import Elastic

SIDECAR = V1Container(name="log", image="busybox", command="tail -f /var/log/app.log")
TOKEN = Secret(group="hf", key="token")


@task(container_image="python:3.11", retries=2)
def fetch() -> None: ...


@task(container_image="python:3.11", task_config=Elastic(nnodes=2, start_method="fork"))
def train() -> None: ...

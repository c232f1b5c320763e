"""Theme 1: flytekit's names, with the imports changed only."""

from podtemplate import Pod, Resources, task
from podtemplate_dask import Dask, Scheduler, WorkerGroup
from podtemplate_pytorch import CleanPodPolicy, Master, PyTorch, RestartPolicy, RunPolicy, Worker


@task(container_image="ghcr.io/acme/mnist:1",
      task_config=PyTorch(worker=Worker(replicas=3, restart_policy=RestartPolicy.FAILURE),
                          master=Master(limits=Resources(mem="4Gi")),
                          run_policy=RunPolicy(clean_pod_policy=CleanPodPolicy.RUNNING)))
def mnist() -> None: ...


@task(container_image="ghcr.io/acme/mnist:1", task_config=PyTorch(num_workers=2))
def legacy() -> None: ...


@task(container_image="ghcr.io/acme/dask:1",
      task_config=Dask(scheduler=Scheduler(limits=Resources(cpu="1", mem="2Gi")),
                       workers=WorkerGroup(number_of_workers=4)))
def crunch() -> None: ...


@task(container_image="python:3.11",
      task_config=Pod(pod_spec={"containers": [{"name": "primary"},
                                               {"name": "sidecar", "image": "busybox"}]},
                      labels={"team": "ml"}))
def pod_plugin() -> None: ...

"""podtemplate-pytorch: the ``pytorch`` task type, a Kubeflow ``PyTorchJob``.

```python
from podtemplate import Role, task
from podtemplate_pytorch import PyTorch

@task(image="ghcr.io/acme/train:1",
      task_config=PyTorch(worker=Role(replicas=4, pod_template_name="a100")))
def train(epochs: int) -> None: ...
```
"""

from __future__ import annotations

from .config import CONTAINER_NAME, Elastic, PyTorch, RunPolicy
from .flytekit import CleanPodPolicy, Master, RestartPolicy, Worker
from .plugin import TASK_TYPE

__all__ = ["CONTAINER_NAME", "TASK_TYPE", "CleanPodPolicy", "Elastic", "Master", "PyTorch",
           "RestartPolicy", "RunPolicy", "Worker"]

"""podtemplate-container: the ``container`` task type.

``ContainerTask(name=..., image=..., command=[...], args=[...])`` runs any image as one
``v1 Pod``, through the same template layers as every other task type.
"""

from __future__ import annotations

from .task import TASK_TYPE_NAME, ContainerTask

__all__ = ["ContainerTask", "TASK_TYPE_NAME"]

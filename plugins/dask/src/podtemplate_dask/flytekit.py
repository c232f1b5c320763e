"""flytekitplugins-dask's spellings, kept for ported code (docs/from-flytekit.md):
``Scheduler(...)`` and ``WorkerGroup(number_of_workers=...)`` build the
:class:`podtemplate.Role` of ``Dask(scheduler=..., workers=...)``, each with a one-time
warning naming ours."""

from __future__ import annotations

from podtemplate import PodTemplate, Resources, Role
from podtemplate.plugin import warn_alias

__all__ = ["Scheduler", "WorkerGroup"]


def Scheduler(image: str | None = None, requests: Resources | None = None,
              limits: Resources | None = None,
              pod_template: PodTemplate | None = None) -> Role:
    """flytekit's scheduler config: the scheduler's :class:`~podtemplate.Role`."""
    warn_alias("Scheduler(...)", "Role(...)")
    return Role(image=image, requests=requests, limits=limits, pod_template=pod_template)


def WorkerGroup(number_of_workers: int | None = 1, image: str | None = None,
                requests: Resources | None = None, limits: Resources | None = None,
                pod_template: PodTemplate | None = None) -> Role:
    """flytekit's worker group: the workers' :class:`~podtemplate.Role`, with
    ``number_of_workers`` as ``replicas``."""
    warn_alias("WorkerGroup(number_of_workers=...)", "Role(replicas=...)")
    return Role(replicas=number_of_workers, image=image, requests=requests, limits=limits,
                pod_template=pod_template)

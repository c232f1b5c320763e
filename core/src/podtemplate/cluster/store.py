"""The cluster template store (``templates: cluster`` in platform.yaml): ``v1 PodTemplate``
objects read from the cluster, as Flyte's propeller reads them. A template named by a
task (or the platform's default) is looked up in the task's namespace, then in
``fallbackNamespace``; its ``.template`` (labels, annotations, spec) is layer 1.

A built-in plugin, registered like the folder store; it answers only for
``templates: cluster``, and only then imports the store (:mod:`.podtemplates`) and the
client code it needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..hookspecs import hookimpl

if TYPE_CHECKING:
    from ..context import RenderContext
    from ..files.store import TemplateStore

__all__ = ["podtemplate_make_template_store"]


@hookimpl(trylast=True)
def podtemplate_make_template_store(context: RenderContext) -> TemplateStore | None:
    """The cluster's store when platform.yaml says ``templates: cluster``."""
    platform = context.platform
    if not platform.cluster_templates:
        return None
    from .podtemplates import ClusterTemplateStore
    from .session import open_cluster

    return ClusterTemplateStore(open_cluster(platform.kubeconfig, platform.context))

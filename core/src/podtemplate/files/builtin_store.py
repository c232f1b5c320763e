"""Built-in plugin: the folder template store, answering when a template folder is set."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..hookspecs import hookimpl
from .store import FolderTemplateStore

if TYPE_CHECKING:
    from ..context import RenderContext
    from .store import TemplateStore


@hookimpl(trylast=True)
def podtemplate_make_template_store(context: RenderContext) -> TemplateStore | None:
    platform = context.platform
    folder = platform.template_folder
    if folder is None:  # no templates, or the cluster's (podtemplate.cluster.store)
        return None
    store = FolderTemplateStore(folder, platform.home_namespace)
    for path in store.skipped:
        context.warn(f"{path}: skipped in the template folder (only .yaml and .yml files "
                     "are read)")
    return store

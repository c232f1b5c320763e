"""podtemplate-shell: the ``shell`` task type.

``ShellTask(name=..., script=..., inputs={...})`` runs a shell script as one ``v1 Pod``;
the script travels in a ConfigMap rendered beside the Pod, the inputs as env vars.
"""

from __future__ import annotations

from podtemplate.plugin import flytekit_names

from .config import MAX_SCRIPT_BYTES, ShellConfig
from .delivery import (
    SCRIPT_DIGEST_ANNOTATION,
    SCRIPT_DIR,
    SCRIPT_KEY,
    SCRIPT_PATH,
    SCRIPT_VOLUME,
    configmap_name,
)
from .task import TASK_TYPE_NAME, ShellScriptTask, ShellTask

__all__ = [
    "MAX_SCRIPT_BYTES",
    "SCRIPT_DIGEST_ANNOTATION",
    "SCRIPT_DIR",
    "SCRIPT_KEY",
    "SCRIPT_PATH",
    "SCRIPT_VOLUME",
    "TASK_TYPE_NAME",
    "ShellConfig",
    "ShellScriptTask",
    "ShellTask",
    "configmap_name",
]

# flytekit's shell-task names with no class here: what to write instead.
__getattr__ = flytekit_names(__name__, {
    "OutputLocation": "drop OutputLocation and output_locs=: podtemplate moves no outputs; "
    "have the script write to a volume a template mounts",
})

"""How the script reaches the pod: a ConfigMap beside the Pod, mounted read-only, and
the inputs as env vars of the primary container (the operator layer of the role)."""

from __future__ import annotations

import hashlib
from typing import Any

from podtemplate import InputError, RenderContext, Task, object_metadata
from podtemplate.plugin import PRIMARY_CONTAINER, object_name

from .config import ShellConfig

__all__ = [
    "SCRIPT_VOLUME",
    "SCRIPT_DIR",
    "SCRIPT_KEY",
    "SCRIPT_PATH",
    "SCRIPT_DIGEST_ANNOTATION",
    "configmap_name",
    "input_values",
    "operator_layer",
    "configmap_manifest",
]

SCRIPT_VOLUME = "podtemplate-script"
SCRIPT_DIR = "/etc/podtemplate/shell"
SCRIPT_KEY = "script.sh"
SCRIPT_PATH = f"{SCRIPT_DIR}/{SCRIPT_KEY}"
# Pods are immutable and the ConfigMap is not: the digest on the pod says which script
# version it was rendered with.
SCRIPT_DIGEST_ANNOTATION = "podtemplate.io/script-sha256"


def configmap_name(task: Task, context: RenderContext) -> str:
    return object_name(task, context, "script")


def input_values(task: Task, config: ShellConfig, context: RenderContext) -> dict[str, str]:
    """Each declared input's value: ``--input`` first, then its default."""
    values: dict[str, str] = {}
    for name, default in config.inputs.items():
        value = context.inputs.get(name, default)
        if value is None:
            raise InputError(f"input {name!r} has no value", task=task.name,
                             field=f"inputs.{name}",
                             fix=f"pass --input {name}=VALUE or give the input a default")
        if "\x00" in value:
            raise InputError(f"--input {name} contains a NUL character", task=task.name,
                             field=f"inputs.{name}", fix="remove the NUL")
        values[name] = value
    return values


def operator_layer(task: Task, config: ShellConfig, context: RenderContext) -> dict[str, Any]:
    """The script volume, its mount and the input env vars, folded over every template.

    Volume and mount carry ``$patch: replace`` so that a template's item of the same
    name or mountPath cannot leak a ``subPath`` or a different source into them."""
    env = [{"name": k, "value": v} for k, v in input_values(task, config, context).items()]
    container: dict[str, Any] = {
        "name": PRIMARY_CONTAINER,
        "volumeMounts": [{"$patch": "replace", "name": SCRIPT_VOLUME,
                          "mountPath": SCRIPT_DIR, "readOnly": True}],
    }
    if env:
        container["env"] = env
    digest = hashlib.sha256(config.script.encode("utf-8")).hexdigest()
    return {
        "metadata": {"annotations": {SCRIPT_DIGEST_ANNOTATION: digest}},
        "spec": {
            "volumes": [{"$patch": "replace", "name": SCRIPT_VOLUME,
                         "configMap": {"name": configmap_name(task, context)}}],
            "containers": [container],
        },
    }


def configmap_manifest(task: Task, config: ShellConfig, context: RenderContext
                       ) -> dict[str, Any]:
    """The ``v1 ConfigMap`` holding the script, named and labelled from the task."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": object_metadata(task, context, name=configmap_name(task, context)),
        "data": {SCRIPT_KEY: config.script},
    }

"""``ShellTask``: a shell script run as one ``v1 Pod``, its inputs as env vars."""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import Any

from podtemplate import DefinitionError, PodTemplate, Resources, Task
from podtemplate.plugin import EnvValue, defining_task, refuse_arguments, take_alias, warn_alias

from .config import ShellConfig, normalize_inputs
from .delivery import SCRIPT_PATH

__all__ = ["ShellTask", "ShellScriptTask", "TASK_TYPE_NAME"]

TASK_TYPE_NAME = ShellConfig.task_type


class ShellScriptTask(Task):
    """A :class:`~podtemplate.Task` whose parameters are its declared inputs, so that
    ``--input NAME=VALUE`` is accepted for them like for a function's parameters."""

    @property
    def config(self) -> ShellConfig:
        assert isinstance(self.task_config, ShellConfig)
        return self.task_config

    @property
    def signature(self) -> inspect.Signature:
        return inspect.Signature([
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=str,
                              default=inspect.Parameter.empty if default is None else default)
            for name, default in self.config.inputs.items()
        ])


def ShellTask(
    name: str,
    script: str,
    image: str | None = None,
    shell: str = "/bin/sh",
    env: Mapping[str, EnvValue] | None = None,
    inputs: Mapping[str, EnvValue | None] | Sequence[str] | None = None,
    requests: Resources | None = None,
    limits: Resources | None = None,
    pod_template: PodTemplate | None = None,
    pod_template_name: str | None = None,
    interruptible: bool = False,
    *,
    container_image: str | None = None,
    environment: Mapping[str, EnvValue] | None = None,
    **flytekit_only: Any,
) -> ShellScriptTask:
    """A task that runs ``script`` with ``shell`` in ``image`` (None: the template's image
    or the platform's ``defaultImage``). Define it at module level.

    ``inputs`` declares the script's inputs: ``{"DATE": "2026-01-01"}`` (a default) or
    ``["DATE"]`` (no default: ``--input DATE=...`` must give it). Each becomes an
    environment variable of the primary container; ``env`` holds fixed settings.

    The script travels in a ConfigMap rendered beside the Pod and mounted read-only at
    ``/etc/podtemplate/shell``; the primary container's command is
    ``[shell, "/etc/podtemplate/shell/script.sh"]``. See the README for why.
    """
    with defining_task(name):
        refuse_arguments(flytekit_only, _FLYTEKIT_ONLY, call="ShellTask",
                         help_name="ShellTask", accepted=ShellTask)
        image = take_alias(image, container_image, "ShellTask(container_image=...)",
                           "ShellTask(image=...)", field="image")
        env = take_alias(env, environment, "ShellTask(environment=...)", "ShellTask(env=...)",
                         field="env")
        config = ShellConfig(script=script, shell=shell,
                             inputs=normalize_inputs(_typed_inputs(inputs)))
        clashes = sorted(set(config.inputs) & set(env or {}))
        if clashes:
            raise DefinitionError(
                f"{clashes[0]!r} is both an input and an env var", field=f"inputs.{clashes[0]}",
                fix="declare it once: as an input with a default, or in env")
        if image is not None and (not isinstance(image, str) or not image.strip()):
            raise DefinitionError("image is empty", field="image",
                                  fix="give an image with the shell in it, or leave image=None "
                                  "for the template's or platform's image")
    return ShellScriptTask(
        name=name, task_type=TASK_TYPE_NAME, fn=None, image=image,
        command=(config.shell, SCRIPT_PATH), args=(), env=dict(env or {}),
        requests=requests, limits=limits, pod_template=pod_template,
        pod_template_name=pod_template_name, task_config=config,
        interruptible=interruptible,
    )


# flytekit ShellTask arguments with no podtemplate meaning, and what to do instead.
_FLYTEKIT_ONLY = {
    "debug": "drop debug=; put set -x at the top of the script to trace it",
    "output_locs": "drop output_locs=: a shell task has no outputs; write files to a volume "
    "from a template",
    "script_file": "pass the file's text: script=pathlib.Path('script.sh').read_text()",
    "task_config": "drop task_config=: a shell task runs as one pod; set it with "
    "pod_template=",
}


def _typed_inputs(inputs: Any) -> Any:
    """flytekit's ``inputs=kwtypes(x=str)``: a type stands for an input without a default
    (podtemplate's ``inputs=["x"]``), given with ``--input x=...``."""
    if not isinstance(inputs, Mapping) or not any(
            isinstance(value, type) for value in inputs.values()):
        return inputs
    warn_alias("ShellTask(inputs={'x': type})", "ShellTask(inputs=['x', ...])")
    return {name: None if isinstance(value, type) else value
            for name, value in inputs.items()}

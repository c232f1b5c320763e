"""``ContainerTask``: any image, command and args, run as one ``v1 Pod``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from podtemplate import DefinitionError, PodTemplate, Resources, Task
from podtemplate.plugin import EnvValue, defining_task, refuse_arguments, take_alias

from .inputs import ContainerInputsTask, check_placeholders, normalize_input_types

__all__ = ["ContainerTask", "TASK_TYPE_NAME"]

TASK_TYPE_NAME = "container"


def ContainerTask(
    name: str,
    image: str,
    command: Sequence[str] | None = None,
    args: Sequence[str] | None = None,
    env: Mapping[str, EnvValue] | None = None,
    requests: Resources | None = None,
    limits: Resources | None = None,
    pod_template: PodTemplate | None = None,
    pod_template_name: str | None = None,
    interruptible: bool = False,
    inputs: Mapping[str, type] | None = None,
    *,
    arguments: Sequence[str] | None = None,
    environment: Mapping[str, EnvValue] | None = None,
    **flytekit_only: Any,
) -> Task:
    """A task that runs ``image`` with exactly ``command`` and ``args``; no Python needed
    in the image. Define it at module level: ``podtemplate render`` finds it there.

    ``command`` replaces the image's ENTRYPOINT and ``args`` its CMD, as in Kubernetes.
    Both reach the primary container through the task settings layer, so a cluster or
    inline template cannot silently replace them; a run override can. When ``command``
    is given without ``args``, the container gets ``args: []``: the image's CMD is
    ignored by Kubernetes then, and a template's args must not sneak in either.

    ``inputs={"a": int}`` declares typed inputs, as flytekit does: ``{{.inputs.a}}`` in
    ``command`` or ``args`` is filled from ``--input a=3`` at render time.
    """
    with defining_task(name):
        args = take_alias(args, arguments, "ContainerTask(arguments=...)",
                          "ContainerTask(args=...)", field="args")
        env = take_alias(env, environment, "ContainerTask(environment=...)",
                         "ContainerTask(env=...)", field="env")
        refuse_arguments(flytekit_only, _DATA_ARGUMENTS, call="ContainerTask",
                         help_name="ContainerTask", accepted=ContainerTask)
        if not isinstance(image, str) or not image.strip():
            raise DefinitionError("image is empty", field="image",
                                  fix="give the container image to run, e.g. busybox:1.36")
        command_ = _strings(command, "command")
        args_ = _strings(args, "args")
        if command_ is not None and not command_:
            raise DefinitionError("command is an empty list", field="command",
                                  fix="leave command=None to run the image's ENTRYPOINT")
        if command_ is not None and args_ is None:
            args_ = ()
        inputs_ = normalize_input_types(inputs)
        check_placeholders({"command": command_, "args": args_}, inputs_)
    return ContainerInputsTask(
        name=name, task_type=TASK_TYPE_NAME, fn=None, image=image, command=command_,
        args=args_, env=dict(env or {}), requests=requests, limits=limits,
        pod_template=pod_template, pod_template_name=pod_template_name,
        interruptible=interruptible, inputs=inputs_,
    )


# flytekit ContainerTask arguments that move data in and out of the container: podtemplate
# renders pods and moves no data, so each is refused with what to do instead.
_DATA_ARGUMENTS = {
    "outputs": "drop outputs=: the container writes its results where it likes (a volume "
    "from a template, an object store)",
    "input_data_dir": "drop input_data_dir=: inputs reach the command line through "
    "{{.inputs.NAME}}; mount data with a template's volumes",
    "output_data_dir": "drop output_data_dir=: mount a volume from a template at that path",
    "metadata_format": "drop metadata_format=: no outputs are read back",
    "io_strategy": "drop io_strategy=: no data is copied in or out",
    "secret_requests": "mount the secret with a template (volumes or env valueFrom)",
    "resources": "write requests=Resources(...) and limits=Resources(...)",
}


def _strings(value: Sequence[str] | None, field: str) -> tuple[str, ...] | None:
    """``value`` as a tuple of strings; a bare string is refused because it would
    silently become one argument per character."""
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise DefinitionError(
            f"{field} must be a list of strings, not {type(value).__name__}", field=field,
            fix=f"write {field}=['sh', '-c', 'echo hi'], one list item per argument")
    items = tuple(value)
    for index, item in enumerate(items):
        if not isinstance(item, str):
            raise DefinitionError(
                f"{field}[{index}] must be a string, not {type(item).__name__}",
                field=f"{field}[{index}]", fix=f"quote it: {str(item)!r}")
        if "\x00" in item:
            raise DefinitionError(f"{field}[{index}] contains a NUL character",
                                  field=f"{field}[{index}]",
                                  fix="remove the NUL: a process argument cannot hold one")
    if items and field == "command" and not items[0]:
        raise DefinitionError("command[0] is empty", field="command[0]",
                              fix="name the program to run first, e.g. ['python', 'x.py']")
    return items

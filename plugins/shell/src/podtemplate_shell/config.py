"""``ShellConfig``: the script, the shell that runs it and the declared inputs, each
checked where the task is defined."""

from __future__ import annotations

import keyword
import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, ClassVar

from podtemplate import ConfigModel, DefinitionError
from podtemplate.plugin import EnvValue, scalar_text
from pydantic import BeforeValidator, Field

__all__ = ["ShellConfig", "MAX_SCRIPT_BYTES", "normalize_inputs"]

# A ConfigMap holds at most 1 MiB (data, keys and metadata together); keep room for the
# rest of the object so the API server never refuses what passed here.
MAX_SCRIPT_BYTES = 1_000_000
_SHELL_PATH = re.compile(r"^(/[A-Za-z0-9._+-]+)+$")
# flytekit's ShellTask placeholders, interpolated into the script text there: here inputs
# are environment variables, so each would reach the shell literally.
_FLYTEKIT_PLACEHOLDER = re.compile(r"\{\s*(inputs|outputs|ctx)\.([A-Za-z_][A-Za-z0-9_]*)\s*\}")


def check_shell(value: Any) -> str:
    """``value`` if it is an absolute path to a program."""
    if not isinstance(value, str) or not _SHELL_PATH.fullmatch(value) or "/../" in value + "/":
        raise DefinitionError(
            f"shell {value!r} is not an absolute path to a program", field="shell",
            fix="give the shell's full path inside the image, e.g. /bin/sh or /bin/bash")
    return value


def check_script(value: Any) -> str:
    """``value`` if it is a script a ConfigMap can carry and a shell can read."""
    if not isinstance(value, str):
        raise DefinitionError(f"script must be a string, not {type(value).__name__}",
                              field="script", fix="pass the script text as a str")
    if not value.strip():
        raise DefinitionError("script is empty", field="script",
                              fix="give the shell commands to run, e.g. script='echo hi'")
    if "\x00" in value:
        line = value[: value.index("\x00")].count("\n") + 1
        raise DefinitionError(f"script contains a NUL character on line {line}",
                              field="script", fix="remove the NUL: a shell script is text")
    try:
        size = len(value.encode("utf-8"))
    except UnicodeEncodeError:
        raise DefinitionError("script is not valid Unicode text (a lone surrogate)",
                              field="script", fix="read the script file as UTF-8") from None
    if size > MAX_SCRIPT_BYTES:
        raise DefinitionError(
            f"script is {size} bytes; its ConfigMap may hold at most {MAX_SCRIPT_BYTES}",
            field="script",
            fix="put the program in the image (or fetch it in an init container) and "
            "keep the script short")
    _refuse_flytekit_placeholders(value)
    return value


def _refuse_flytekit_placeholders(script: str) -> None:
    match = _FLYTEKIT_PLACEHOLDER.search(script)
    if match is None:
        return
    kind, name = match.groups()
    line = script[: match.start()].count("\n") + 1
    fix = {"inputs": f'write ${name} (or "${{{name}}}"): inputs are environment variables '
           f"of the script, declared with inputs={{'{name}': ...}}",
           "outputs": "drop it: a shell task has no outputs; write files to a volume from a "
           "template",
           "ctx": "drop it: flytekit's execution context has no equivalent in a pod"}[kind]
    raise DefinitionError(f"script holds {match.group(0)} on line {line}, flytekit's "
                          "placeholder, which podtemplate does not fill", field="script",
                          fix=fix)


def normalize_inputs(value: Mapping[str, EnvValue | None] | Sequence[str] | None
                     ) -> dict[str, str | None]:
    """Declared inputs as ``{NAME: default or None}``; a list of names declares inputs
    without defaults. Each name must be a shell variable name (which is also a Python
    name: inputs are the task's parameters)."""
    if value is None:
        return {}
    if isinstance(value, str) or not isinstance(value, (Mapping, Sequence)):
        raise DefinitionError(
            f"inputs must be a dict of names to defaults or a list of names, not "
            f"{type(value).__name__}", field="inputs",
            fix="write inputs={'DATE': '2026-01-01'} or inputs=['DATE']")
    pairs = value.items() if isinstance(value, Mapping) else ((name, None) for name in value)
    out: dict[str, str | None] = {}
    for name, default in pairs:
        _check_input_name(name)
        out[name] = None if default is None else _text(default, name)
    return out


def _check_input_name(name: Any) -> None:
    # A script reads an input back as $NAME: a shell variable name, stricter than the
    # env var names Kubernetes accepts (check_env_name).
    if not isinstance(name, str) or not name.isascii() or not name.isidentifier():
        raise DefinitionError(f"input name {name!r} is not a shell variable name",
                              field=f"inputs.{name}",
                              fix="use letters, digits and '_', not starting with a digit")
    if keyword.iskeyword(name):
        # Inputs are also the task's parameters, and `--input` names are Python names.
        raise DefinitionError(f"input name {name!r} is a reserved word", field=f"inputs.{name}",
                              fix=f"rename it, e.g. {name.upper()}")


def _text(value: Any, name: str) -> str:
    text = scalar_text(value)
    if text is None:
        raise DefinitionError(
            f"default of input {name!r} must be a string or number, not {type(value).__name__}",
            field=f"inputs.{name}", fix="give the default as text, e.g. '7'")
    if "\x00" in text:
        raise DefinitionError(f"default of input {name!r} contains a NUL character",
                              field=f"inputs.{name}", fix="remove the NUL")
    return text


class ShellConfig(ConfigModel):
    """What makes a task a shell task. Build it through :func:`~podtemplate_shell.ShellTask`.

    ``inputs`` maps each declared input (an environment variable of the script) to its
    default, or None when ``--input NAME=VALUE`` must give it at render time.
    """

    task_type: ClassVar[str] = "shell"

    script: Annotated[str, BeforeValidator(check_script)]
    shell: Annotated[str, BeforeValidator(check_shell)] = "/bin/sh"
    inputs: Annotated[dict[str, str | None], BeforeValidator(normalize_inputs)] = Field(
        default_factory=dict)

"""Inputs of a container task, spelled as flytekit spells them: ``inputs={"a": int}`` and
``{{.inputs.a}}`` in ``command``/``args``, filled from ``--input a=3`` at render time."""

from __future__ import annotations

import dataclasses
import decimal
import inspect
import json
import math
import re
from collections.abc import Mapping
from typing import Any

from podtemplate import DefinitionError, InputError, RenderContext, Task
from podtemplate.plugin import check_env_name, inputs_for

__all__ = ["INPUT_TYPES", "ContainerInputsTask", "check_placeholders", "fill_placeholders",
           "go_float", "input_values", "normalize_input_types"]

# What an input may be: the types ``--input`` values are converted to.
INPUT_TYPES: tuple[type, ...] = (str, int, float, bool, list, dict)
# ``{{.inputs.a}}`` in every spelling Flyte's propeller fills: spaces inside the braces,
# any case of ``inputs``, ``$`` for the dot (``{{$Inputs.a}}``).
_PLACEHOLDER = re.compile(r"\{\{\s*[.$](?i:inputs)\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_ANY_PLACEHOLDER = re.compile(r"\{\{\s*[.$]([A-Za-z_]+)[^}]*\}\}")


@dataclasses.dataclass(frozen=True, eq=False)
class ContainerInputsTask(Task):
    """A container :class:`~podtemplate.Task` with typed inputs: its parameters are its
    inputs, so ``--input NAME=VALUE`` is accepted and typed for them."""

    inputs: Mapping[str, type] = dataclasses.field(default_factory=dict)

    @property
    def signature(self) -> inspect.Signature:
        return inspect.Signature([
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=kind)
            for name, kind in self.inputs.items()])


def normalize_input_types(inputs: Any) -> dict[str, type]:
    """``inputs`` as ``{name: type}``; each type one of :data:`INPUT_TYPES`."""
    if inputs is None:
        return {}
    if not isinstance(inputs, Mapping):
        raise DefinitionError(f"inputs must be a dict of names to types, not "
                              f"{type(inputs).__name__}", field="inputs",
                              fix="write inputs={'a': int, 'b': float}")
    out: dict[str, type] = {}
    for name, kind in inputs.items():
        check_env_name(name, what="input name", field=f"inputs.{name}")
        if kind not in INPUT_TYPES:
            names = ", ".join(t.__name__ for t in INPUT_TYPES)
            raise DefinitionError(f"input {name!r} has type {kind!r}", field=f"inputs.{name}",
                                  fix=f"use one of {names}: a container gets its inputs as "
                                  "text on its command line")
        out[name] = kind
    return out


def check_placeholders(parts: Mapping[str, tuple[str, ...] | None],
                       inputs: Mapping[str, type]) -> None:
    """Every ``{{.inputs.x}}`` names a declared input; other ``{{.x}}`` are refused
    (flytekit's ``{{.outputs}}`` has nothing to fill it here)."""
    for field, items in parts.items():
        for index, item in enumerate(items or ()):
            for match in _ANY_PLACEHOLDER.finditer(item):
                inner = _PLACEHOLDER.fullmatch(match.group(0))
                if inner is None:
                    raise DefinitionError(
                        f"{field}[{index}] holds {match.group(0)!r}, which podtemplate does "
                        "not fill", field=f"{field}[{index}]",
                        fix="use {{.inputs.NAME}} with NAME in inputs=; outputs are the "
                        "container's own business (write them to a volume)")
                if inner.group(1) not in inputs:
                    known = ", ".join(sorted(inputs)) or "none declared"
                    raise DefinitionError(
                        f"{field}[{index}] uses {{{{.inputs.{inner.group(1)}}}}} but the task "
                        f"has no input {inner.group(1)!r}", field=f"{field}[{index}]",
                        fix=f"declare it: inputs={{'{inner.group(1)}': str}} "
                        f"(declared: {known})")


def fill_placeholders(task: ContainerInputsTask, container: dict[str, Any],
                      values: Mapping[str, Any]) -> None:
    """Replace the placeholders of the container's command and args with the values;
    a declared input without a value is an error naming the flag to pass."""
    for name in task.inputs:
        if name not in values:
            raise InputError(f"input {name!r} has no value", task=task.name,
                             field=f"inputs.{name}",
                             fix=f"pass --input {name}=VALUE "
                             f"(a {task.inputs[name].__name__})")
    for field in ("command", "args"):
        items = container.get(field)
        if items:
            container[field] = [_PLACEHOLDER.sub(lambda m: _text(values[m.group(1)]), item)
                                for item in items]


def _text(value: Any) -> str:
    if isinstance(value, bool):  # as Flyte writes a boolean (Go's %v)
        return "true" if value else "false"
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, (list, dict)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def go_float(value: float) -> str:
    """A float as Flyte's propeller writes it into ``{{.inputs.x}}`` (Go's ``%v``, in
    flyteplugins' template.serializePrimitive): the shortest digits that read back as the
    same float, ``3`` for 3.0, an exponent from 1e+06 up and below 1e-4 (``1e+06``,
    ``1.5e-05``: at least two exponent digits; strconv's ``g`` with the shortest digits),
    ``+Inf``, ``-Inf`` and ``NaN``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    sign, digits, exponent = decimal.Decimal(repr(value)).normalize().as_tuple()
    text = "".join(map(str, digits))
    point = len(text) + int(exponent)  # the decimal point's place after the first digits
    lead = "-" if sign else ""
    if point - 1 < -4 or point - 1 >= 6:
        mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
        power = point - 1
        return f"{lead}{mantissa}e{'-' if power < 0 else '+'}{abs(power):02d}"
    if point <= 0:
        return f"{lead}0.{'0' * -point}{text}"
    if point >= len(text):
        return f"{lead}{text}{'0' * (point - len(text))}"
    return f"{lead}{text[:point]}.{text[point:]}"


def input_values(task: ContainerInputsTask, context: RenderContext) -> dict[str, Any]:
    """The ``--input`` values of the task's inputs, converted to their types."""
    return inputs_for(task, context.inputs)

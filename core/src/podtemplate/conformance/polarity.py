"""The probe's second polarity: the values the main probe does not try.

The main probe gives each field one distinctive value, and a boolean the value that is not
its default, so ``true`` almost everywhere: a build that drops ``false``, ``0``, ``""`` or
``[]`` (``if value:``) passes it. This part adds, as probe fields of their own (each
labelled with its value, ``spec.automountServiceAccountToken=false``):

- every boolean the pod schema has, reached through objects from a PodSpec or Container
  field, in each polarity the main probe leaves out (``false`` for the 18 it sets
  ``true``, both for one it never reaches, such as ``securityContext.privileged``);
- zero, the empty string and the empty list for every number, text and plain list the
  main probe sets outside keyed lists.

A value goes in only where core's API-server pod rules accept it, field names checked
against the shipped pod schema (a zero ``activeDeadlineSeconds`` is refused, and reported
in ``Probe.not_probed``); values that cannot share a pod go into further variants, found
by trying. An empty string or list is no value to the API server (its Go types omit
it), so the kit also accepts a pod holding what the plain sample task's pod holds there.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ..schemas.source import CONTAINER, POD_SPEC, Schema, SchemaSource

__all__ = ["PolarityValue", "polarity_values", "boolean_leaves", "empty_values"]

# (path, value): a leaf path below a probe field (``spec.securityContext.runAsNonRoot``).
PolarityValue = tuple[str, Any]
_DEPRECATED = re.compile(r"deprecated", re.IGNORECASE)
_MAX_DEPTH = 3
_PLAIN_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9]*$")  # a schema member, not a map key


def boolean_leaves(source: SchemaSource, tops: Sequence[str]) -> list[str]:
    """Every boolean below each probe field of ``tops`` (``spec.hostNetwork``,
    ``spec.containers[primary].securityContext``...), through object members only."""
    pod = source.definition(POD_SPEC).get("properties", {})
    container = source.definition(CONTAINER).get("properties", {})
    found: list[str] = []
    for top in tops:
        if not top.startswith("spec."):
            continue
        name = top.rsplit(".", 1)[-1]
        schema = (container if "[" in top else pod).get(name)
        if schema is not None:
            found += [top + rest for rest in _booleans(source, schema, 0)]
    return found


def _booleans(source: SchemaSource, schema: Schema, depth: int) -> Iterator[str]:
    schema = _resolved(source, schema)
    if schema.get("type") == "boolean":
        yield ""
        return
    if depth >= _MAX_DEPTH:
        return
    for name, member in (schema.get("properties") or {}).items():
        if not _DEPRECATED.search(member.get("description", "")):
            yield from (f".{name}{rest}" for rest in _booleans(source, member, depth + 1))


def _resolved(source: SchemaSource, schema: Schema) -> Schema:
    ref = schema.get("$ref") or next((part["$ref"] for part in schema.get("allOf", ())
                                      if "$ref" in part), None)
    return source.definition(SchemaSource.ref_name(ref)) if ref else schema


def empty_values(path: str, value: Any) -> Iterator[PolarityValue]:
    """Zero, ``""`` and ``[]`` for each number, text and plain list of a main probe value,
    through maps of schema members (not keyed lists, not label or selector maps)."""
    if isinstance(value, bool):
        return
    if isinstance(value, Mapping):
        for key, sub in value.items():
            if _PLAIN_KEY.match(str(key)):
                yield from empty_values(f"{path}.{key}", sub)
    elif isinstance(value, int | float):
        yield path, 0
    elif isinstance(value, str):
        yield path, ""
    elif isinstance(value, list) and not any(isinstance(i, Mapping | list) for i in value):
        yield path, []


def polarity_values(source: SchemaSource, main: Mapping[str, Any]) -> list[PolarityValue]:
    """What the second polarity sets, in order: the booleans below each main probe field
    (``main``: path -> value), in each polarity the main value is not, then the empty
    values."""
    out: dict[str, PolarityValue] = {}
    for leaf in boolean_leaves(source, list(main)):
        top = next(t for t in main if leaf == t or leaf.startswith(t + "."))
        given = _at(main[top], leaf[len(top):])
        for polarity in (False, True):
            if polarity is not given:
                out.setdefault(label(leaf, polarity), (leaf, polarity))
    for top, value in main.items():
        if top.startswith("spec."):
            for item in empty_values(top, value):
                out.setdefault(label(*item), item)
    return list(out.values())


def _at(value: Any, rest: str) -> Any:
    for key in filter(None, rest.split(".")):
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def place(values: Sequence[PolarityValue],
          refused: Callable[[int, Sequence[PolarityValue]], str | None],
          taken: Mapping[int, Sequence[str]], first_new: int
          ) -> tuple[dict[int, list[PolarityValue]], dict[str, str]]:
    """Values grouped into as few pods as the API server accepts (first fit): first into
    the existing variants of ``taken`` (variant -> the paths it holds), then into new ones
    from ``first_new``; and why each value refused alone is not probed (by its label).
    ``refused(variant, values)``: why that variant with ``values`` added is refused."""
    groups: dict[int, list[PolarityValue]] = {variant: [] for variant in taken}
    not_probed: dict[str, str] = {}
    for item in values:
        alone = refused(-1, [item])  # a variant that holds nothing else
        if alone is not None:
            not_probed[label(*item)] = f"the API server's pod rules refuse it: {alone}"
            continue
        for variant, group in groups.items():  # one value per field and pod
            paths = [*taken.get(variant, ()), *(path for path, _ in group)]
            if not any(_overlaps(item[0], path) for path in paths) and refused(
                    variant, [*group, item]) is None:
                group.append(item)
                break
        else:
            groups[first_new + len(groups) - len(taken)] = [item]
    return {variant: group for variant, group in groups.items() if group}, not_probed


def _overlaps(one: str, other: str) -> bool:
    """Whether two field paths name the same field, or one lies in the other."""
    return one == other or one.startswith((other + ".", other + "[")) or other.startswith(
        (one + ".", one + "["))


def label(path: str, value: Any) -> str:
    """How a second-polarity field is named in findings: ``spec.hostNetwork=false``."""
    return f"{path}={json.dumps(value)}"

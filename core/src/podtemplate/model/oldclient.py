"""Kubernetes objects written for the client flytekit uses (issue 30, theme 2).

flytekit-era code builds its pod specs with the ``kubernetes`` client's models, which took
any value; the ``kubernetes>=37`` models are pydantic models with strict types, and refuse
``V1ResourceRequirements(limits={"cpu": 1})`` or ``V1Toleration(value=1)`` at import,
with an error that points into pydantic. While :func:`flytekit_era_models` is active (the
CLI imports a task module that names ``kubernetes`` under it), a model constructor takes
what the old client took where the API server takes it too:

- a number where the API takes a quantity (``limits``, ``requests``, ``overhead``,
  ``size_limit``...) is that quantity, as kubectl writes it (``1`` → ``"1"``,
  ``0.5`` → ``"0.5"``);
- a number where the API takes text (a toleration's or label's value, an env value) is
  its text (``1`` → ``"1"``).

Anything else the model refuses is one line naming the class, the field and the fix,
located at the user's line: a string where the API takes a list (``command="echo"``: the
API server refuses it too) is told to write ``command=["echo"]``. The objects built are
the client's own, unchanged; outside the context the models are as shipped.
"""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Iterator
from typing import Any

from ..errors import DefinitionError, brief
from .names import check_quantity

__all__ = ["flytekit_era_models"]

# Fields of the client's models whose values are resource quantities.
_QUANTITY_FIELDS = frozenset({"limits", "requests", "overhead", "size_limit", "capacity",
                              "allocatable", "storage"})
_NUMBER = (int, float)


def _number(value: Any) -> bool:
    return isinstance(value, _NUMBER) and not isinstance(value, bool)


def _text(value: Any, loc: tuple[Any, ...]) -> str:
    """The text the old client's value stands for at ``loc``."""
    if any(part in _QUANTITY_FIELDS for part in loc):
        return check_quantity(value)
    return str(value) if isinstance(value, int) else repr(float(value))


def _set(data: dict[str, Any], loc: tuple[Any, ...], value: Any) -> None:
    """``data`` with ``value`` at ``loc``, copying each dict or list on the way."""
    node: Any = data
    for key in loc[:-1]:
        child = node[key]
        child = dict(child) if isinstance(child, dict) else list(child)
        node[key] = child
        node = child
    node[loc[-1]] = value


def _refusal(kind: str, error: dict[str, Any]) -> DefinitionError:
    loc = tuple(error["loc"])
    field = ".".join(str(part) for part in loc)
    given = error.get("input")
    if error["type"] == "list_type" and isinstance(given, str):
        try:
            words = shlex.split(given)
        except ValueError:  # an unclosed quote: the text whole
            words = [given]
        return DefinitionError(
            f"{kind}({field}={given!r}): the Kubernetes API takes a list here (the API server "
            "would refuse the text too)", field=f"{kind}.{field}",
            fix=f"write {loc[-1]}={words or [given]!r}")
    return DefinitionError(
        f"{kind}({field}={brief(given)}): {error['msg'].lower()}", field=f"{kind}.{field}",
        fix=f"give {loc[-1]} as the Kubernetes API types it (help(kubernetes.client.{kind}))")


def _taken(kind: str, data: dict[str, Any], errors: list[dict[str, Any]]) -> dict[str, Any]:
    """``data`` with each number the old client took turned into text; the refusals of
    what it cannot take, all of them, as one error."""
    taken = dict(data)
    refused: list[DefinitionError] = []
    for error in errors:
        loc = tuple(error["loc"])
        given = error.get("input")
        if error["type"] == "string_type" and _number(given) and loc:
            try:
                _set(taken, loc, _text(given, loc))
                continue
            except DefinitionError as bad:  # a number that is no quantity
                bad.field = f"{kind}.{'.'.join(map(str, loc))}"
                refused.append(bad)
                continue
        refused.append(_refusal(kind, error))
    from ..migration import raise_all

    raise_all(refused)
    return taken


_KUBERNETES_MODELS = "kubernetes.client.models."


@contextlib.contextmanager
def flytekit_era_models() -> Iterator[None]:
    """While inside, the ``kubernetes.client`` models take what the flytekit-era client
    took where the API server takes it (see the module docstring).

    The client's models are loaded lazily, one module each, so the one place every one
    of them is built through is pydantic's ``BaseModel.__init__``: it is wrapped while
    inside (a model of any other package is built exactly as before, its errors
    untouched) and put back on the way out."""
    from pydantic import BaseModel, ValidationError

    original = BaseModel.__init__

    def __init__(self: Any, /, **data: Any) -> None:
        try:
            original(self, **data)
        except ValidationError as error:
            kind = type(self)
            if not kind.__module__.startswith(_KUBERNETES_MODELS):
                raise
            taken = _taken(kind.__name__, data, [dict(item) for item in error.errors()])
            original(self, **taken)

    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]  # as pydantic's own
    BaseModel.__init__ = __init__  # type: ignore[method-assign]
    try:
        yield
    finally:
        BaseModel.__init__ = original  # type: ignore[method-assign]

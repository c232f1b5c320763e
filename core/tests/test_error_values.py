"""A config error names the value the user gave, spelled from its parts (``Role(replicas=2)``,
``[Role()]``), bounded in length, and never by calling an object's own ``repr``."""

from __future__ import annotations

from typing import Any

import pytest
from podtemplate import Resources, Role
from podtemplate.errors import DefinitionError, brief


def test_a_config_object_given_where_another_belongs_is_named_with_its_arguments() -> None:
    with pytest.raises(DefinitionError) as caught:
        Role(requests=Role(replicas=2))  # type: ignore[arg-type]
    assert "(got Role(replicas=2))" in str(caught.value)
    assert caught.value.field == "requests"
    assert "object>" not in str(caught.value)


def test_a_list_given_for_one_config_names_its_items() -> None:
    with pytest.raises(DefinitionError, match=r"\(got \[Role\(image='a:1'\)\]\)"):
        Role(requests=[Role(image="a:1")])  # type: ignore[arg-type]


@pytest.mark.parametrize(("value", "text"), [
    (Resources(cpu="1"), "Resources(cpu='1')"),
    ({"cpu": [1, 2]}, "{'cpu': [1, 2]}"),
    ((1,), "(1,)"),
    ((1, "a"), "(1, 'a')"),
    ([], "[]"),
    (Role(), "Role()"),
])
def test_values_are_spelled_from_their_parts(value: Any, text: str) -> None:
    assert brief(value) == text


class Hostile:
    def __repr__(self) -> str:
        raise AssertionError("repr called")


def test_other_objects_long_values_and_cycles_stay_short_and_safe() -> None:
    assert brief([Hostile()]) == "[<Hostile object>]"
    long = brief(list(range(10_000)))
    assert len(long) == 60 and long.endswith("...")
    cycle: list[Any] = []
    cycle.append(cycle)
    assert brief(cycle) == "[[[[...]]]]"

"""The handover's own parts: the copy a build is handed (against ``copy.deepcopy``, the
plain way to the same result) and the judging of what a build changed, with and without
the render's table of parts found valid."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from podtemplate.errors import PodTemplateError
from podtemplate.handover import check_changes, independent

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                    st.text(max_size=5))
trees = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=4), inner, max_size=4),
    st.tuples(inner)), max_leaves=30)


def containers(value: Any) -> Iterator[Any]:
    """Every dict and list in ``value``, itself included (not inside a tuple: a tuple is
    a value, shared as it is, like a string)."""
    if type(value) is dict:
        yield value
        for item in value.values():
            yield from containers(item)
    elif type(value) is list:
        yield value
        for item in value:
            yield from containers(item)


@given(trees)
def test_independent_is_deepcopy_without_sharing(tree: Any) -> None:
    """Equal to ``copy.deepcopy`` with the same types and key order, and no dict or
    list of the copy is one of the original's, nor held twice within the copy."""
    shared = [tree, tree] if type(tree) in (dict, list) else tree  # held twice: copied twice
    made = independent(shared)
    expected = copy.deepcopy(shared)
    assert made == expected
    assert repr(made) == repr(expected)  # types (1 / 1.0 / True) and key order
    originals = {id(value) for value in containers(shared)}
    mine = [id(value) for value in containers(made)]
    assert not originals.intersection(mine)
    assert len(mine) == len(set(mine))


def test_independent_shares_tuples_and_strings() -> None:
    """Immutable values (a tuple too, as before) are shared, not copied."""
    text, pair = "x" * 50, ({"a": 1},)
    made = independent({"a": [text, pair]})
    assert made["a"][0] is text and made["a"][1] is pair


CHANGES = {"spec": {"containers": [{"name": "worker", "args": ["--nthreads", "4"]}]}}


def test_check_changes_remembers_a_valid_change_only() -> None:
    known: dict[Any, bool] = {}
    check_changes(CHANGES, known)
    assert len(known) == 1
    check_changes(json.loads(json.dumps(CHANGES)), known)  # the same content: found
    assert len(known) == 1
    bad = {"spec": {"dnsPolicy": "Bogus"}}
    for _ in range(2):  # refused each time, never remembered
        with pytest.raises(PodTemplateError, match="dnsPolicy"):
            check_changes(bad, known)
    assert len(known) == 1


@pytest.mark.parametrize("bad", [
    {"spec": {"dnsPolicy": "Bogus"}},
    {"spec": {"bogusField": 1}},
    {"spec": {"containers": [{"name": "c", "env": [{"name": "A", "value": "1"},
                                                   {"name": "A", "value": "2"}]}]}},
    {"spec": {"containers": [{"name": "c", "ports": [{"containerPort": True}]}]}},
])
def test_check_changes_refuses_alike_with_and_without_the_table(bad: dict[str, Any]) -> None:
    """The table changes no verdict: a change that is refused without it is refused
    with it, also after a valid change of the same shape was remembered."""
    known: dict[Any, bool] = {}
    check_changes(CHANGES, known)
    with pytest.raises(PodTemplateError) as plain:
        check_changes(bad)
    with pytest.raises(PodTemplateError) as remembered:
        check_changes(bad, known)
    assert str(remembered.value) == str(plain.value)


def test_check_changes_tells_true_from_one() -> None:
    """``marshal`` images tell ``1`` from ``True``: a remembered valid ``1`` does not
    let ``True`` through where only an integer is valid."""
    known: dict[Any, bool] = {}
    check_changes({"spec": {"containers": [{"name": "c", "ports": [
        {"containerPort": 1}]}]}}, known)
    with pytest.raises(PodTemplateError):
        check_changes({"spec": {"containers": [{"name": "c", "ports": [
            {"containerPort": True}]}]}}, known)

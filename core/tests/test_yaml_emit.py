"""The fast YAML writer (``_yaml_emit``) writes exactly what PyYAML writes, or declines."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from podtemplate.files._yaml_emit import Unsupported, emit
from podtemplate.files.yamlio import _DUMP_OPTIONS, _Dumper, dump_yaml
from podtemplate.testing.sizing import examples


def pyyaml(document: Any) -> str:
    text: str = yaml.dump(document, Dumper=_Dumper, **_DUMP_OPTIONS)
    return text


# Strings YAML treats specially: numbers, booleans, nulls, dates, indicators, quotes,
# spaces, line breaks, unicode, long ones.
TRICKY = ["", "1", "0x1F", "1e3", "1.0", ".inf", "~", "null", "yes", "No", "on", "true",
          "2026-01-01", "1:20", "<<", "=", "-", "--x", "- x", "?", "?x", ":x", "x:", "a: b",
          "a:b", "a #b", "#c", "@x", "`x", "%x", "!x", "&x", "*x", "'q'", '"q"', "ü é",
          "tab\tx", "a,b", "[x]", "{x}", "|", ">", " lead", "trail ", "two\nlines",
          "end\n", "\u2028", "a\u2029b", "nel\x85", "x" * 300, "word " * 80, "$(VAR)", "ghcr.io/acme/train:1.4.2", "500m"]

scalars = st.one_of(st.sampled_from(TRICKY), st.text(max_size=30), st.integers(),
                    st.booleans(), st.none())
keys = st.one_of(st.sampled_from(TRICKY), st.text(min_size=1, max_size=20))
documents = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(keys, inner, max_size=4)),
    max_leaves=25,
).filter(lambda d: isinstance(d, (dict, list)) and bool(d))


@settings(max_examples=examples(400), deadline=None)
@given(documents)
def test_writes_what_pyyaml_writes_or_declines(document: Any) -> None:
    try:
        text = emit(document, _Dumper, _DUMP_OPTIONS)
    except Unsupported:
        return
    assert text == pyyaml(document)


@pytest.mark.parametrize("text", TRICKY)
def test_each_tricky_string_as_key_and_value(text: str) -> None:
    document = {"k": text, "list": [text, {"in": text}], text[:100] or "e": {"nested": [text]}}
    assert dump_yaml(document) == pyyaml(document)


@pytest.mark.parametrize("text", ["\u2028", "a\u2029b", "nel\x85", "two\nlines"])
def test_line_breaks_at_every_depth(text: str) -> None:
    """YAML breaks a scalar's lines at these characters and indents the rest by depth."""
    for document in ([[text]], [[[text]]], {"a": [[text]]}, [{"a": {"b": text}}]):
        assert dump_yaml(document) == pyyaml(document)


def test_declines_what_it_does_not_model() -> None:
    for document in ({"f": 1.5}, {1: "int key"}):
        with pytest.raises(Unsupported):
            emit(document, _Dumper, _DUMP_OPTIONS)
        assert dump_yaml(document) == pyyaml(document)  # PyYAML writes it instead


def test_a_shared_object_is_written_in_full_each_time_without_anchors() -> None:
    # Rendered manifests share read-only subtrees (copy-on-write): their text must be
    # what the same data without sharing gives, from both writers.
    shared = {"a": [1, {"b": "c"}], "e": {}}
    document = {"x": shared, "y": [shared, shared["a"]], "z": {"w": shared}}
    unshared = {"x": {"a": [1, {"b": "c"}], "e": {}},
                "y": [{"a": [1, {"b": "c"}], "e": {}}, [1, {"b": "c"}]],
                "z": {"w": {"a": [1, {"b": "c"}], "e": {}}}}
    text = emit(document, _Dumper, _DUMP_OPTIONS)
    assert text == pyyaml(unshared) == pyyaml(document)
    assert "&" not in text and "*" not in text
    with_float = {**document, "f": 1.5}  # PyYAML writes this one: no anchors either
    assert dump_yaml(with_float) == pyyaml({**unshared, "f": 1.5})

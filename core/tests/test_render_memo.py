"""RenderContext.memo/remember: values made once per render, in bounded tables."""

from __future__ import annotations

from podtemplate import make_context
from podtemplate.context import MEMO_LIMIT


def test_remember_makes_a_value_once_per_key() -> None:
    context = make_context()
    made: list[str] = []

    def make(value: str) -> str:
        made.append(value)
        return value.upper()

    assert context.remember("t", 1, lambda: make("a")) == "A"
    assert context.remember("t", 1, lambda: make("b")) == "A"
    assert context.remember("other", 1, lambda: make("c")) == "C"
    assert made == ["a", "c"]
    assert make_context().remember("t", 1, lambda: make("d")) == "D"  # a new render


def test_a_full_table_drops_its_older_half_and_keeps_the_objects_of_what_stays() -> None:
    context = make_context()
    kept = [object() for _ in range(6)]
    for index, obj in enumerate(kept):
        context.remember("t", id(obj), lambda i=index: i, keep=obj, limit=4)
    table = context.memo("t", limit=4)
    # Five entries went over the limit of four: the oldest two went; the sixth was added.
    assert [entry[0] for entry in table.values()] == [2, 3, 4, 5]
    assert all(entry[1] is kept[value] for value, entry in zip(range(2, 6), table.values(),
                                                               strict=True))
    assert len(context.memo("default")) == 0 and MEMO_LIMIT >= 1024

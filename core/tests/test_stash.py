"""The render's typed store (``RenderContext.stash``) and its bounded memo tables."""

from __future__ import annotations

from typing import Any

import pytest
from podtemplate import make_context
from podtemplate.stash import MEMO_LIMIT, Stash, StashKey, memo

COUNT = StashKey[int]("a count")
NAMES = StashKey[list[str]]("some names")
TABLE = StashKey[dict[Any, Any]]("a table")


def test_a_key_holds_its_own_value() -> None:
    stash = Stash()
    assert COUNT not in stash and stash.get(COUNT, None) is None
    stash[COUNT] = 3
    assert stash[COUNT] == 3 and COUNT in stash and len(stash) == 1
    assert stash.setdefault(NAMES, []) is stash.setdefault(NAMES, ["other"])
    # Keys compare by identity: two keys of one name are two entries.
    assert StashKey[int]("a count") not in stash
    with pytest.raises(KeyError):
        stash[StashKey[int]("a count")]


def test_each_render_has_its_own_stash() -> None:
    one, two = make_context(), make_context()
    one.stash[COUNT] = 1
    assert COUNT not in two.stash
    assert one.memo(TABLE) is one.memo(TABLE) and one.memo(TABLE) is not two.memo(TABLE)


def test_a_memo_table_drops_its_older_half_beyond_its_limit() -> None:
    stash = Stash()
    for index in range(6):
        memo(stash, TABLE, limit=4)[index] = index
    table = memo(stash, TABLE, limit=4)
    assert list(table) == [2, 3, 4, 5]  # the oldest two dropped when asked past the limit
    assert MEMO_LIMIT >= 1024

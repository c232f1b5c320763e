"""get_path: dotted paths into manifests, including list items."""

from __future__ import annotations

from podtemplate import get_path

MANIFEST = {"spec": {"groups": [{"template": {"a": 1}}, {"template": {"a": 2}}], "m": {"k": 3}}}


def test_get_path_walks_maps() -> None:
    assert get_path(MANIFEST, "spec.m.k") == 3
    assert get_path(MANIFEST, "") is MANIFEST


def test_get_path_indexes_lists() -> None:
    assert get_path(MANIFEST, "spec.groups[1].template") == {"a": 2}
    assert get_path(MANIFEST, "spec.groups[0].template.a") == 1


def test_get_path_missing_is_none() -> None:
    assert get_path(MANIFEST, "spec.groups[2].template") is None
    assert get_path(MANIFEST, "spec.m[0]") is None
    assert get_path(MANIFEST, "spec.nope.k") is None
    assert get_path(MANIFEST, "spec.groups[x].template") is None

"""The fast paths of the merge, fenced here: everything in this module exists for speed,
and each function has a plain counterpart in :mod:`.engine` that gives the same result
(``core/tests/test_merge_fast.py`` compares the two on generated layers).

- **Flat items.** A dict of plain values without a directive - an env var, a port, a
  mount, a toleration - merged key by key sets each value as it is: dict operations in C
  (``{**item}``, ``update``) do the same.
- **Plain atomic lists.** ``command``, ``args``, ``values``: a list of plain values is
  copied whole (``list(items)``) instead of item by item.
- **Short union lists.** Tolerations and envFrom hold a handful of items: searching them
  with ``==`` (in C) before the type-aware identity beats building an index; long lists
  are still indexed once, so the merge stays linear.
- **Copy-on-write folds** (:class:`Cow`). The plain fold copies every object it takes
  from a layer, so a pod is built object by object in Python. A copy-on-write fold takes
  the subtrees of a clean, immutable layer (a compiled template: :func:`is_clean`) by
  reference, and copies an object it took only when a later layer changes something
  inside it, one level at a time: new dicts only along the paths that change. The
  result is equal to the plain fold's; it shares read-only subtrees with the templates.
- **Clean, known in one walk** (:func:`clean_as_merged`). Whether a layer is clean is
  defined as :func:`is_clean` of the layer and of its merge over nothing; one walk that
  looks for what that merge would change (a directive, a null, a tuple, a duplicate key
  or union item) tells the same without making the merge. It is asked once of every
  template, so it is most of what a first render pays per template.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .items import ident
from .rules import EMPTY, MAP, PATCH, PLAIN, SET, UNION, Malformed, Node, key_of

__all__ = ["PLAIN", "SEARCHED", "Cow", "clean_as_merged", "is_clean", "is_flat",
           "plain_values", "same_json", "union_position"]

SEARCHED = 16  # union lists up to this length (old and new items) are searched, not indexed


def is_flat(value: Any) -> bool:
    """A plain dict of plain values without a directive: merging it key by key sets each
    value as it is, so it can be copied or applied whole (checked in C)."""
    return (type(value) is dict and PATCH not in value
            and PLAIN.issuperset(map(type, value.values())))


def plain_values(items: Sequence[Any]) -> bool:
    """Every item a plain value: the atomic list is copied whole (checked in C)."""
    return PLAIN.issuperset(map(type, items))


def union_position(out: list[Any], new: Any, ident: Callable[[Any], Any]) -> int | None:
    """Where ``out`` holds an item identical to ``new``. ``==`` is done in C and is True
    whenever the identities agree (it only also equates ``1``, ``1.0`` and ``True``)."""
    for pos, existing in enumerate(out):
        if existing == new and ident(existing) == ident(new):
            return pos
    return None


class Cow:
    """The state of one copy-on-write fold: the ids of the objects the fold holds by
    reference (``borrowed``: taken from a layer, or inside a copy of such an object), and
    whether the layer being folded may be taken from by reference (``share``: it is
    clean and immutable). Objects the fold made itself are owned and changed in place.
    Every borrowed object belongs to a layer that outlives the fold, so no id in
    ``borrowed`` can be reused by an object made during it."""

    __slots__ = ("borrowed", "share")

    def __init__(self) -> None:
        self.borrowed: set[int] = set()
        self.share = False

    def take(self, value: Any) -> Any:
        """``value`` held by reference from now on."""
        self.borrowed.add(id(value))
        return value

    def own(self, borrowed: dict[str, Any]) -> dict[str, Any]:
        """A shallow copy of a borrowed dict, to change; what it holds stays borrowed."""
        copy = dict(borrowed)
        add = self.borrowed.add
        for value in copy.values():
            if type(value) is dict or type(value) is list:
                add(id(value))
        return copy

    def own_list(self, borrowed: list[Any]) -> list[Any]:
        """A shallow copy of a borrowed list, to change; its items stay borrowed."""
        copy = list(borrowed)
        add = self.borrowed.add
        for value in copy:
            if type(value) is dict or type(value) is list:
                add(id(value))
        return copy

    def own_path(self, root: dict[str, Any], *path: str | int) -> Any:
        """The object at ``path`` inside ``root`` (owned), to change: each borrowed dict
        or list on the way is replaced in its parent by its own shallow copy, what it
        holds still borrowed. Code that changes a folded pod between two folds copies
        this way, not with ``copy_path``: a copy made outside the fold would make what a
        borrowed object holds look owned to the folds that follow, which would change it
        in place."""
        node: Any = root
        for key in path:
            child = node[key]
            if id(child) in self.borrowed:
                child = node[key] = (self.own(child) if type(child) is dict
                                     else self.own_list(child))
            node = child
        return node


def is_clean(fragment: Any, merged_over_nothing: Any) -> bool:
    """Whether ``fragment`` is exactly what merging it over nothing gives
    (``merged_over_nothing``): no directive, no null, no duplicate key, lists as lists,
    every key in the same order. Such a fragment can be taken by reference."""
    return same_json(fragment, merged_over_nothing)


def same_json(a: Any, b: Any) -> bool:
    """Equal with the same types (``1``, ``1.0`` and ``True`` differ, a tuple is not a
    list) and the same key order: what writes the same JSON and YAML."""
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is dict:
        if list(a) != list(b):
            return False
        return all(same_json(value, b[key]) for key, value in a.items())
    if kind is list:
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def clean_as_merged(fragment: Any, node: Node) -> bool:
    """``is_clean(fragment, merge_into({}, fragment))`` for a fragment at ``node`` of a
    PodTemplateSpec, without the merge: False where the merge would drop, convert or
    combine something - and where it would refuse the fragment (the merge of the fold
    then reports it)."""
    try:
        return _clean_object(fragment, node)
    except (Malformed, TypeError):  # a key the merge refuses or cannot index
        return False


def _clean_object(value: Any, node: Node) -> bool:
    if type(value) is not dict or PATCH in value:
        return False
    fields, fallback = node.fields, node.fallback
    for key, item in value.items():
        kind = type(item)
        if kind in PLAIN:
            continue
        if kind is dict:
            if not _clean_object(item, fields.get(key, fallback)):
                return False
        elif kind is list:
            if (isinstance(key, str) and key.startswith("$")) or not _clean_list(
                    item, fields.get(key, fallback)):
                return False
        elif item is None or isinstance(item, (dict, list, tuple)):
            return False  # dropped, or made a plain dict or list
    return True


def _clean_list(items: list[Any], node: Node) -> bool:
    kind = node.kind
    item_node = node.item or EMPTY
    if kind == MAP:
        keys: set[Any] = set()
        for item in items:
            if type(item) is not dict or PATCH in item:
                return False
            key = key_of(item, node)
            if key in keys:
                return False  # merged into one
            keys.add(key)
            if not _clean_object(item, item_node):
                return False
        return True
    if kind not in (UNION, SET) and plain_values(items):
        return True  # an atomic list of plain values is copied whole
    seen: set[Any] = set()
    for item in items:
        kind_of_item = type(item)
        if kind_of_item is dict:
            if not _clean_object(item, item_node):
                return False
        elif kind_of_item is list:
            if not _clean_list(item, item_node):
                return False
        elif item is None or isinstance(item, (dict, list, tuple)):
            return False
        if kind in (UNION, SET):
            identity = ident(item)
            if identity in seen:
                return False  # an exact duplicate, dropped
            seen.add(identity)
    return True

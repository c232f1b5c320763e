"""What a check reports: one :class:`ApiProblem` per broken rule."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ._facts import Rule

__all__ = ["ApiProblem", "Problems", "item_path", "remembered"]


@dataclass(frozen=True)
class ApiProblem:
    """A field of a pod that the Kubernetes API server would refuse.

    ``path`` is the field path (``spec.containers[primary].ports[0].containerPort``, list
    items named by their ``name`` where they have one), ``rule`` the API server's rule as
    cited, ``message`` what is wrong with the value, ``fix`` how to mend it.
    """

    path: str
    rule: str
    message: str
    fix: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}; rule: {self.rule} (fix: {self.fix})"


class Problems(list[ApiProblem]):
    """The problems found so far; ``final`` says the pod is complete (not a fragment);
    ``local=False`` leaves out the rules that one value alone decides (an enumeration, a
    range, a name's syntax): for a pod merged from layers that each passed them, only the
    rules that relate values (which may come from different layers) can still fail;
    ``pod`` says the pod is a ``kind: Pod`` (the API server defaults some fields of a Pod
    that it leaves alone in a PodTemplate)."""

    __slots__ = ("final", "local", "pod")

    def __init__(self, *, final: bool, local: bool = True, pod: bool = False) -> None:
        super().__init__()
        self.final = final
        self.local = local
        self.pod = pod  # a kind: Pod, whose container requests default to its limits

    def add(self, path: str, rule: Rule, message: str, fix: str | None = None) -> None:
        self.append(ApiProblem(path, rule.cite, message, fix or rule.fix))


def item_path(base: str, index: int, item: Any) -> str:
    """``base[name]`` for an item with a name, ``base[index]`` otherwise."""
    name = item.get("name") if isinstance(item, dict) else None
    return f"{base}[{name}]" if type(name) is str and name else f"{base}[{index}]"


ItemCheck = Callable[[Problems, str, dict[str, Any]], None]


def remembered(check: ItemCheck) -> Callable[[dict[str, Any], bool], bool]:
    """``known_good(item, final)``: whether ``check`` finds nothing wrong with a flat item
    (a toleration, a mount: scalar values only), computed once per distinct item. The
    same items recur on every pod of a render; an item with a nested value is not
    remembered (the caller then checks it)."""
    @functools.lru_cache(maxsize=8192)
    def good(items: tuple[tuple[str, Any], ...], final: bool) -> bool:
        trial = Problems(final=final)
        check(trial, "", dict(items))
        return not trial

    def known_good(item: dict[str, Any], final: bool) -> bool:
        try:
            return good(tuple(item.items()), final)
        except TypeError:  # a nested (unhashable) value
            return False

    return known_good

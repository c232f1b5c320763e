"""The policy's ``enforce`` fragment: the last layer of every role (``policy``), and the
warning a task gets when its own value is replaced."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..merge import expand_container_aliases, merge_into
from ..resolve.kinds import POLICY
from ..resolve.layers import Layer
from ..stash import StashKey
from .paths import match_path

if TYPE_CHECKING:
    from ..context import RenderContext

__all__ = ["enforce_layer", "enforced_values", "fold_enforce"]

_MISSING = object()
# Kept on the platform: its policy layer; on that layer, per role shape: what it sets.
_POLICY_LAYER = StashKey[Layer]("the platform's policy layer")
_ENFORCED = StashKey["list[tuple[str, Any]]"]("the paths and values the policy sets")


def enforce_layer(context: RenderContext) -> Layer | None:
    """The ``policy`` layer of this render's platform, or None when nothing is enforced.
    Its primary container entry is named ``primary``; ``default`` and ``default-init``
    reach every container and init container."""
    platform = context.platform
    if not platform.policy.enforce:
        return None
    return platform.compiled(
        _POLICY_LAYER, lambda: Layer(POLICY.name, {"spec": platform.policy.enforce},
                                     "primary", source=platform, variant="policy",
                                     kind=POLICY))


def _enforced_paths(layer: Layer, primary: str, names: Sequence[str],
                    init_names: Sequence[str], context: RenderContext
                    ) -> list[tuple[str, Any]]:
    """The concrete field paths the layer sets for a role with these containers, with
    the values it sets there."""
    def make() -> list[tuple[str, Any]]:
        spec = expand_container_aliases(
            layer.fragment["spec"], primary_name=primary, layer_primary_name="primary",
            container_names=names, init_container_names=init_names)
        recorded: dict[str, str] = {}
        pod = merge_into({"metadata": {}, "spec": {}}, {"spec": spec}, root="",
                         layer=POLICY.name, provenance=recorded)
        return [(path, value) for path in recorded for _, value in match_path(pod, path)]

    return layer.fact(_ENFORCED, make, primary, tuple(names), tuple(init_names))


def enforced_values(layer: Layer, pod: Mapping[str, Any], primary: str, names: Sequence[str],
                    init_names: Sequence[str], context: RenderContext
                    ) -> list[tuple[str, Any, Any]]:
    """``(path, value the layer sets, value in pod or None)`` for each path it sets."""
    return [(path, value, next((v for _, v in match_path(pod, path)), None))
            for path, value in _enforced_paths(layer, primary, names, init_names, context)]


def fold_enforce(acc: dict[str, Any], layer: Layer, fold: Callable[[dict[str, Any], Layer], None],
                 *, primary: str, names: Sequence[str], init_names: Sequence[str],
                 lower: Sequence[Layer], context: RenderContext, task: str, role: str
                 ) -> None:
    """Fold the policy layer into ``acc``; warn for each value a task's own layer set
    that the policy replaced (platform values it replaces are the platform's business)."""
    enforced = _enforced_paths(layer, primary, names, init_names, context)
    before = {path: next((v for _, v in match_path(acc, path)), _MISSING)
              for path, _ in enforced}
    fold(acc, layer)
    for path, value in enforced:
        old = before[path]
        if old is _MISSING or old == value:
            continue
        if next((v for _, v in match_path(acc, path)), _MISSING) != value:
            continue  # a union list item: the policy's item was added, not swapped in
        setter = _setter(path, lower, primary, names, init_names)
        if setter is not None and setter.kind.authored:
            from .violations import compact  # here: a render the policy changes nothing of

            context.warn(f"policy enforces {compact(value)}, replacing {compact(old)} "
                         f"set by {setter.label}", task=task, role=role, field=path)


def _setter(path: str, layers: Sequence[Layer], primary: str, names: Sequence[str],
            init_names: Sequence[str]) -> Layer | None:
    """The highest of ``layers`` whose fragment sets ``path`` (only asked when the
    policy replaced a value, so the fragments are expanded here, not kept)."""
    for layer in reversed(layers):
        fragment = layer.fragment
        spec = fragment.get("spec")
        if spec is not None:
            spec = expand_container_aliases(
                spec, primary_name=primary, layer_primary_name=layer.primary_alias,
                container_names=names, init_container_names=init_names)
            fragment = {**fragment, "spec": spec}
        if next(match_path(fragment, path), None) is not None:
            return layer
    return None

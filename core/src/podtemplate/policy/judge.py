"""Policy in a render: each role's final pod judged as soon as it is resolved."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..resolve.kinds import DEFAULT_RESOURCES, OPERATOR, POLICY
from ..resolve.pod import platform_pod, resolve_pod, role_primary, task_layers
from ..stash import StashKey
from .builtin import BUILTIN_POLICY_PLUGIN

if TYPE_CHECKING:
    from ..context import RenderContext
    from ..model.roles import RoleSpec
    from ..model.task import Task
    from .violations import Violation

__all__ = ["judge_role"]

_ONLY_BUILTIN = StashKey[bool]("no policy check but the built-in one")
DEFAULT_IMAGE_LAYER = "platform defaultImage"


def _only_builtin_checks(context: RenderContext) -> bool:
    """Whether no plugin besides the built-in one checks policy (then a render without
    a policy has nothing to judge)."""
    found = context.stash.get(_ONLY_BUILTIN, None)
    if found is None:
        impls = context.plugin_manager.hook.podtemplate_check_policy.get_hookimpls()
        found = context.stash[_ONLY_BUILTIN] = all(
            impl.plugin_name == BUILTIN_POLICY_PLUGIN for impl in impls)
    return found


def judge_role(task: Task, role_spec: RoleSpec, pod: Mapping[str, Any],
               context: RenderContext) -> list[Violation]:
    """Every policy violation of one role's final ``pod``, attributed to the layer and
    file that set each value (provenance is recorded only if a check asks for it)."""
    if not context.platform.policy.active and _only_builtin_checks(context):
        return []
    # here: a render with no policy to judge never loads the engine
    from .attribution import layer_infos
    from .engine import check_policy
    from .subject import LayerInfo, PolicySubject, Provenance

    def layers() -> list[LayerInfo]:
        every = task_layers(task, role_spec, context, role_primary(task, role_spec))
        source = context.platform.source
        return [*layer_infos(every, task, context),
                LayerInfo(DEFAULT_RESOURCES.name, "platform", source),
                LayerInfo(DEFAULT_IMAGE_LAYER, "platform", source),
                LayerInfo(f"{OPERATOR.name} ({task.task_type})", "operator"),
                LayerInfo(POLICY.name, "policy", source)]

    def record() -> dict[str, str]:
        paths: dict[str, str] = {}
        final = resolve_pod(task, role_spec, context, provenance=paths)
        image = f"spec.containers[{final['spec']['containers'][0]['name']}].image"
        if image not in paths and context.platform.default_image:
            paths[image] = DEFAULT_IMAGE_LAYER  # filled after the layers, when none set it
        return paths

    subject = PolicySubject(
        task=task.name, role=role_spec.name, task_type=task.task_type, pod=pod,
        policy=context.platform.policy, provenance=Provenance(layers, record),
        platform_pod=lambda: platform_pod(task, role_spec, context),
        task_fragments=lambda: [layer.fragment for layer in
                                task_layers(task, role_spec, context, role_primary(task, role_spec))
                                if layer.kind.authored],
        owned={decl.path: decl.reason for decl in role_spec.owned})
    return check_policy(subject, context)

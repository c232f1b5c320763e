"""``render``: tasks in, manifests out. The CLI is a thin shell over this module."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pluggy

from .context import RenderContext
from .dispatch import (
    build_manifests,
    build_plugin_manager,
    check_manifest,
    define_roles,
    ours,
    require_task_type,
)
from .errors import (
    ApiRuleError,
    DefinitionError,
    ManifestValidationError,
    PodTemplateError,
    PolicyViolationError,
    brief,
)
from .guard import collector_paused, guarded
from .handover import built_pods, check_changes, check_objects, independent
from .inputs import check_inputs_known
from .model.apiserver._resources import REQUEST_LE_LIMIT
from .model.naming import check_final_names, check_object_names, check_run_id
from .model.podspec import API_RULES_MEMO, check_final_pods
from .model.roles import RoleSpec
from .model.task import Task
from .model.templates import PodTemplate
from .platform import Platform, load_platform
from .policy.judge import judge_role
from .resolve.pod import resolve_pod
from .task_settings import validate_task_type_settings

if TYPE_CHECKING:
    from .policy.violations import Violation

__all__ = ["render", "render_all", "iter_render", "render_task", "make_context",
           "check_task_manifests", "collector_paused"]


@guarded
def make_context(*, platform: Platform | str | Path | None = None,
                 templates: str | Path | None = None, namespace: str | None = None,
                 override: PodTemplate | str | Path | None = None,
                 inputs: Mapping[str, str] | None = None,
                 plugin_manager: pluggy.PluginManager | None = None,
                 provenance: bool = False, check_crds: bool = True,
                 run_id: str | None = None) -> RenderContext:
    """A render context; ``templates``/``namespace`` override the platform's.
    ``check_crds=False`` leaves custom resources unchecked against their CRDs;
    ``run_id`` suffixes every object name and labels every object and pod."""
    if not isinstance(platform, Platform):
        platform = load_platform(platform, templates=templates, namespace=namespace)
    elif templates is not None or namespace is not None:
        changes = {k: v for k, v in (("templates", templates), ("namespace", namespace)) if v}
        source = platform.source
        platform = load_platform(None, **{**platform.model_dump(), **changes})
        platform._source = source
    if override is not None and not isinstance(override, PodTemplate):
        override = PodTemplate.from_yaml(Path(override))
    manager = plugin_manager or build_plugin_manager()
    # taskTypes checked now, before any task renders; sections naming no type warn.
    types = ours(manager)
    settings, unknown = validate_task_type_settings(platform, types.task_type,
                                                    types.installed_names())
    context = RenderContext(platform=platform, plugin_manager=manager,
                            override=override, inputs=dict(inputs or {}),
                            provenance=provenance, check_crds=check_crds,
                            run_id=None if run_id is None else check_run_id(run_id),
                            settings=settings)
    for field, warning in unknown:
        context.warn(warning, field=field)
    return context


@guarded
def render_task(task: Task, context: RenderContext,
                violations: list[Violation] | None = None) -> list[dict[str, Any]]:
    """Every manifest of one task, checked against the CRDs its task type declares and by
    the manifest-check hooks. Each role's pod is judged by the policy checks: their
    violations are added to ``violations`` (and no manifest is built for a task that has
    any), or raised when it is None. The manifests are as the plugin built them, from
    pods it was handed as its own (see :func:`render` for what they may still share)."""
    roles = define_roles(task, context)
    pods = {role.name: resolve_pod(task, role, context, copy=False) for role in roles}
    found = [v for role in roles for v in judge_role(task, role, pods[role.name], context)]
    if found:
        if violations is None:
            raise PolicyViolationError(found)
        violations.extend(found)
        return []
    return check_task_manifests(task, roles, pods, context)


def check_task_manifests(task: Task, roles: Sequence[RoleSpec],
                         pods: dict[str, dict[str, Any]], context: RenderContext
                         ) -> list[dict[str, Any]]:
    """The manifests the task's plugin builds from its resolved role pods, judged as they
    will be written: the plugin is handed pods it owns (:func:`independent` copies), and
    the API server's pod rules, the CRD check and the manifest-check hooks then judge
    the pods found in the manifests it returns, however it made them."""
    handed = {name: independent(pod) for name, pod in pods.items()}
    manifests = build_manifests(task, list(roles), handed, context)
    built = built_pods(roles, manifests, pods, handed)
    known = context.memo(API_RULES_MEMO)
    for pod in built:
        try:
            check_changes(pod.changes, known)
        except PodTemplateError as error:
            raise error.located(task=task.name, role=pod.role) from None
        try:
            check_final_pods(task.name, {pod.role: pod.pod}, known)  # the API server's rules
        except ApiRuleError as error:
            raise _with_resource_layers(error, task, roles, pod.role, context) from None
    check_objects(manifests, built, task.name)  # the rest of each object, as written
    task_type = require_task_type(context.plugin_manager, task)
    if context.check_crds and task_type.crds:  # a task type with no CRD imports no CRD code
        from .schemas.resources import check_rendered

        check_rendered(task, task_type, roles,
                       manifests, context,
                       changes={id(pod.pod): pod.changes for pod in built if pod.placed})
    emitted = {pod.role: pod.pod for pod in reversed(built)}  # each role's first
    for manifest in manifests:
        problems = check_manifest(task, manifest, emitted, context)
        if problems:
            raise ManifestValidationError(problems[0], task=task.name,
                                          fix="see the field path; report a plugin bug if "
                                          "the field was not set by you")
    return manifests


def _with_resource_layers(error: ApiRuleError, task: Task, roles: Sequence[RoleSpec],
                          role: str, context: RenderContext) -> ApiRuleError:
    """A request above its limit, told with the layer that set each of the two values:
    the role's fold is run again with provenance, on this error path only (a render that
    succeeds pays nothing for it)."""
    field = error.field or ""
    container, found, name = field.rpartition(".resources.requests.")
    if not found or REQUEST_LE_LIMIT.cite not in error.message:
        return error
    provenance: dict[str, str] = {}
    try:
        resolve_pod(task, next(r for r in roles if r.name == role), context,
                    provenance=provenance)
    except PodTemplateError:
        return error
    request = provenance.get(field)
    limit = provenance.get(f"{container}.resources.limits.{name}")
    if request and limit:
        error.message += (f" (both set by the {request})" if request == limit else
                          f" (the request is set by the {request}, the limit by the {limit})")
        error.located()
    return error




def iter_render(tasks: Iterable[Task], context: RenderContext) -> Iterator[dict[str, Any]]:
    """Manifests of each task in turn, produced as they are rendered (for streaming), as
    the plugins built them from pods handed over to them (see :func:`render` for what
    they may still share). Tasks whose object names collide are refused first
    (model/naming.py). The collector is paused while each task renders (see
    :func:`collector_paused`), not
    while the caller holds a task's manifests."""
    tasks = list(tasks)
    check_object_names(tasks)
    check_final_names(tasks, context.run_id)
    check_inputs_known(tasks, context.inputs)
    violations: list[Violation] = []
    for task in tasks:
        try:
            with collector_paused():
                manifests = render_task(task, context, violations)
        except PodTemplateError as error:
            error.located(task=task.name)
            raise  # as it is: an internal error keeps its cause for --debug
        if not violations:  # after the first violation, judge the rest, output nothing
            yield from manifests
    if violations:
        raise PolicyViolationError(violations)


def render_all(tasks: Iterable[Task], context: RenderContext) -> list[dict[str, Any]]:
    """Every manifest of ``tasks`` in one list, the collector paused for the whole render
    (what :func:`render` does with the context it makes), as :func:`iter_render` makes
    them."""
    with collector_paused():
        return list(iter_render(tasks, context))


@guarded
def render(tasks: Task | Iterable[Task], *, platform: Platform | str | Path | None = None,
           templates: str | Path | None = None, namespace: str | None = None,
           override: PodTemplate | str | Path | None = None,
           inputs: Mapping[str, str] | None = None,
           plugin_manager: pluggy.PluginManager | None = None,
           run_id: str | None = None, copy: bool = True) -> list[dict[str, Any]]:
    """Render tasks to manifest dicts (every task's manifests, in task order).

    ``platform`` is a :class:`Platform` or a platform.yaml path; ``override`` a run
    override template applied to every task (layer 4); ``inputs`` ``--input`` values;
    ``run_id`` a suffix of every object name (so the same tasks can be applied again),
    also set as the ``podtemplate.io/run`` label of every object and pod.

    The manifests are the caller's: changing them changes no template, task or other
    render. ``copy=False`` skips the final copy that guarantees this, for a caller that
    only reads or serializes them: the pods in them are still independent, but the rest
    may hold objects a plugin took from the task's definition, which a change would
    reach.
    """
    tasks = _task_list(tasks)
    context = make_context(platform=platform, templates=templates, namespace=namespace,
                           override=override, inputs=inputs, plugin_manager=plugin_manager,
                           run_id=run_id)
    manifests = render_all(tasks, context)
    return independent(manifests) if copy else manifests


def _task_list(tasks: Any) -> list[Task]:
    if isinstance(tasks, Task):
        return [tasks]
    if isinstance(tasks, (str, bytes)) or not isinstance(tasks, Iterable):
        raise DefinitionError(f"render takes a task or a list of tasks, not {brief(tasks)}",
                              fix="pass the objects made by @task (or a plugin's task class)")
    items = list(tasks)
    for item in items:
        if not isinstance(item, Task):
            raise DefinitionError(f"render takes tasks, but was given {brief(item)}",
                                  fix="pass the objects made by @task (or a plugin's task "
                                  "class), not their names")
    return items

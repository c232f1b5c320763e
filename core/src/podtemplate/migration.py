"""Spellings kept for code written for flytekit (docs/from-flytekit.md): each is taken
with a one-time warning naming podtemplate's own spelling. Where flytekit's meaning
differs, the spelling is refused instead, with the exact replacement."""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .errors import DefinitionError, DefinitionErrors, FlytekitNameError, did_you_mean
from .model.sites import definition_site

__all__ = ["CORE_NAMES", "MigrationWarning", "Pod", "flytekit_names", "flytekit_override_arguments",
           "flytekit_task_arguments", "refuse_arguments", "refuse_config_keys", "take_alias",
           "warn_alias"]


class MigrationWarning(FutureWarning):
    """A flytekit spelling was used where podtemplate has its own (shown by default, once
    per spelling and process)."""


_WARNED: set[str] = set()


def warn_alias(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn once per process that ``old`` (flytekit's spelling) is taken as ``new``,
    located at the user's line (the first frame outside podtemplate, its plugins and
    pydantic); ``stacklevel`` is used when no such frame is found."""
    if old in _WARNED:
        return
    _WARNED.add(old)
    message = (f"{old} is flytekit's spelling; podtemplate takes it as {new} "
               f"(write {new} to silence this)")
    site = definition_site()
    if site is None:
        warnings.warn(message, MigrationWarning, stacklevel=stacklevel)
        return
    warnings.warn_explicit(message, MigrationWarning, site.file, site.line,
                           module=site.module)


def take_alias(value: Any, alias: Any, old: str, new: str, *, field: str) -> Any:
    """``alias`` (given under flytekit's spelling ``old``) in place of ``value`` (ours,
    ``new``), with the one-time warning; both given is an error, neither is ``value``."""
    if alias is None:
        return value
    if value is not None:
        raise DefinitionError(f"{old} and {new} both given", field=field,
                              fix=f"give it once, as {new}")
    warn_alias(old, new, stacklevel=4)
    return alias


# flytekit names imported from `podtemplate` (the port of `from flytekit import ...` or
# `from flytekitplugins.pod import Pod`) that have no podtemplate class: what to write.
CORE_NAMES = {
    "Secret": "drop Secret and secret_requests=; mount the secret with a template (volumes, "
    "or env valueFrom.secretKeyRef)",
    "TaskMetadata": "drop TaskMetadata and metadata=: retries, timeouts and caching are "
    "Flyte's engine; set activeDeadlineSeconds in a pod_template for a timeout",
    "kwtypes": "give inputs as a list of names or a dict of defaults: inputs=['x'] or "
    "inputs={'x': 1}",
    "workflow": "drop @workflow and its functions: podtemplate renders the tasks of a "
    "module, each with its --input values",
    "dynamic": "drop @dynamic: podtemplate renders the tasks a module defines",
    "map_task": "drop map_task: render the task once per input (--input) instead",
    "ImageSpec": "build the image yourself and give image='REGISTRY/NAME:TAG' (or a name of "
    "platform.yaml's images: with image='{{.image.NAME}}')",
    "current_context": "drop current_context(): a task here runs as a plain function",
}


class Pod:
    """flytekitplugins-pod's ``task_config=Pod(pod_spec=..., primary_container_name=...)``:
    the task's ``pod_template=PodTemplate(...)``, as Flyte's pod plugin builds it (taken
    with a one-time warning naming ours)."""

    def __init__(self, pod_spec: Any = None, primary_container_name: str = "primary",
                 labels: Mapping[str, str] | None = None,
                 annotations: Mapping[str, str] | None = None) -> None:
        from .model.templates import PodTemplate

        warn_alias("task_config=Pod(...)", "pod_template=PodTemplate(...)")
        self.template = PodTemplate(pod_spec=pod_spec if pod_spec is not None else {},
                                    primary_container_name=primary_container_name,
                                    labels=dict(labels or {}),
                                    annotations=dict(annotations or {}))


def flytekit_names(package: str, hints: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: a flytekit name of ``hints`` raises
    :class:`FlytekitNameError` with what to write instead (``from package import Pod``
    fails with the hint, not a bare "cannot import name"); any other name is an ordinary
    AttributeError, so ``hasattr`` and tools probing the module behave as usual."""

    def __getattr__(name: str) -> Any:
        fix = hints.get(name)
        if fix is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        raise FlytekitNameError(f"{name} is flytekit's; {package} has no {name}", fix=fix)

    return __getattr__


# flytekit @task arguments that configure Flyte's engine, not a pod: what to do instead.
_ENGINE_ONLY = {
    "retries": "drop retries=; retries are the operator's (PyTorch(run_policy=RunPolicy("
    "backoff_limit=N))) or the pod's restartPolicy (a template)",
    "timeout": "drop timeout=; set activeDeadlineSeconds in the task's pod_template",
    "secret_requests": "drop secret_requests=; mount the secret with a template (volumes, "
    "or env valueFrom.secretKeyRef)",
    "cache": "drop cache=: caching is Flyte's, not the pod's",
    "cache_version": "drop cache_version=: caching is Flyte's, not the pod's",
    "cache_serialize": "drop cache_serialize=: caching is Flyte's, not the pod's",
    "deprecated": "drop deprecated=",
    "docs": "drop docs=; the function's docstring stays the function's",
    "enable_deck": "drop enable_deck=: decks are Flyte's",
    "resources": "write requests=Resources(...) and limits=Resources(...)",
}


def refuse_arguments(given: Mapping[str, Any], replacements: Mapping[str, str], *,
                     call: str, help_name: str,
                     why: str = "is flytekit's, with no podtemplate equivalent",
                     accepted: Iterable[str] | Callable[..., Any] = ()) -> None:
    """Refuse every one of ``given`` (keyword arguments ``call`` does not take), together:
    a flytekit argument in ``replacements`` with what to write instead, any other as
    unknown (with the one of ``accepted`` a typo meant: names, or the function whose
    keywords they are, read only when something is refused), pointing to
    ``help(help_name)``."""
    if not given:
        return
    if callable(accepted):
        accepted = _keywords(accepted)
    errors = []
    for key in given:
        fix = replacements.get(key)
        if fix is not None:
            errors.append(DefinitionError(f"{call}({key}=...) {why}", field=key, fix=fix))
            continue
        meant = did_you_mean(key, accepted)
        if meant:
            errors.append(DefinitionError(f"{call} has no argument {key!r}; did you mean "
                                          f"{meant!r}?", field=key, fix=f"write {meant}="))
        else:
            errors.append(DefinitionError(f"{call} has no argument {key!r}", field=key,
                                          fix=f"see help({help_name}) for the accepted "
                                          "arguments"))
    raise_all(errors)


def raise_all(errors: list[DefinitionError]) -> None:
    """Raise the one error of ``errors``, or all of them as one :class:`DefinitionErrors`."""
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise DefinitionErrors(errors)


def refuse_config_keys(data: Mapping[str, Any], replacements: Mapping[str, str], *,
                       call: str, where: str,
                       why: str = "is flytekit's, with no equivalent here") -> None:
    """Refuse every key of ``replacements`` that ``data`` (the keywords a config class is
    given, as a ``mode="before"`` validator sees them) holds, together: flytekit's, with
    what to write instead; the field is ``where.<key>`` (``task_config.elastic.start_method``)."""
    raise_all([DefinitionError(f"{call}({key}=...) {why}", field=f"{where}.{key}", fix=fix)
               for key, fix in replacements.items() if key in data])


def _keywords(function: Callable[..., Any]) -> list[str]:
    return [name for name, parameter in inspect.signature(function).parameters.items()
            if parameter.kind is not inspect.Parameter.VAR_KEYWORD]


def _refuse_engine_settings(others: Mapping[str, Any], call: str, help_name: str) -> None:
    if not others:
        return
    from .model.task import Task, task

    function = task if call == "@task" else Task.with_overrides
    refuse_arguments(others, _ENGINE_ONLY, call=call, help_name=help_name,
                     why="is a setting of Flyte's engine, not of a pod",
                     accepted=_keywords(function))


def flytekit_override_arguments(*, image: str | None, container_image: str | None,
                                others: Mapping[str, Any]) -> str | None:
    """``with_overrides``' flytekit spellings: ``container_image=`` as ``image=``; engine
    settings (``retries=``, ``timeout=``, ``cache=``...) refused with what to do."""
    _refuse_engine_settings(others, "with_overrides", "podtemplate.Task.with_overrides")
    taken: str | None = take_alias(image, container_image,
                                   "with_overrides(container_image=...)",
                                   "with_overrides(image=...)", field="image")
    return taken


def flytekit_task_arguments(*, image: str | None, container_image: str | None,
                            env: Mapping[str, Any] | None,
                            environment: Mapping[str, Any] | None, task_config: Any,
                            pod_template: Any, others: Mapping[str, Any]
                            ) -> tuple[str | None, Mapping[str, Any] | None, Any, Any]:
    """``@task``'s flytekit spellings: ``container_image=`` and ``environment=`` as
    ``image=``/``env=``, a config that stands for another (``task_config=Elastic(...)``,
    flytekit's elastic PyTorch) replaced by it, ``task_config=Pod(...)`` as the task's
    ``pod_template``; engine settings refused with what to do."""
    _refuse_engine_settings(others, "@task", "podtemplate.task")
    image = take_alias(image, container_image, "@task(container_image=...)",
                       "@task(image=...)", field="image")
    env = take_alias(env, environment, "@task(environment=...)", "@task(env=...)",
                     field="env")
    if isinstance(task_config, Pod):
        if pod_template is not None:
            raise DefinitionError("task_config=Pod(...) and pod_template= both given",
                                  field="pod_template", fix="give the pod once, as "
                                  "pod_template=PodTemplate(pod_spec=..., "
                                  "primary_container_name=...)")
        return image, env, None, task_config.template
    stands_for = getattr(task_config, "podtemplate_task_config", None)
    if callable(stands_for):
        task_config = stands_for()
    return image, env, task_config, pod_template

"""Tasks: a function (or a command) plus everything needed to build its pods."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar, overload

from ..errors import DefinitionError, PodTemplateError, brief
from ..guard import guarded
from ..migration import flytekit_override_arguments, flytekit_task_arguments
from ..stash import StashKey
from .compiled import ENV, compiled_value
from .names import check_label_value, check_quantity, parse_quantity
from .naming import check_task_name, derive_object_name, name_digest, object_name_limit
from .sites import DefinitionSite, definition_site
from .templates import ConfigModel, EnvValue, PodTemplate, Resources, normalize_env

__all__ = ["Task", "defining_task", "sample_function_task", "task", "task_type_of"]

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


def task_type_of(config: Any) -> str:
    """The task type a ``task_config`` selects: its class's ``task_type`` attribute."""
    if config is None:
        return "python"
    task_type = getattr(type(config), "task_type", None)
    if not isinstance(task_type, str):
        raise DefinitionError(
            f"task_config of type {type(config).__name__} does not name a task type",
            fix="pass a config class from a podtemplate plugin, such as PyTorch(...)",
            field="task_config",
        )
    return task_type


@dataclasses.dataclass(frozen=True, eq=False)
class Task:
    """A task definition. Call it like the function it wraps.

    Built by :func:`task` for Python functions, or by a plugin's task class (for example
    ``ContainerTask``) with ``fn=None`` and its own ``task_type``.
    """

    name: str
    task_type: str
    fn: Callable[..., Any] | None = None
    image: str | None = None
    command: tuple[str, ...] | None = None
    args: tuple[str, ...] | None = None
    env: Mapping[str, EnvValue] = dataclasses.field(default_factory=dict)
    requests: Resources | None = None
    limits: Resources | None = None
    pod_template: PodTemplate | None = None
    pod_template_name: str | None = None
    task_config: Any = None
    interruptible: bool = False
    override: PodTemplate | None = None
    # flytekit's accelerator=: the value of the platform's acceleratorLabel node selector.
    accelerator: str | None = None
    # flytekit's shared_memory=: a memory-backed /dev/shm (True: unsized; "2Gi": sized).
    shared_memory: bool | str | None = None
    module: str | None = None
    attribute: str | None = None
    # The name of the task's objects, derived from ``name`` alone (model/naming.py): what
    # else a render holds never changes it.
    object_name: str = ""
    # Where the user defined the task (``@task(...)``, ``ContainerTask(...)``), for
    # ``explain``; not part of what the task is.
    defined_at: DefinitionSite | None = dataclasses.field(default=None, compare=False,
                                                          repr=False)
    # What core computes from the task alone (its settings' env list), kept with it: a
    # task is immutable once defined.
    _compiled: dict[Hashable, Any] = dataclasses.field(default_factory=dict, init=False,
                                                       compare=False, repr=False)

    @guarded
    def __post_init__(self) -> None:
        if self.defined_at is None:
            object.__setattr__(self, "defined_at", definition_site())
        if self.module is None and self.defined_at is not None:  # ContainerTask(...)
            object.__setattr__(self, "module", self.defined_at.module)
        try:
            check_task_name(self.name)
            if not self.object_name:
                object.__setattr__(self, "object_name", derive_object_name(
                    self.name, object_name_limit(self.task_config)))
            if isinstance(self.task_config, ConfigModel):  # the operator's name rule
                self.task_config.check_task_name(self.object_name)
            if self.image is not None and not str(self.image).strip():
                raise DefinitionError("image is empty", field="image",
                                      fix="give a container image such as python:3.11-slim")
            if self.pod_template is not None and not isinstance(self.pod_template, PodTemplate):
                raise DefinitionError("pod_template must be a PodTemplate", field="pod_template",
                                      fix="wrap the pod spec: PodTemplate(pod_spec={...})")
            if self.pod_template_name is not None and not self.pod_template_name:
                raise DefinitionError("pod_template_name is empty", field="pod_template_name",
                                      fix="name a template or leave pod_template_name unset")
            _check_types(self)
            _check_flyte_settings(self)
            # Compiled at definition: every role of every render reads this env list.
            self._compiled[ENV] = normalize_env(self.env)
            _check_gpu(self.requests, self.limits)
        except PodTemplateError as error:
            raise error.located(task=self.name) from None

    def compiled(self, key: StashKey[T], make: Callable[[], T], *parts: Hashable) -> T:
        """``make()`` the first time ``key`` (with ``parts``) is asked, the same value
        afterwards: what core computes from this task alone (see
        :mod:`podtemplate.model.compiled`)."""
        return compiled_value(self._compiled, key, make, parts)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.fn is None:
            raise TypeError(f"task {self.name!r} is a {self.task_type} task, not a function")
        return self.fn(*args, **kwargs)

    @property
    def signature(self) -> inspect.Signature | None:
        return inspect.signature(self.fn) if self.fn is not None else None

    def with_overrides(self, *, name: str | None = None,
                       pod_template: PodTemplate | None = None,
                       requests: Resources | None = None, limits: Resources | None = None,
                       image: str | None = None, interruptible: bool | None = None,
                       accelerator: str | None = None, shared_memory: bool | str | None = None,
                       container_image: str | None = None, **flytekit_only: Any) -> Task:
        """A copy of this task carrying ``pod_template`` as its task override (layer 4).
        As on Flyte (flytekit serializes the override with the task's container, and
        propeller's ApplyPodTemplateOverride takes it as the task's pod spec), the override
        replaces the task's own template's pod spec, while its labels and annotations are
        merged with the task template's; the task's settings and the cluster template
        still apply beneath. ``requests``,
        ``limits``, ``image``, ``interruptible``, ``accelerator`` and ``shared_memory``
        replace the task's own. flytekit's ``container_image=`` is taken for ``image=``
        (warning once); its engine settings (``retries=``, ``timeout=``...) are refused.

        The copy is a task of its own, so it can live at module level beside the
        original: it is named ``name``, else ``<name>-override-<hash>`` (the hash of what
        is overridden, stable across runs)."""
        try:
            image = flytekit_override_arguments(image=image, container_image=container_image,
                                                others=flytekit_only)
        except PodTemplateError as error:
            raise error.located(task=self.name) from None
        if pod_template is not None and not isinstance(pod_template, PodTemplate):
            raise DefinitionError("pod_template must be a PodTemplate", task=self.name,
                                  field="with_overrides.pod_template",
                                  fix="wrap the pod spec: PodTemplate(pod_spec={...})")
        changes: dict[str, Any] = {}
        if pod_template is not None:
            changes = {"override": pod_template, "pod_template": _metadata_of(self.pod_template)}
        given = {"requests": requests, "limits": limits, "image": image,
                 "interruptible": interruptible, "accelerator": accelerator,
                 "shared_memory": shared_memory}
        changes.update((key, value) for key, value in given.items() if value is not None)
        if name is None:
            name = f"{self.name}-override-{name_digest(repr(sorted(changes.items())))}"
        return dataclasses.replace(self, **changes, name=name, object_name="")


def _metadata_of(template: PodTemplate | None) -> PodTemplate | None:
    """The labels and annotations of ``template`` alone (its pod spec replaced by an
    override), or None when it has none."""
    if template is None or not (template.labels or template.annotations):
        return None
    return PodTemplate(labels=template.labels, annotations=template.annotations,
                       primary_container_name=template.primary_container_name)


def _check_types(task: Task) -> None:
    """Arguments of the wrong type fail here, naming the argument, rather than as an
    AttributeError deep in a render."""
    for name in ("requests", "limits"):
        value = getattr(task, name)
        if value is not None and not isinstance(value, Resources):
            raise DefinitionError(f"{name} must be Resources, not {type(value).__name__}",
                                  field=name, fix=f"write {name}=Resources(cpu='1', "
                                  "memory='1Gi')")
    for name in ("command", "args"):
        value = getattr(task, name)
        if value is not None and (isinstance(value, str) or not all(
                isinstance(part, str) for part in value)):
            raise DefinitionError(f"{name} must be a list of strings, not {brief(value)}",
                                  field=name, fix=f"write {name}=['python', 'main.py']")
    for name in ("image", "pod_template_name"):
        value = getattr(task, name)
        if value is not None and not isinstance(value, str):
            raise DefinitionError(f"{name} must be a string, not {type(value).__name__}",
                                  field=name, fix=f"give {name} as a string")
    if not isinstance(task.interruptible, bool):
        raise DefinitionError(f"interruptible must be True or False, not "
                              f"{brief(task.interruptible)}", field="interruptible",
                              fix="write interruptible=True")


def _check_flyte_settings(task: Task) -> None:
    accelerator = task.accelerator
    if accelerator is not None and (not isinstance(accelerator, str) or not accelerator
                                    or len(accelerator) > 63):
        # flytekit's GPUAccelerator keeps its device name in _device.
        device = getattr(accelerator, "device", None) or getattr(accelerator, "_device", None)
        fix = (f"write accelerator={device!r}" if isinstance(device, str)
               else "give the accelerator's node label value, e.g. accelerator="
               "'nvidia-tesla-a100'")
        raise DefinitionError(f"accelerator must be a label value, not {brief(accelerator)}",
                              field="accelerator", fix=fix)
    if accelerator is not None:
        check_label_value(accelerator, field="accelerator")
    shm = task.shared_memory
    if shm is None or shm is True or shm is False:
        return
    size = check_quantity(shm, field="shared_memory") if isinstance(shm, str) else None
    if size is None or parse_quantity(size) <= 0:
        raise DefinitionError(f"shared_memory must be True or a size, not {brief(shm)}",
                              field="shared_memory", fix="write shared_memory=True or "
                              "shared_memory='2Gi'")


def _check_gpu(requests: Resources | None, limits: Resources | None) -> None:
    if requests and limits and requests.gpu and limits.gpu and requests.gpu != limits.gpu:
        raise DefinitionError(
            f"gpu request {requests.gpu} differs from gpu limit {limits.gpu}",
            fix="Kubernetes needs the GPU request and limit equal: set one of them",
            field="requests.gpu")



@overload
def task(fn: F, /) -> Task: ...


@overload
def task(
    fn: None = None, /, *, name: str | None = None, image: str | None = None,
    command: Sequence[str] | None = None, env: Mapping[str, EnvValue] | None = None,
    requests: Resources | None = None, limits: Resources | None = None,
    pod_template: PodTemplate | None = None, pod_template_name: str | None = None,
    task_config: Any = None, interruptible: bool = False, accelerator: str | None = None,
    shared_memory: bool | str | None = None, container_image: str | None = None,
    environment: Mapping[str, EnvValue] | None = None, **flytekit_only: Any,
) -> Callable[[F], Task]: ...


def task(
    fn: Callable[..., Any] | None = None, /, *, name: str | None = None,
    image: str | None = None, command: Sequence[str] | None = None,
    env: Mapping[str, EnvValue] | None = None, requests: Resources | None = None,
    limits: Resources | None = None, pod_template: PodTemplate | None = None,
    pod_template_name: str | None = None, task_config: Any = None,
    interruptible: bool = False, accelerator: str | None = None,
    shared_memory: bool | str | None = None, container_image: str | None = None,
    environment: Mapping[str, EnvValue] | None = None, **flytekit_only: Any,
) -> Task | Callable[[Callable[..., Any]], Task]:
    """Declare a task. ``task_config`` selects a distributed task type (``PyTorch(...)``);
    without it the task runs as one ``v1 Pod``. ``command`` is for task types that run a
    command instead of the function; Python tasks run the function through the executor.

    As in flytekit, ``accelerator="nvidia-tesla-a100"`` selects nodes by the platform's
    ``acceleratorLabel`` and ``shared_memory=True`` (or a size such as ``"2Gi"``) mounts a
    memory-backed ``/dev/shm`` in every pod of the task. flytekit's ``container_image=``
    and ``environment=`` are taken for ``image=`` and ``env=`` with a warning."""
    with defining_task(name):  # a named task's errors name it before a function is seen
        image, env, task_config, pod_template = flytekit_task_arguments(
            image=image, container_image=container_image, env=env, environment=environment,
            task_config=task_config, pod_template=pod_template, others=flytekit_only)

    @guarded
    def wrap(function: Callable[..., Any]) -> Task:
        if not callable(function) or not isinstance(getattr(function, "__name__", None), str):
            raise DefinitionError(f"@task decorates a function, not {brief(function)}",
                                  fix="put @task(...) on a def")
        task_name = name or function.__name__.strip("<>")  # <lambda>: lambda
        task_type = task_type_of(task_config)
        if command is not None and task_type == "python":
            raise DefinitionError(
                "command is not used by Python function tasks", task=task_name,
                field="command", fix="drop command; the function itself is the entrypoint")
        return Task(
            name=task_name, task_type=task_type, fn=function, image=image,
            command=_as_tuple(command),
            env=dict(env) if isinstance(env, Mapping) else env or {},
            requests=requests, limits=limits, pod_template=pod_template,
            pod_template_name=pod_template_name, task_config=task_config,
            interruptible=interruptible, accelerator=accelerator,
            shared_memory=shared_memory, module=function.__module__,
            attribute=function.__name__,
        )

    return wrap(fn) if fn is not None else wrap


@contextmanager
def defining_task(name: object) -> Iterator[None]:
    """Errors raised inside are located at the task ``name``: a plugin's task factory
    (``ContainerTask(name=...)``) checks its arguments within it."""
    try:
        yield
    except PodTemplateError as error:
        raise error.located(task=name if isinstance(name, str) else None) from None


def sample_function_task(task_type: str, *, image: str, pod_template: PodTemplate | None,
                         pod_template_name: str | None, task_config: Any = None) -> Task:
    """A function task of ``task_type`` named ``sample-<type>`` whose function does
    nothing: what most ``podtemplate_make_sample_task`` hooks return."""
    return Task(name=f"sample-{task_type}", task_type=task_type, fn=_do_nothing, image=image,
                pod_template=pod_template, pod_template_name=pod_template_name,
                task_config=task_config, module=__name__, attribute=_do_nothing.__name__)


def _do_nothing() -> None:
    """The function of a sample task."""


def _as_tuple(command: Sequence[str] | None) -> tuple[str, ...] | None:
    """``command`` as a tuple; a string stays whole so the task refuses it by name
    (``tuple("ls -l")`` would be a list of letters)."""
    if command is None or isinstance(command, str):
        return command  # type: ignore[return-value]
    try:
        return tuple(command)
    except TypeError:
        return command  # type: ignore[return-value]

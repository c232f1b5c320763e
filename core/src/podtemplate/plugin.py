"""The API of plugin authors: everything a task-type plugin may import from core.

A plugin imports from ``podtemplate`` (the user API), from this module, and in its tests
from ``podtemplate.testing``. Every other module of core is private and may change; a
test of this repository fails if a bundled plugin imports one. ``docs/plugins.md`` walks
through a new task type built on these names.
"""

from __future__ import annotations

from decimal import Decimal

from .context import PlatformSettings, RenderContext, RenderWarning
from .errors import (
    BuildError,
    DefinitionError,
    InvalidNameError,
    InvalidPodSpecError,
    InvalidQuantityError,
    ManifestValidationError,
    PluginError,
    PodTemplateError,
)
from .executor import main as run_function_task
from .files.store import TemplateStore
from .hookspecs import hookimpl
from .inputs import inputs_for
from .manifest import (
    DEFAULT_CONTAINER_ANNOTATION,
    ROLE_LABEL,
    SYSTEM_LABELS,
    TASK_LABEL,
    TASK_TYPE_LABEL,
    get_path,
    object_metadata,
    object_name,
    place,
    pod_manifest,
    primary_container,
)
from .merge.aliases import DEFAULT_CONTAINER, DEFAULT_INIT_CONTAINER, PRIMARY_CONTAINER
from .migration import (
    MigrationWarning,
    flytekit_names,
    refuse_arguments,
    refuse_config_keys,
    take_alias,
    warn_alias,
)
from .model import names as _names
from .model.names import (
    MAX_OBJECT_NAME,
    check_dns1035_label,
    check_dns1123_label,
    check_dns1123_subdomain,
    check_env_name,
    check_label_key,
    check_label_value,
    check_quantity,
    to_dns1123,
)
from .model.naming import check_task_name, derive_object_name
from .model.podspec import validate_pod_spec, validate_pod_template_spec
from .model.roles import (
    POD_ROLE,
    REMOVE,
    SCHEDULING_FIELDS,
    FieldDecl,
    RoleSpec,
    TaskType,
    WhenField,
    config_of,
    single_pod_role,
)
from .model.task import Task, defining_task, sample_function_task
from .model.tasktype import TaskTypePlugin
from .model.templates import (
    ConfigModel,
    EnvValue,
    Int32,
    PodTemplate,
    Resources,
    Role,
    check_one_primary,
    normalize_env,
    scalar_text,
)
from .policy import NOT_SET, Origin, PolicySubject, Provenance, Violation
from .resolve.views import TemplateLayer, template_layers
from .runtime import function_entrypoint
from .schemas import pruning as _pruning
from .schemas.crd import Crd as _Crd
from .schemas.pruning import CrdPodSchema
from .stash import StashKey

__all__ = [
    # declaring a task type and its roles
    "TaskTypePlugin",
    "TaskType",
    "RoleSpec",
    "FieldDecl",
    "WhenField",
    "REMOVE",
    "SCHEDULING_FIELDS",
    "POD_ROLE",
    "single_pod_role",
    "hookimpl",
    # the magic container names of a template layer
    "PRIMARY_CONTAINER",
    "DEFAULT_CONTAINER",
    "DEFAULT_INIT_CONTAINER",
    # the shared concepts
    "ConfigModel",
    "EnvValue",
    "normalize_env",
    "scalar_text",
    "check_one_primary",
    "Int32",
    "PodTemplate",
    "Resources",
    "Role",
    "Task",
    "RenderContext",
    "PlatformSettings",
    "StashKey",
    "RenderWarning",
    "config_of",
    "defining_task",
    "sample_function_task",
    # building manifests
    "function_entrypoint",
    "run_function_task",
    "inputs_for",
    # the object-name rule (docs/from-flytekit.md, "Names")
    "check_task_name",
    "derive_object_name",
    "MAX_OBJECT_NAME",
    # flytekit spellings kept with a warning (docs/from-flytekit.md)
    "MigrationWarning",
    "flytekit_names",
    "refuse_arguments",
    "refuse_config_keys",
    "take_alias",
    "warn_alias",
    "get_path",
    "object_metadata",
    "object_name",
    "place",
    "pod_manifest",
    "primary_container",
    "TemplateLayer",
    "template_layers",
    "SYSTEM_LABELS",
    "TASK_LABEL",
    "TASK_TYPE_LABEL",
    "ROLE_LABEL",
    "DEFAULT_CONTAINER_ANNOTATION",
    # checks at definition time
    "check_dns1035_label",
    "check_dns1123_label",
    "check_dns1123_subdomain",
    "check_env_name",
    "check_label_key",
    "check_label_value",
    "check_quantity",
    "dns1123_label_ok",
    "parse_quantity",
    "to_dns1123",
    "validate_pod_spec",
    "validate_pod_template_spec",
    # the pod schema an operator's CRD embeds: the fields it would prune
    "CrdPodSchema",
    "crd_pod_schema",
    # other extension points
    "TemplateStore",
    # policy checks (podtemplate_check_policy)
    "PolicySubject",
    "Provenance",
    "Violation",
    "Origin",
    "NOT_SET",
    # errors
    "BuildError",
    "DefinitionError",
    "InvalidNameError",
    "InvalidPodSpecError",
    "InvalidQuantityError",
    "ManifestValidationError",
    "PluginError",
    "PodTemplateError",
]


# Plain functions over core's cached ones: the cache is core's (its size, its clearing),
# not part of the plugin API.
def dns1123_label_ok(value: str) -> bool:
    """Whether the string ``value`` is a DNS-1123 label (the check, without an error)."""
    return _names.dns1123_label_ok(value)


def parse_quantity(value: str) -> Decimal:
    """The numeric value of a (valid) quantity: ``"500m"`` -> 0.5, ``"1Gi"`` ->
    1073741824; an :class:`InvalidQuantityError` for another string."""
    return _names.parse_quantity(value)


def crd_pod_schema(crd: str | _Crd, template_path: str, version: str | None = None
                   ) -> CrdPodSchema:
    """The pod schema at ``template_path`` of ``crd`` (a shipped CRD named as
    ``TaskType.crds`` names it, or a loaded one), in ``version`` (default: the first
    served): ``.newer_fields()`` and ``.pruned(pod)`` say which pod fields it prunes."""
    return _pruning.crd_pod_schema(crd, template_path, version)

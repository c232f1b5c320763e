"""The fast CRD-known check (``podtemplate_dask/_fast.py``) says what the plain one
(``crd_schema.layers_known``) says, layer lists the CRD knows and ones it does not, and
a render through either gives the same manifests and warnings."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from podtemplate import (
    Platform,
    PodTemplate,
    PodTemplateError,
    Resources,
    Role,
    make_context,
    render_task,
    task,
)
from podtemplate.plugin import task_layers
from podtemplate_dask import CONTAINER_NAMES, Dask, _fast, build, crd_schema, define_roles
from podtemplate_dask.roles import CONSTANT_OPERATOR_LAYERS

IMAGE = "ghcr.io/dask/dask:2024.12.1"

# Pod spec fields: known to the DaskJob CRD's (Kubernetes 1.21) pod schema or newer.
SPEC_FIELDS = st.sampled_from([
    {"priorityClassName": "high"},
    {"nodeSelector": {"pool": "a", "zone": "b"}},
    {"tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]},
    {"volumes": [{"name": "data", "emptyDir": {"sizeLimit": "1Gi"}}]},
    {"os": {"name": "linux"}},  # newer
    {"schedulingGates": [{"name": "wait"}]},  # newer
    {"hostUsers": False},  # newer
])
CONTAINER_FIELDS = st.sampled_from([
    {"imagePullPolicy": "Always"},
    {"env": [{"name": "A", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]},
    {"volumeMounts": [{"name": "data", "mountPath": "/data"}]},
    {"resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"}]},  # newer
    {"securityContext": {"runAsNonRoot": True}},
])
ENV = st.dictionaries(st.sampled_from(["A", "B", "LOG"]), st.sampled_from(["1", "x", True]),
                      max_size=3)
RESOURCES = st.none() | st.builds(Resources, cpu=st.sampled_from([None, "1", "500m"]),
                                  memory=st.sampled_from([None, "1Gi"]),
                                  gpu=st.sampled_from([None, "1"]))


@st.composite
def templates(draw: Any) -> PodTemplate | None:
    if draw(st.booleans()):
        return None
    spec: dict[str, Any] = {}
    for fields in draw(st.lists(SPEC_FIELDS, max_size=2)):
        spec.update(copy.deepcopy(fields))
    container: dict[str, Any] = {"name": "primary"}
    for fields in draw(st.lists(CONTAINER_FIELDS, max_size=2)):
        container.update(copy.deepcopy(fields))
    spec["containers"] = [container]
    return PodTemplate(spec)


@st.composite
def roles(draw: Any) -> Role | None:
    if draw(st.booleans()):
        return None
    return Role(pod_template=draw(templates()), image=draw(st.sampled_from([None, IMAGE])),
                env=draw(ENV) or None, limits=draw(RESOURCES))


@st.composite
def dask_tasks(draw: Any) -> Any:
    config = Dask(job_runner=draw(roles()), scheduler=draw(roles()), workers=draw(roles()))

    @task(image=IMAGE, env=draw(ENV), requests=draw(RESOURCES), limits=draw(RESOURCES),
          shared_memory=draw(st.sampled_from([None, True, "1Gi"])),
          accelerator=draw(st.sampled_from([None, "nvidia-tesla-t4"])),
          pod_template=draw(templates()), task_config=config)
    def job() -> None: ...

    return job


PLATFORM = Platform(namespace="ml-team", defaultImage=IMAGE)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(job=dask_tasks())
def test_the_fast_check_says_what_the_plain_one_says(job: Any, plugin_manager: Any) -> None:
    context = make_context(platform=PLATFORM, plugin_manager=plugin_manager)
    for role_spec in define_roles(job, context):
        role = role_spec.name
        layers = task_layers(job, role_spec, context, CONTAINER_NAMES[role])
        plain = crd_schema.layers_known(layers, role_spec.operator_layer, role, context)
        assert _fast.layers_known(layers, role_spec.operator_layer, role) is plain
        event(f"{role}: {'known' if plain else 'not known'}")
        # Each layer on its own too, so that a verdict cannot hide behind another's.
        for layer in layers:
            alone = crd_schema.layers_known([layer], {}, role, context)
            assert _fast.layers_known([layer], {}, role) is alone


def test_newer_fields_in_a_settings_shaped_layer_are_not_taken_for_settings(
        plugin_manager: Any) -> None:
    """A fragment built for one task that is not core's settings layer is walked."""
    from podtemplate.plugin import Layer, layer_kinds

    container = {"name": "worker", "image": IMAGE, "resizePolicy": []}
    layer = Layer("task settings", {"spec": {"containers": [container]}}, "worker",
                  proven=True, kind=layer_kinds.TASK_SETTINGS)
    context = make_context(platform=PLATFORM, plugin_manager=plugin_manager)
    assert crd_schema.layers_known([layer], {}, "worker", context) is False
    assert _fast.layers_known([layer], {}, "worker") is False


@pytest.mark.parametrize("role", sorted(CONSTANT_OPERATOR_LAYERS))
def test_a_constant_operator_layer_is_judged_like_any_other(role: str) -> None:
    layer = CONSTANT_OPERATOR_LAYERS[role]
    tree = crd_schema.known_tree(crd_schema.KNOWN_FIELDS[role], crd_schema.OPEN_FIELDS[role])
    assert _fast.layers_known([], layer, role) is crd_schema.all_known(layer, tree) is True
    newer = {"spec": {**layer["spec"], "os": {"name": "linux"}}}  # not the constant
    assert _fast.layers_known([], newer, role) is False


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(job=dask_tasks())
def test_a_render_through_either_check_is_the_same(job: Any, plugin_manager: Any) -> None:
    def rendered() -> tuple[Any, list[Any]]:
        context = make_context(platform=PLATFORM, plugin_manager=plugin_manager)
        try:
            manifests: Any = copy.deepcopy(render_task(job, context))
        except PodTemplateError as error:  # refused: by the same error, both ways
            manifests = (type(error), str(error))
        return manifests, [(w.message, w.role, w.field) for w in context.warnings]

    fast = rendered()
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(build, "layers_known",
                        lambda layers, operator, role: crd_schema.layers_known(
                            layers, operator, role, make_context(
                                platform=PLATFORM, plugin_manager=plugin_manager)))
        assert rendered() == fast

"""Compiled at definition: a PodTemplate is immutable, and what core computes from a
template alone - its layer, the layer's proof, its CRD verdicts - is computed once and
kept on it, not once per render."""

from __future__ import annotations

from typing import Any

import pytest
from podtemplate import Platform, PodTemplate, make_context, resolve_pod, task
from podtemplate.dispatch import define_roles
from podtemplate.model.compiled import ENV
from podtemplate.resolve import _fast
from podtemplate.resolve.layers import Layer
from podtemplate.stash import StashKey

SOMETHING = StashKey[int]("something")
SPEC = {"containers": [{"name": "primary", "env": [{"name": "A", "value": "1"}]},
                       {"name": "side", "image": "busybox:1.36"}],
        "tolerations": [{"key": "t", "operator": "Exists"}]}


def test_a_template_cannot_be_changed_once_defined() -> None:
    template = PodTemplate(SPEC)
    with pytest.raises(AttributeError, match="immutable"):
        template.pod_spec = {}  # type: ignore[misc]
    with pytest.raises(AttributeError, match="immutable"):
        template.primary_container_name = "main"  # type: ignore[misc]
    SPEC["containers"][0]["name"] = "changed"  # the caller's dict, not the template's
    try:
        assert template.pod_spec["containers"][0]["name"] == "primary"
    finally:
        SPEC["containers"][0]["name"] = "primary"


def test_a_templates_layer_and_its_proof_are_made_once_for_every_render(
        monkeypatch: pytest.MonkeyPatch) -> None:
    proofs: list[Any] = []
    real = _fast._proves

    def counting(fragment: Any) -> bool:
        proofs.append(fragment)
        return real(fragment)

    monkeypatch.setattr(_fast, "_proves", counting)
    template = PodTemplate(SPEC)

    @task(image="busybox:1.36", pod_template=template)
    def user_task() -> None:
        """A task with its own template."""

    pods = []
    for _ in range(3):  # three renders, each with its own context
        context = make_context(platform=Platform())
        (role,) = define_roles(user_task, context)
        pods.append(resolve_pod(user_task, role, context))
    assert pods[0] == pods[1] == pods[2]
    # The operator layer is made for one task each render and proven each time; the
    # template's layer once.
    assert [f for f in proofs if f["spec"] is template.pod_spec] == [proofs[0]]
    assert proofs[0]["spec"] is template.pod_spec
    layers = [value for value in template._compiled.values() if isinstance(value, Layer)]
    assert len(layers) == 1 and layers[0].fact(_fast.PROVEN, lambda: False) is True


def test_a_template_copies_and_pickles_as_what_it_was_made_of() -> None:
    import copy
    import pickle

    template = PodTemplate(SPEC, labels={"team": "ml"})
    template.compiled(SOMETHING, lambda: 1)
    for other in (copy.deepcopy(template), pickle.loads(pickle.dumps(template))):
        assert other == template and other.pod_spec is not template.pod_spec
        assert other.compiled(SOMETHING, lambda: 2) == 2  # compiled afresh
        with pytest.raises(AttributeError, match="immutable"):
            other.labels = {}  # type: ignore[misc]


def test_a_task_and_a_role_compile_their_env_when_defined_and_copies_afresh() -> None:
    from podtemplate import Role

    @task(image="busybox:1.36", env={"A": 1, "B": True})
    def with_env() -> None:
        """A task with env vars."""

    assert with_env._compiled[ENV] == [{"name": "A", "value": "1"},
                                         {"name": "B", "value": "true"}]
    role = Role(env={"X": "1"})
    assert role._compiled[ENV] == [{"name": "X", "value": "1"}]
    changed = role.model_copy(update={"env": {"Y": "2"}})
    assert changed._compiled == {}  # compiled again, from its own env, when first asked
    assert role._compiled[ENV] == [{"name": "X", "value": "1"}]


def test_what_is_compiled_is_kept_under_its_key_and_parts() -> None:
    """Two keys of one name are two entries (a key is an object, not its name), and the
    parts a value depends on are entries of their own."""
    template = PodTemplate(SPEC)
    other = StashKey[int]("something")
    assert template.compiled(SOMETHING, lambda: 1) == 1
    assert template.compiled(other, lambda: 2) == 2
    assert template.compiled(SOMETHING, lambda: 3, "a", None) == 3
    assert template.compiled(SOMETHING, lambda: 4, "a", None) == 3
    assert template.compiled(SOMETHING, lambda: 5) == 1


def _typed(key: object) -> bool:
    return isinstance(key, StashKey) or (
        type(key) is tuple and len(key) > 1 and isinstance(key[0], StashKey))


def test_every_value_kept_on_a_definition_or_a_layer_is_under_a_typed_key() -> None:
    """After three renders of every installed task type's sample task under a platform
    with layers of its own (interruptible, resourceTolerations, a policy), what core and
    the plugins kept on the tasks, their roles, configs and templates, the platform and
    the layers is kept under :class:`StashKey` objects (with parts), never under a name
    that two modules could both pick."""
    from podtemplate import build_plugin_manager, render
    from podtemplate.dispatch import make_sample_task, task_types
    from podtemplate.resolve.pod import role_primary, task_layers

    manager = build_plugin_manager()
    template = PodTemplate(SPEC)
    tasks = [make_sample_task(manager, name, pod_template=template).with_overrides(
        interruptible=True) for name in sorted(task_types(manager))]
    platform = Platform.model_validate({
        "defaultImage": "python:3.11",
        "interruptible": {"nodeSelector": {"pool": "spot"}},
        "resourceTolerations": {"cpu": [{"key": "cpu", "operator": "Exists"}]},
        "policy": {"enforce": {"containers": [{"name": "default", "securityContext": {
            "allowPrivilegeEscalation": False}}]}}})
    for _ in range(3):
        render(tasks, platform=platform, plugin_manager=manager)
    context = make_context(platform=platform, plugin_manager=manager)
    owners: list[Any] = [template, platform]
    layers: list[Layer] = []
    for made in tasks:
        owners += [made, made.task_config]
        for role in define_roles(made, context):
            owners.append(role.role)
            layers += task_layers(made, role, context, role_primary(made, role))
    stores = [store for owner in owners
              if (store := getattr(owner, "_compiled", None))]
    layers += [value for store in stores for value in store.values()
               if isinstance(value, Layer)]
    stores += [layer._facts for layer in layers if layer._facts]
    keys = [key for store in stores for key in store]
    assert len(stores) > 10 and len(keys) > 20
    assert [key for key in keys if not _typed(key)] == []

"""``context.platform_settings``: the settings of platform.yaml a plugin may read, typed,
frozen and read only, as platform.yaml and the CLI gave them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from podtemplate import make_context
from podtemplate.platform import load_platform
from podtemplate.plugin import PlatformSettings, RenderContext


def test_the_settings_are_platform_yamls(tmp_path: Path) -> None:
    path = tmp_path / "platform.yaml"
    path.write_text("namespace: ml\ngpuResourceName: amd.com/gpu\n"
                    "acceleratorLabel: cloud.google.com/gke-accelerator\n"
                    "defaultImage: ghcr.io/acme/base:1\n"
                    "defaultResources: {requests: {cpu: 500m}, limits: {memory: 1Gi}}\n")
    context = make_context(platform=load_platform(path), run_id="r7")
    settings = context.platform_settings
    assert isinstance(context, RenderContext) and isinstance(settings, PlatformSettings)
    assert settings == PlatformSettings(
        namespace="ml", gpu_resource_name="amd.com/gpu",
        accelerator_label="cloud.google.com/gke-accelerator",
        default_image="ghcr.io/acme/base:1", default_requests={"cpu": "500m"},
        default_limits={"memory": "1Gi"}, run_id="r7")


def test_the_defaults_and_that_nothing_can_be_changed() -> None:
    settings = make_context().platform_settings
    assert (settings.gpu_resource_name, settings.accelerator_label, settings.default_image) \
        == ("nvidia.com/gpu", "k8s.amazonaws.com/accelerator", None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.gpu_resource_name = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        settings.default_requests["cpu"] = "1"  # type: ignore[index]


def test_every_field_is_documented_for_plugin_authors() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "plugins.md").read_text()
    for field in dataclasses.fields(PlatformSettings):
        assert f"`{field.name}`" in docs, field.name


def test_no_platform_file_gives_the_platform_of_all_defaults_unvalidated() -> None:
    """The platform of no platform.yaml is made without building a validator (start-up);
    it equals the validated ``Platform()``, field for field and type for type."""
    from podtemplate.errors import brief
    from podtemplate.platform import Platform, default_platform, load_platform

    made, validated = load_platform(None), Platform()
    assert made == validated
    assert made.model_dump() == validated.model_dump()
    for name in Platform.model_fields:
        assert type(getattr(made, name)) is type(getattr(validated, name)), name
    # no field counts as given: what a plugin dumps with exclude_unset, or brief() shows
    assert made.model_fields_set == validated.model_fields_set == set()
    assert made.model_dump(exclude_unset=True) == validated.model_dump(exclude_unset=True)
    assert brief(made) == brief(validated)
    assert made.source is None and made is not default_platform()
    assert load_platform(None, namespace="team-a").namespace == "team-a"

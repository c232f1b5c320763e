"""Issue 30, theme 2: Kubernetes objects written for the client flytekit uses. What the
flytekit-era ``kubernetes`` client took is taken where the API server takes it too (a
number as a quantity or as text); what it cannot be is one line at the user's line (a
string ``command``: write a list), reported with the module's other refusals; and the
client's models are as shipped outside the import."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from podtemplate.model.oldclient import flytekit_era_models
from podtemplate.testing import render_cli, rendered_documents
from pydantic import ValidationError

OLD_CLIENT = '''\
from kubernetes.client import (V1Container, V1PodSpec, V1ResourceRequirements,
                               V1Toleration)
from podtemplate import PodTemplate, task

SPEC = V1PodSpec(
    containers=[V1Container(name="primary",
                            resources=V1ResourceRequirements(limits={"cpu": 1, "memory": 0.5},
                                                             requests={"cpu": 0.25}))],
    tolerations=[V1Toleration(key="num-gpus", operator="Equal", value=1,
                              effect="NoSchedule")],
)


@task(image="python:3.11", pod_template=PodTemplate(pod_spec=SPEC))
def old_client() -> None: ...
'''


def _errors(result: Any) -> list[str]:
    return [line for line in result.output.splitlines() if line.startswith("error: ")]


def test_numbers_the_old_client_took_render_as_the_api_server_reads_them(
        tmp_path: Path) -> None:
    module = tmp_path / "old_client_ok.py"
    module.write_text(OLD_CLIENT)
    result = render_cli(str(module))
    assert result.exit_code == 0, result.output
    (pod,) = rendered_documents(result.stdout)
    spec = pod["spec"]
    # the memory request is the limit, as Flyte's backend completes it
    assert spec["containers"][0]["resources"] == {
        "limits": {"cpu": "1", "memory": "0.5"}, "requests": {"cpu": "0.25", "memory": "0.5"}}
    assert spec["tolerations"] == [{"key": "num-gpus", "operator": "Equal", "value": "1",
                                    "effect": "NoSchedule"}]


def test_a_string_command_is_one_line_at_the_users_line_with_the_others(
        tmp_path: Path) -> None:
    module = tmp_path / "old_client_bad.py"
    module.write_text(textwrap.dedent('''\
        from kubernetes.client import V1Container, V1PodSpec, V1Toleration
        from podtemplate import PodTemplate, task

        SIDECAR = V1Container(name="log", image="busybox", command="echo")
        LATER = V1Toleration(key="a", toleration_seconds="60")

        @task(image="python:3.11", cache=True)
        def cached() -> None: ...
    '''))
    result = render_cli(str(module))
    assert result.exit_code == 2
    lines = _errors(result)
    assert len(lines) == 3, result.output
    assert lines[0].startswith(f"error: {module}:4, V1Container.command: ")
    assert "(fix: write command=['echo'])" in lines[0]
    assert lines[1].startswith(f"error: {module}:5, V1Toleration.toleration_seconds: ")
    assert f"{module}:7" in lines[2] and "cache" in lines[2]
    assert "pydantic" not in result.output and "main.py" not in result.output


def test_the_models_are_as_shipped_outside_the_import() -> None:
    from kubernetes.client import V1Toleration

    with flytekit_era_models():
        assert V1Toleration(value=1).value == "1"
    with pytest.raises(ValidationError):
        V1Toleration(value=1)


def test_a_library_models_error_is_one_line_at_the_users_line(tmp_path: Path) -> None:
    module = tmp_path / "other_models.py"
    module.write_text(textwrap.dedent('''\
        import pydantic

        class Settings(pydantic.BaseModel):
            size: int

        SETTINGS = Settings(size="big")
    '''))
    result = render_cli(str(module))
    assert result.exit_code == 2
    (line,) = _errors(result)
    assert "Settings(size='big'): input should be a valid integer" in line
    assert f"{module}:6" in line and "\n" not in line.strip()

"""ContainerTask inputs as flytekit spells them (issue 21): ``inputs={"a": float}`` and
``{{.inputs.a}}`` in command and args, filled from ``--input``."""

from __future__ import annotations

import textwrap
from pathlib import Path

import podtemplate
import pytest
from podtemplate import DefinitionError, InputError
from podtemplate.testing import assert_valid_pod, render_cli, rendered_documents
from podtemplate_container import ContainerTask

# flytesnacks' raw-container example (calculate-ellipse-area), ported.
ELLIPSE = dict(
    name="calculate_ellipse_area_shell", image="ghcr.io/flyteorg/rawcontainers-shell:v2",
    inputs={"a": float, "b": float},
    command=["./calculate-ellipse-area.sh", "/var/outputs", "{{.inputs.a}}", "{{ .inputs.b }}"],
)


def test_placeholders_are_filled_from_inputs_typed_as_declared() -> None:
    task = ContainerTask(**ELLIPSE)  # type: ignore[arg-type]
    (pod,) = podtemplate.render(task, inputs={"a": "3", "b": "0.5"})
    assert_valid_pod(pod)
    assert pod["metadata"]["name"] == "calculate-ellipse-area-shell"
    assert pod["spec"]["containers"][0]["command"] == [
        "./calculate-ellipse-area.sh", "/var/outputs", "3", "0.5"]  # Flyte's 3, not 3.0


def test_lists_and_dicts_are_filled_as_json_and_text_is_kept_whole() -> None:
    task = ContainerTask(name="job", image="busybox:1.36", command=["run"],
                         args=["--ids={{.inputs.ids}}", "--who", "{{.inputs.who}}"],
                         inputs={"ids": list, "who": str})
    (pod,) = podtemplate.render(task, inputs={"ids": "[1, 2]", "who": "a b"})
    assert_valid_pod(pod)
    assert pod["spec"]["containers"][0]["args"] == ["--ids=[1,2]", "--who", "a b"]


def test_a_missing_input_names_the_flag_to_pass() -> None:
    task = ContainerTask(**ELLIPSE)  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"input 'b' has no value.*--input b=VALUE"):
        podtemplate.render(task, inputs={"a": "3"})


def test_an_input_of_the_wrong_type_is_refused() -> None:
    task = ContainerTask(**ELLIPSE)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="not a valid float"):
        podtemplate.render(task, inputs={"a": "three", "b": "1"})


def test_an_unknown_input_is_refused_naming_the_known_ones() -> None:
    task = ContainerTask(**ELLIPSE)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="use one of: a, b"):
        podtemplate.render(task, inputs={"a": "1", "b": "1", "c": "1"})


@pytest.mark.parametrize("placeholder", ["{{.inputs.c}}", "{{$inputs.c}}"])
def test_a_placeholder_of_an_undeclared_input_fails_at_definition(placeholder: str) -> None:
    with pytest.raises(DefinitionError, match=r"has no input 'c'.*declared: a, b"):
        ContainerTask(**{**ELLIPSE, "command": ["x", placeholder]})  # type: ignore[arg-type]


@pytest.mark.parametrize("placeholder", ["{{.outputs.area}}", "{{$OutputPrefix}}"])
def test_flytekit_outputs_placeholders_are_refused_with_the_reason(placeholder: str) -> None:
    with pytest.raises(DefinitionError, match="does not fill"):
        ContainerTask(name="x", image="busybox:1.36", command=["x", placeholder])


def test_an_input_type_that_cannot_be_text_is_refused() -> None:
    with pytest.raises(DefinitionError, match="use one of str, int, float, bool"):
        ContainerTask(name="x", image="busybox:1.36", inputs={"a": bytes})


def test_inputs_from_the_command_line(tmp_path: Path) -> None:
    module = tmp_path / "ellipse_inputs_cli.py"
    module.write_text(textwrap.dedent("""\
        from podtemplate_container import ContainerTask
        area = ContainerTask(name="area", image="busybox:1.36", inputs={"r": int},
                             command=["sh", "-c", "echo $(( {{.inputs.r}} * 3 ))"])
        """))
    result = render_cli(str(module), "--input", "r=7")
    assert result.exit_code == 0, result.output
    (pod,) = rendered_documents(result.stdout)
    assert_valid_pod(pod)
    assert pod["spec"]["containers"][0]["command"] == ["sh", "-c", "echo $(( 7 * 3 ))"]


def test_placeholders_in_every_spelling_flyte_fills_are_filled() -> None:
    # Flyte's propeller fills {{.inputs.x}} case-insensitively and with '$' for '.'
    # (flyteplugins go/tasks/pluginmachinery/core/template/template.go: inputVarRegex
    # `(?i){{\s*[\.$]Inputs\.(?P<input_name>[^}\s]+)\s*}}`): none may pass through literally.
    task = ContainerTask(name="spellings", image="busybox:1.36", inputs={"a": int},
                         command=["echo", "{{.Inputs.a}}", "{{$inputs.a}}", "{{ $Inputs.a }}",
                                  "{{.INPUTS.a}}"])
    (pod,) = podtemplate.render(task, inputs={"a": "7"})
    assert_valid_pod(pod)
    assert pod["spec"]["containers"][0]["command"] == ["echo", "7", "7", "7", "7"]


def test_booleans_are_filled_as_flyte_writes_them() -> None:
    # Flyte serialises a boolean primitive with Go's %v: true/false (template.go,
    # serializePrimitive), which shell tests such as [ "$x" = true ] rely on.
    task = ContainerTask(name="flags", image="busybox:1.36", inputs={"on": bool, "off": bool},
                         command=["run", "--on={{.inputs.on}}", "--off={{.inputs.off}}"])
    (pod,) = podtemplate.render(task, inputs={"on": "true", "off": "false"})
    assert_valid_pod(pod)
    assert pod["spec"]["containers"][0]["command"] == ["run", "--on=true", "--off=false"]


@pytest.mark.parametrize(("value", "text"), [
    (3.0, "3"), (0.5, "0.5"), (-2.25, "-2.25"), (123456.0, "123456"), (1e6, "1e+06"),
    (1234567.0, "1.234567e+06"), (1e-4, "0.0001"), (1.5e-5, "1.5e-05"),
    (0.1 + 0.2, "0.30000000000000004"), (1e21, "1e+21"), (-0.0, "-0"),
    (float("inf"), "+Inf"), (float("-inf"), "-Inf"), (float("nan"), "NaN")])
def test_floats_are_filled_as_flyte_writes_them(value: float, text: str) -> None:
    # flyteplugins core/template/template.go serializePrimitive writes a float with Go's
    # %v (strconv 'g', shortest digits, exponent when it is below -4 or from 6 up).
    from podtemplate_container.inputs import go_float

    assert go_float(value) == text
    task = ContainerTask(name="ratio", image="busybox:1.36", inputs={"r": float},
                         command=["echo", "{{.inputs.r}}"])
    if value == value and abs(value) != float("inf"):
        (pod,) = podtemplate.render(task, inputs={"r": repr(value)})
        assert pod["spec"]["containers"][0]["command"] == ["echo", text]

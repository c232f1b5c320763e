"""ShellTask definitions: what is accepted, and clear errors for everything else."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from podtemplate import DefinitionError, PodTemplateError, Task, build_plugin_manager
from podtemplate.testing import assert_definition_error, task_types
from podtemplate_shell import MAX_SCRIPT_BYTES, SCRIPT_PATH, ShellConfig, ShellTask


def test_registered_through_the_entry_point() -> None:
    declared = task_types(build_plugin_manager())["shell"]
    assert declared.distribution == "podtemplate-shell"


def test_is_a_task_that_runs_the_script_file_with_the_shell() -> None:
    task = ShellTask(name="hello", script="echo hi\n", shell="/bin/bash", env={"A": 1})
    assert isinstance(task, Task)
    assert (task.task_type, task.fn) == ("shell", None)
    assert task.command == ("/bin/bash", SCRIPT_PATH)
    assert task.args == ()
    assert task.image is None  # the template's or the platform's image
    assert isinstance(task.task_config, ShellConfig)
    assert task.task_config.script == "echo hi\n"
    with pytest.raises(TypeError, match="shell task"):
        task()


def test_inputs_are_its_parameters() -> None:
    task = ShellTask(name="t", script="echo", inputs={"DAY": "2026-01-01", "N": 3, "ON": True,
                                                      "NEEDED": None})
    assert task.task_config.inputs == {"DAY": "2026-01-01", "N": "3", "ON": "true",
                                       "NEEDED": None}
    parameters = task.signature.parameters
    assert list(parameters) == ["DAY", "N", "ON", "NEEDED"]
    assert parameters["DAY"].default == "2026-01-01"
    assert parameters["NEEDED"].default is inspect.Parameter.empty
    listed = ShellTask(name="t", script="echo", inputs=["A", "B"])
    assert listed.task_config.inputs == {"A": None, "B": None}


def test_with_overrides_keeps_the_shell_task() -> None:
    from podtemplate import PodTemplate

    task = ShellTask(name="t", script="echo", inputs={"X": "1"})
    copy = task.with_overrides(pod_template=PodTemplate({"priorityClassName": "p"}))
    assert type(copy) is type(task)
    assert list(copy.signature.parameters) == ["X"]


def test_a_long_script_with_any_text_is_accepted_unchanged() -> None:
    script = "echo 'ünïcödé ✓' \"$X\" \\\n\t# tab\r\n" * 20_000  # ~ 700 kB
    assert ShellTask(name="t", script=script).task_config.script == script


@pytest.mark.parametrize(("kwargs", "field", "message"), [
    ({"script": ""}, "script", "script is empty"),
    ({"script": " \n\t\n"}, "script", "script is empty"),
    ({"script": None}, "script", "script must be a string"),
    ({"script": "echo a\necho b\x00c"}, "script", "NUL character on line 2"),
    ({"script": "echo \ud800"}, "script", "not valid Unicode"),
    ({"script": "#" * (MAX_SCRIPT_BYTES + 1)}, "script", "may hold at most"),
    ({"shell": "bash"}, "shell", "not an absolute path"),
    ({"shell": ""}, "shell", "not an absolute path"),
    ({"shell": "/bin/ba sh"}, "shell", "not an absolute path"),
    ({"shell": "/bin/sh -e"}, "shell", "not an absolute path"),
    ({"shell": "/bin/"}, "shell", "not an absolute path"),
    ({"shell": "/usr/../bin/sh"}, "shell", "not an absolute path"),
    ({"shell": "/bin/sh\x00"}, "shell", "not an absolute path"),
    ({"shell": None}, "shell", "not an absolute path"),
    ({"shell": "/bin/sh\n"}, "shell", "not an absolute path"),
    ({"inputs": {"1DAY": "x"}}, "inputs.1DAY", "is not a shell variable name"),
    ({"inputs": {"MY-DAY": "x"}}, "inputs.MY-DAY", "is not a shell variable name"),
    ({"inputs": {"": "x"}}, "inputs.", "is not a shell variable name"),
    ({"inputs": ["OK", "NOT OK"]}, "inputs.NOT OK", "is not a shell variable name"),
    ({"inputs": {"DAY\n": "x"}}, "inputs.DAY\n", "is not a shell variable name"),
    ({"inputs": {"class": "x"}}, "inputs.class", "reserved word"),
    ({"inputs": "DAY"}, "inputs", "not str"),
    ({"inputs": {"DAY": ["x"]}}, "inputs.DAY", "must be a string or number"),
    ({"inputs": {"DAY": "a\x00"}}, "inputs.DAY", "NUL"),
    ({"inputs": {"DAY": "x"}, "env": {"DAY": "y"}}, "inputs.DAY", "both an input and an env"),
    ({"env": {"BAD=NAME": "y"}}, "env.BAD=NAME", "not a valid environment variable name"),
    ({"image": ""}, "image", "image is empty"),
    ({"image": "  "}, "image", "image is empty"),
    ({"name": "bad name"}, "name", "task name 'bad name' is not valid"),
])
def test_bad_definitions_fail_at_definition_time(kwargs: dict[str, Any], field: str,
                                                 message: str) -> None:
    arguments = {"name": "job", "script": "echo hi", **kwargs}
    assert_definition_error(lambda: ShellTask(**arguments), message=message, field=field,
                            task=arguments["name"])


def test_the_config_checks_the_same_when_built_directly() -> None:
    with pytest.raises(PodTemplateError, match="not an absolute path"):
        ShellConfig(script="echo", shell="sh")
    with pytest.raises(DefinitionError, match="unknown argument 'shel'"):
        ShellConfig(script="echo", shel="/bin/sh")  # type: ignore[call-arg]


def test_shell_braces_that_are_not_flytekit_placeholders_are_kept() -> None:
    task = ShellTask(name="braces", script='f() { echo "${x}"; }\nf {a,b}\n', inputs=["x"])
    assert isinstance(task.task_config, ShellConfig)
    assert task.task_config.script.startswith("f() {")


def test_flytekit_typed_inputs_declare_inputs_without_defaults() -> None:
    # flytekit's inputs=kwtypes(x=str) maps names to types: the value comes at run time,
    # which is podtemplate's inputs=["x"] (taken with a one-time MigrationWarning).
    from podtemplate.plugin import MigrationWarning

    with pytest.warns(MigrationWarning, match=r"ShellTask\(inputs=\['x', \.\.\.\]\)"):
        task = ShellTask(name="typed", script='echo "$x $n"', inputs={"x": str, "n": int})
    assert isinstance(task.task_config, ShellConfig)
    assert task.task_config.inputs == {"x": None, "n": None}


_INPUTS = {"x": "/tmp/a", "y": "b"}


@pytest.mark.parametrize(("kwargs", "message"), [
    # flytekit interpolates {inputs.x} into the script text; here inputs are environment
    # variables, so the placeholder would reach the shell literally.
    ({"script": 'echo "{inputs.x}"', "inputs": _INPUTS},
     r"script holds \{inputs\.x\}.*fix: write \$x"),
    ({"script": 'tar -zcvf {outputs.j} "$x"', "inputs": _INPUTS},
     r"script holds \{outputs\.j\}.*no outputs"),
    ({"script": "echo { inputs.y }", "inputs": _INPUTS},
     r"script holds \{ inputs\.y \}.*fix: write \$y"),
    # flytekit's own arguments, each with what to write instead
    ({"debug": True}, r"ShellTask\(debug=\.\.\.\) is flytekit's.*set -x"),
    ({"output_locs": True}, r"ShellTask\(output_locs=\.\.\.\) is flytekit's.*no outputs"),
    ({"script_file": True}, r"ShellTask\(script_file=\.\.\.\) is flytekit's.*read_text"),
    ({"task_config": True}, r"ShellTask\(task_config=\.\.\.\) is flytekit's"),
    ({"colour": True}, r"ShellTask has no argument 'colour'"),
])
def test_flytekit_spellings_are_refused_with_what_to_do(kwargs: dict[str, Any],
                                                        message: str) -> None:
    with pytest.raises(DefinitionError, match=message):
        ShellTask(**{"name": "task_1", "script": "echo hi", **kwargs})


def test_flytekit_container_image_and_environment_are_taken() -> None:
    from podtemplate.plugin import MigrationWarning

    with pytest.warns(MigrationWarning) as warned:
        task = ShellTask(name="img", script="echo hi", container_image="alpine:3.20",
                         environment={"A": "1"})
    messages = " ".join(str(warning.message) for warning in warned)
    assert "as ShellTask(image=...)" in messages and "as ShellTask(env=...)" in messages
    assert (task.image, task.env) == ("alpine:3.20", {"A": "1"})

"""Every refusal of one call is reported together (issue 30): a config's pydantic problems,
one line each, and the flytekit arguments a call does not take."""

from __future__ import annotations

import pytest
from podtemplate import DefinitionError, DefinitionErrors, Role, task
from podtemplate.plugin import refuse_arguments


def test_every_problem_of_a_config_call_is_one_line() -> None:
    with pytest.raises(DefinitionErrors) as raised:
        Role(replicaz=2, imag="x", replicas="many")
    lines = raised.value.lines()
    assert sorted(line.split(":", 1)[0] for line in lines) == ["imag", "replicas", "replicaz"]
    assert any("did you mean 'image'?" in line for line in lines)
    assert all("\n" not in line and "(fix: " in line for line in lines)


def test_a_single_problem_stays_a_single_error() -> None:
    with pytest.raises(DefinitionError) as raised:
        Role(replicas="many")
    assert not isinstance(raised.value, DefinitionErrors)


def test_every_engine_setting_of_one_task_is_refused_together() -> None:
    with pytest.raises(DefinitionErrors) as raised:
        task(image="python:3.11", retries=2, cache=True, timeout=5, secret_requests=[])(
            lambda: None)
    assert [error.field for error in raised.value.errors] == [
        "retries", "cache", "timeout", "secret_requests"]


def test_unknown_arguments_are_named_beside_flytekit_ones() -> None:
    with pytest.raises(DefinitionErrors) as raised:
        refuse_arguments({"outputs": 1, "imagee": "x"}, {"outputs": "drop outputs="},
                         call="ContainerTask", help_name="ContainerTask",
                         accepted=["image", "name"])
    first, second = raised.value.lines()
    assert first.startswith("outputs: ContainerTask(outputs=...)")
    assert second == ("imagee: ContainerTask has no argument 'imagee'; did you mean "
                      "'image'? (fix: write image=)")


def test_the_accepted_arguments_may_be_the_function_that_takes_them() -> None:
    """A task class passes itself: its keywords are read only when one is refused (the
    plugins each spelled the signature walk out before)."""
    def launch(name: str, command: list[str], **flytekit_only: object) -> None: ...

    refuse_arguments({}, {}, call="launch", help_name="launch", accepted=launch)
    with pytest.raises(DefinitionError, match="did you mean 'command'") as raised:
        refuse_arguments({"comand": ["ls"]}, {}, call="launch", help_name="launch",
                         accepted=launch)
    assert raised.value.fix == "write command="
    with pytest.raises(DefinitionError, match="see help"):  # **flytekit_only is no keyword
        refuse_arguments({"flytekit_onl": 1}, {}, call="launch", help_name="launch",
                         accepted=launch)


def test_errors_located_after_the_fact_locate_every_line() -> None:
    group = DefinitionErrors([DefinitionError("a", field="x"), DefinitionError("b")])
    group.located(task="train")
    assert group.lines() == ["task 'train', x: a", "task 'train': b"]
    assert str(group) == "task 'train', x: a; task 'train': b"

"""A task type's name rule is checked when a task is defined, through its config."""

from __future__ import annotations

from typing import ClassVar

import pytest
from podtemplate import ConfigModel, DefinitionError, InvalidNameError, task
from podtemplate.plugin import check_dns1035_label


class Strict(ConfigModel):
    task_type: ClassVar[str] = "strict"

    def check_task_name(self, name: str) -> None:
        check_dns1035_label(name, what="strict task name", max_length=10, why="a test rule")


def test_the_config_checks_the_name_when_the_task_is_defined() -> None:
    with pytest.raises(DefinitionError, match=r"not a DNS-1035 label \(a test rule\)") as error:
        task(name="1st", task_config=Strict())(lambda: None)
    assert (error.value.task, error.value.field) == ("1st", "name")
    with pytest.raises(DefinitionError, match="has 11 characters, more than 10"):
        task(name="a" * 11, task_config=Strict())(lambda: None)
    assert task(name="a" * 10, task_config=Strict())(lambda: None).name == "a" * 10


def test_a_config_without_a_rule_accepts_any_dns1123_label() -> None:
    class Lenient(ConfigModel):
        task_type: ClassVar[str] = "lenient"

    assert task(name="1st", task_config=Lenient())(lambda: None).name == "1st"


@pytest.mark.parametrize("name", ["a", "a-1", "abc" * 21])
def test_dns1035_labels(name: str) -> None:
    assert check_dns1035_label(name, what="x") == name


@pytest.mark.parametrize("name", ["1a", "-a", "a-", "A", "a_b", "a" * 64, ""])
def test_not_dns1035_labels(name: str) -> None:
    with pytest.raises(InvalidNameError):
        check_dns1035_label(name, what="x")

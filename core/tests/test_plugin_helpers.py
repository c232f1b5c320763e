"""Small helpers of the plugin API that several task types share: a config value as the
text an operator's string map holds, and flytekit keywords a config refuses."""

from __future__ import annotations

from typing import Any

import pytest
from podtemplate import DefinitionErrors
from podtemplate.plugin import DefinitionError, refuse_config_keys, scalar_text


@pytest.mark.parametrize(("value", "text"), [
    (True, "true"), (False, "false"), ("on", "on"), ("", ""), (0, "0"), (8080, "8080"),
    (1.5, "1.5"), (None, None), ([1], None), ({"a": 1}, None), (b"x", None),
])
def test_scalar_text(value: Any, text: str | None) -> None:
    assert scalar_text(value) == text


REPLACEMENTS = {"start_method": "drop start_method=", "run_policy": "give it to the job"}


def test_a_refused_key_is_named_with_its_field_and_fix() -> None:
    with pytest.raises(DefinitionError) as caught:
        refuse_config_keys({"nproc": 2, "start_method": "spawn"},
                           REPLACEMENTS, call="Elastic", where="task_config.elastic")
    error = caught.value
    assert error.field == "task_config.elastic.start_method"
    assert "Elastic(start_method=...) is flytekit's, with no equivalent here" in str(error)
    assert error.fix == "drop start_method="


def test_every_refused_key_of_one_call_is_reported_together_one_line_each() -> None:
    with pytest.raises(DefinitionErrors) as caught:
        refuse_config_keys({"nproc": 2, "run_policy": 1, "start_method": "spawn"},
                           REPLACEMENTS, call="Elastic", where="task_config.elastic")
    lines = caught.value.lines()
    assert [error.field for error in caught.value.errors] == [
        "task_config.elastic.start_method", "task_config.elastic.run_policy"]
    assert len(lines) == 2 and all("\n" not in line for line in lines)
    assert "(fix: give it to the job)" in lines[1]


def test_keys_it_does_not_name_pass_and_the_reason_is_the_callers() -> None:
    refuse_config_keys({"nproc": 2}, REPLACEMENTS, call="Elastic", where="task_config.elastic")
    with pytest.raises(DefinitionError, match=r"Spark\(run_policy=\.\.\.\) differs"):
        refuse_config_keys({"run_policy": 1}, REPLACEMENTS, call="Spark", where="task_config",
                           why="differs")


def test_a_template_with_its_primary_and_the_operators_container_is_refused() -> None:
    from podtemplate.plugin import PodTemplate, check_one_primary

    both = PodTemplate({"containers": [{"name": "main"}, {"name": "pytorch"}]},
                       primary_container_name="main")
    with pytest.raises(DefinitionError) as caught:
        check_one_primary(both, "pytorch", "task_config.worker.pod_template")
    assert caught.value.field == "task_config.worker.pod_template.containers[pytorch]"
    assert "'main' and its container 'pytorch' would both become" in str(caught.value)
    for fine in (PodTemplate({"containers": [{"name": "main"}]}, primary_container_name="main"),
                 PodTemplate({"containers": [{"name": "pytorch"}, {"name": "side"}]},
                             primary_container_name="pytorch"),
                 PodTemplate({"containers": [{"name": "pytorch"}]}, primary_container_name="x")):
        check_one_primary(fine, "pytorch", "pod_template")

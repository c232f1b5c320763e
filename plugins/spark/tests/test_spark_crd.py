"""The CRD check the other Spark tests rely on fails where the API server would."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from podtemplate_spark import SparkApplicationTask

Render = Callable[..., tuple[dict[str, Any], Any]]


@pytest.fixture
def valid(render_spark: Render) -> dict[str, Any]:
    app = SparkApplicationTask(name="pi", image="apache/spark:3.5.5",
                               main_application_file="local:///app.jar")
    return render_spark(app)[0]


@pytest.mark.parametrize(("path", "value"), [
    (("spec", "driver", "cores"), "2"),
    (("spec", "executor", "instances"), 0),
    (("spec", "type"), "Go"),
    (("spec", "driver", "coreCount"), 1),
    (("spec", "executor", "gpu"), {"name": "nvidia.com/gpu"}),
    (("spec", "sparkConf"), {"spark.x": 1}),
])
def test_crd_check_catches_what_the_api_server_rejects(
        valid: dict[str, Any], assert_valid_application: Callable[[dict[str, Any]], None],
        path: tuple[str, ...], value: Any) -> None:
    broken = copy.deepcopy(valid)
    node = broken
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    with pytest.raises(AssertionError):
        assert_valid_application(broken)


def test_crd_check_requires_the_main_file(
        valid: dict[str, Any], assert_valid_application: Callable[[dict[str, Any]], None]
) -> None:
    broken = copy.deepcopy(valid)
    del broken["spec"]["mainApplicationFile"]
    with pytest.raises(AssertionError, match=r"spec\.mainApplicationFile: required field is missing"):
        assert_valid_application(broken)

"""The primary container's resources completed as Flyte's backend completes them
(``resolve/resources.py``), rule by rule; the oracle tests (tests/flyte_oracle) judge the
same rules against Flyte's own code."""

from __future__ import annotations

from podtemplate.resolve.resources import complete_resources

DEFAULTS = {"cpu": "500m", "memory": "1Gi"}


def test_limits_alone_are_the_requests() -> None:
    assert complete_resources({}, {"cpu": "4"}, DEFAULTS, frozenset()) == (
        {"cpu": "4", "memory": "1Gi"}, {"cpu": "4", "memory": "1Gi"})


def test_an_unset_limit_is_the_request() -> None:
    assert complete_resources({"cpu": "2"}, {}, DEFAULTS, frozenset()) == (
        {"cpu": "2", "memory": "1Gi"}, {"cpu": "2", "memory": "1Gi"})


def test_a_resource_the_operator_sizes_keeps_its_limit_unset_and_the_default_request() -> None:
    assert complete_resources({}, {}, DEFAULTS, frozenset({"cpu", "memory"})) == (
        DEFAULTS, {})


def test_an_operator_sized_default_request_never_lands_above_the_limit() -> None:
    # Spark's driver: a limit of 1 cpu under a default request of 2 requests the limit
    requests, limits = complete_resources({}, {"cpu": "1"}, {"cpu": "2"}, frozenset({"cpu"}))
    assert requests == {"cpu": "1"} and limits == {"cpu": "1"}
    # and a default below the limit is the request, the limit kept
    requests, limits = complete_resources({}, {"cpu": "4"}, {"cpu": "2"}, frozenset({"cpu"}))
    assert requests == {"cpu": "2"} and limits == {"cpu": "4"}


def test_the_inputs_are_not_changed() -> None:
    requests, limits = {"cpu": "1"}, {"memory": "2Gi"}
    complete_resources(requests, limits, DEFAULTS, frozenset())
    assert requests == {"cpu": "1"} and limits == {"memory": "2Gi"}

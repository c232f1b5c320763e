"""The fast path of the Spark build (``podtemplate_spark/_fast.py``) gives what the plain
``conf.yield_to_user`` gives - the section, its key order, which maps are new objects,
and every warning - on generated natives and ``spark_conf``, including properties of the
role's native fields and labels that agree, disagree, or belong to the other role."""

from __future__ import annotations

from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st
from podtemplate.testing import examples
from podtemplate_spark import _fast, conf

ROLES = ("driver", "executor")
NATIVES = {"cores": st.sampled_from([1, 2]), "coreRequest": st.sampled_from(["1", "500m"]),
           "memory": st.sampled_from(["1g", "8g"]), "image": st.just("spark:3.5"),
           "instances": st.sampled_from([1, 3]),
           "labels": st.dictionaries(st.sampled_from(["team", "app"]), st.just("a"),
                                     max_size=2),
           "annotations": st.dictionaries(st.sampled_from(["owner"]), st.just("a@b"),
                                          max_size=1)}
CONF_KEYS = st.sampled_from([
    "spark.sql.shuffle.partitions", "spark.driver.cores", "spark.executor.cores",
    "spark.driver.memory", "spark.executor.instances", "spark.kubernetes.container.image",
    "spark.kubernetes.driver.label.team", "spark.kubernetes.executor.label.app",
    "spark.kubernetes.driver.annotation.owner", "spark.kubernetes.executor.label.other",
])
CONF_VALUES = st.sampled_from(["1", "2", "8g", "a", "spark:3.5", "a@b"])


@st.composite
def natives(draw: Any) -> dict[str, Any]:
    chosen = draw(st.lists(st.sampled_from(sorted(NATIVES)), unique=True))
    return {name: draw(NATIVES[name]) for name in chosen}


@settings(max_examples=examples(300), deadline=None)
@given(role=st.sampled_from(ROLES), made=natives(),
       spark_conf=st.dictionaries(CONF_KEYS, CONF_VALUES, max_size=3))
def test_the_fast_path_gives_the_plain_section_and_warnings(
        role: str, made: dict[str, Any], spark_conf: dict[str, str]) -> None:
    def run(function: Any) -> tuple[Any, list[Any], list[bool]]:
        warnings: list[Any] = []

        def warn(message: str, *, role: str | None = None, field: str | None = None) -> None:
            warnings.append((message, role, field))

        section = function(role, made, spark_conf, warn)
        fresh = [section[key] is not made[key] for key in ("labels", "annotations")
                 if key in section]
        return list(section.items()), warnings, fresh

    plain = run(conf.yield_to_user)
    assert run(_fast.yield_to_user) == plain
    event("warned" if plain[1] else "quiet")

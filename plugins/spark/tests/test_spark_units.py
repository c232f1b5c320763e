"""Kubernetes quantities in Spark's terms."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from podtemplate import DefinitionError, InvalidQuantityError
from podtemplate_spark.units import spark_cores, spark_memory, spark_memory_bytes, whole_gpus


@pytest.mark.parametrize(("quantity", "expected"), [
    ("4Gi", "4g"), ("512Mi", "512m"), ("1536Mi", "1536m"), ("0.5Gi", "512m"),
    ("1Ti", "1t"), ("2048Mi", "2g"), ("1048576Ki", "1g"), ("1073741824", "1g"),
    ("1.5Gi", "1536m"), ("3072Mi", "3g"),
])
def test_memory_converts_to_the_largest_exact_jvm_unit(quantity: str, expected: str) -> None:
    assert spark_memory(quantity, field="f") == expected


@pytest.mark.parametrize("quantity", ["1G", "100k", "1500m", "1Ki", "1.1Gi", "1e9"])
def test_memory_that_is_not_whole_mib_is_an_error_with_a_suggestion(quantity: str) -> None:
    with pytest.raises(DefinitionError) as error:
        spark_memory(quantity, field="spec.x.memory")
    assert error.value.field == "spec.x.memory"
    assert "whole MiB" in error.value.message
    assert "Mi" in (error.value.fix or "")


@pytest.mark.parametrize("quantity", ["0", "-1Gi"])
def test_memory_must_be_positive(quantity: str) -> None:
    with pytest.raises(DefinitionError, match="positive"):
        spark_memory(quantity, field="f")


def test_memory_that_is_no_quantity_names_the_field() -> None:
    with pytest.raises(InvalidQuantityError) as error:
        spark_memory("4 gigs", field="spec.driver.memory")
    assert error.value.field == "spec.driver.memory"


@given(st.integers(min_value=1, max_value=2**24))
def test_memory_round_trips_through_spark_for_any_whole_mib(mib: int) -> None:
    assert spark_memory_bytes(spark_memory(f"{mib}Mi", field="f")) == mib * 2**20


@pytest.mark.parametrize(("text", "expected"), [
    ("512", 512 * 2**20), ("4g", 4 * 2**30), ("4G", 4 * 2**30), ("512mb", 512 * 2**20),
    ("1t", 2**40), ("abc", None), ("4.5g", None),
])
def test_spark_memory_bytes_reads_like_spark(text: str, expected: int | None) -> None:
    assert spark_memory_bytes(text) == expected


@pytest.mark.parametrize(("cpu", "cores"), [("500m", 1), ("1", 1), ("1.5", 2), ("4", 4),
                                            ("2500m", 3), ("100m", 1)])
def test_cores_round_cpu_up_to_a_whole_task_slot(cpu: str, cores: int) -> None:
    assert spark_cores(cpu, field="f") == cores


def test_cores_must_be_positive() -> None:
    with pytest.raises(DefinitionError, match="positive"):
        spark_cores("0", field="f")


def test_gpus_are_whole() -> None:
    assert whole_gpus("2", field="f") == 2
    with pytest.raises(DefinitionError, match="whole"):
        whole_gpus("500m", field="f")

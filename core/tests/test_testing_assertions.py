"""The assertions podtemplate.testing gives plugin authors fail when they should."""

from __future__ import annotations

import pytest
from podtemplate import DefinitionError
from podtemplate.testing import assert_definition_error


def fail(**where: str) -> None:
    raise DefinitionError("image is empty", fix="give an image", **where)


def test_assert_definition_error_accepts_a_located_error_with_a_fix() -> None:
    assert_definition_error(lambda: fail(task="t", field="image"), message="image is empty",
                            field="image", task="t")


@pytest.mark.parametrize("define", [
    lambda: None,                                   # no error at all
    lambda: fail(task="t", field="name"),           # another field
    lambda: fail(task="other", field="image"),      # another task
    lambda: fail(field="image"),                    # not located at a task
])
def test_assert_definition_error_rejects_what_users_must_not_see(define: object) -> None:
    with pytest.raises(AssertionError):
        assert_definition_error(define, message="image is empty", field="image",  # type: ignore[arg-type]
                                task="t")

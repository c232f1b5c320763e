"""flytesnacks "chaining entities", ported: another module of this folder with a ``t1``
(other_steps.py has one too, renamed with ``name=`` so the two never collide); this one's
objects are ``t1``, the same whatever else is rendered."""

from podtemplate import task


@task(image="python:3.11-slim")
def t0() -> None:
    print("t0")


@task(image="python:3.11-slim")
def t1() -> None:
    print("t1")

"""flytesnacks "chaining entities", ported: another module of this folder with a ``t1``
(other_steps.py has one too); each gets its module-qualified object name, the same every
time, and keeps ``t1`` in its podtemplate.io/task-name annotation."""

from podtemplate import task


@task(image="python:3.11-slim")
def t0() -> None:
    print("t0")


@task(image="python:3.11-slim")
def t1() -> None:
    print("t1")

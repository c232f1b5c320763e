"""A second module defining ``t1`` (as flytesnacks modules of one folder do). An object
name comes from the task's name alone, so two ``t1`` rendered together would collide (an
error naming both): this one says ``name=``, and its objects are ``other-steps-t1``
whatever else is rendered."""

from podtemplate import Resources, task


@task(name="other_steps.t1", image="python:3.11-slim", requests=Resources(cpu=1, mem="500Mi"))
def t1(n: int = 1) -> int:
    return n + 2

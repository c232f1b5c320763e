"""A second module defining ``t1`` (as flytesnacks modules of one folder do): rendered
with chain_steps.py, each ``t1`` gets its module-qualified object name."""

from podtemplate import Resources, task


@task(image="python:3.11-slim", requests=Resources(cpu=1, mem="500Mi"))
def t1(n: int = 1) -> int:
    return n + 2

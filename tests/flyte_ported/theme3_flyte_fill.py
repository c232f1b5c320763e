"""Theme 3: resources as Flyte's backend completes them: limits alone are the requests,
an unset limit is the request, and the platform's limits only cap."""

from podtemplate import Resources, task


@task(limits=Resources(cpu="4", mem="8Gi"))
def limits_only() -> None: ...


@task(requests=Resources(cpu="1", mem="2Gi"))
def requests_only() -> None: ...


@task(requests=Resources(cpu="8", mem="2Gi"))
def above_the_cap() -> None: ...

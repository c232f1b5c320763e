"""What the RayJob runs: the entrypoint (the task function through the core executor) and
the submitter's ``ray job submit`` command."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from typing import Any

import yaml
from podtemplate import RenderContext, Task, function_entrypoint

__all__ = ["ray_entrypoint", "runtime_env_yaml", "submitter_command"]

# KubeRay sets both on the submitter's first container: the head's dashboard host:port and
# the submission id it tracks the job by.
_ADDRESS = '"http://$RAY_DASHBOARD_ADDRESS"'
_SUBMISSION_ID = '"$RAY_JOB_SUBMISSION_ID"'


def ray_entrypoint(task: Task, context: RenderContext) -> str:
    """The shell command line the Ray driver runs on the head: the core executor calling
    the task function with the render's inputs, every word shell-quoted."""
    fragment = function_entrypoint(task, context)
    return shlex.join([*fragment["command"], *fragment["args"]])


def runtime_env_yaml(runtime_env: Mapping[str, Any]) -> str:
    """``runtimeEnvYAML``: the runtime environment as a YAML document, keys sorted."""
    text: str = yaml.safe_dump(dict(runtime_env), sort_keys=True, default_flow_style=False)
    return text


def submitter_command(entrypoint: str, runtime_env: Mapping[str, Any] | None
                      ) -> tuple[list[str], list[str]]:
    """(command, args) of the submitter container.

    The submitter runs as a Kubernetes Job that may be retried: it submits the job only if
    the submission id is not known yet (a retry after a successful submit must not fail on
    a duplicate id), then follows the job's logs until it ends.
    """
    submit = ["ray", "job", "submit", "--address", _ADDRESS, "--no-wait",
              "--submission-id", _SUBMISSION_ID]
    if runtime_env:
        submit += ["--runtime-env-json", shlex.quote(json.dumps(runtime_env, sort_keys=True))]
    status = f"ray job status --address {_ADDRESS} {_SUBMISSION_ID} >/dev/null 2>&1"
    logs = f"ray job logs --address {_ADDRESS} --follow {_SUBMISSION_ID}"
    script = f"if ! {status}; then {' '.join(submit)} -- {entrypoint}; fi; {logs}"
    return ["bash", "-ce"], [script]

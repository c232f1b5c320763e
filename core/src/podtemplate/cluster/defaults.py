"""What the API server adds to a stored ``v1 PodTemplate``, taken out again before the
template becomes layer 1.

The server defaults a PodTemplate's pod spec as it defaults a pod's
(``pkg/apis/core/v1/defaults.go``; the values below were read back from kube-apiserver
v1.35.4): ``restartPolicy: Always``, ``terminationGracePeriodSeconds: 30``, ``dnsPolicy``,
``schedulerName``, an empty ``securityContext``, ``serviceAccount`` (the deprecated copy
of ``serviceAccountName``), and in every container
``terminationMessagePath``/``Policy``, ``imagePullPolicy``, empty ``resources``, port
protocols, probe timings, ``fieldRef.apiVersion`` and volume ``defaultMode``. Kept, these
would read as the admin's choices and override what the task types choose (a Dask job
runner refuses ``restartPolicy: Always``), although the server sets each of them again
when the pod is created. So a value equal to the server's default is left to the server.

Flyte's conventions for platform templates (the placeholder images of ``primary`` and
``default``, the ``noop`` container) are applied to every platform template, from the
cluster or a folder: :mod:`podtemplate.model.conventions`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from ..model.conventions import PLACEHOLDER_CONTAINERS, with_flyte_conventions

__all__ = ["PLACEHOLDER_CONTAINERS", "without_server_defaults"]

_POD: Mapping[str, Any] = {
    "restartPolicy": "Always", "terminationGracePeriodSeconds": 30,
    "dnsPolicy": "ClusterFirst", "schedulerName": "default-scheduler", "securityContext": {},
}
_CONTAINER: Mapping[str, Any] = {
    "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
    "resources": {},
}
_PROBE: Mapping[str, Any] = {"timeoutSeconds": 1, "periodSeconds": 10,
                             "successThreshold": 1, "failureThreshold": 3}
_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
_MODE_SOURCES = ("configMap", "secret", "projected", "downwardAPI")
_DEFAULT_MODE = 420


def without_server_defaults(spec: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a stored template's pod spec without what the server defaulted (the
    module docstring), Flyte's conventions applied."""
    out = copy.deepcopy(dict(spec))
    _drop_equal(out, _POD)
    # v1's deprecated alias, which the server fills from serviceAccountName
    if "serviceAccount" in out and out["serviceAccount"] == out.get("serviceAccountName"):
        del out["serviceAccount"]
    for key in ("containers", "initContainers", "ephemeralContainers"):
        for container in out.get(key) or ():
            _container(container)
    for volume in out.get("volumes") or ():
        _volume(volume)
    conventional: dict[str, Any] = with_flyte_conventions(out)
    return conventional


def _drop_equal(data: dict[str, Any], defaults: Mapping[str, Any]) -> None:
    for key, value in defaults.items():
        if key in data and data[key] == value:
            del data[key]


def _container(container: dict[str, Any]) -> None:
    _drop_equal(container, _CONTAINER)
    image = container.get("image")
    if container.get("imagePullPolicy") == _pull_policy(image):
        del container["imagePullPolicy"]
    for port in container.get("ports") or ():
        _drop_equal(port, {"protocol": "TCP"})
    for probe in (container.get(key) for key in _PROBES):
        if isinstance(probe, dict):
            _drop_equal(probe, _PROBE)
            if isinstance(probe.get("httpGet"), dict):
                _drop_equal(probe["httpGet"], {"scheme": "HTTP"})
    for env in container.get("env") or ():
        _field_ref((env.get("valueFrom") or {}).get("fieldRef"))


def _volume(volume: dict[str, Any]) -> None:
    for source in _MODE_SOURCES:
        if isinstance(volume.get(source), dict):
            _drop_equal(volume[source], {"defaultMode": _DEFAULT_MODE})
    if isinstance(volume.get("hostPath"), dict):
        _drop_equal(volume["hostPath"], {"type": ""})
    for item in (volume.get("downwardAPI") or {}).get("items") or ():
        _field_ref(item.get("fieldRef"))
    for projected in (volume.get("projected") or {}).get("sources") or ():
        for item in (projected.get("downwardAPI") or {}).get("items") or ():
            _field_ref(item.get("fieldRef"))


def _field_ref(ref: Any) -> None:
    if isinstance(ref, dict):
        _drop_equal(ref, {"apiVersion": "v1"})


def _pull_policy(image: Any) -> str | None:
    """The policy the server gives ``image``: Always for ``:latest`` or no tag (and no
    digest), IfNotPresent otherwise."""
    if not isinstance(image, str) or not image:
        return None
    if "@" in image:
        return "IfNotPresent"
    last = image.rsplit("/", 1)[-1]
    tag = last.partition(":")[2]
    return "Always" if tag in ("", "latest") else "IfNotPresent"


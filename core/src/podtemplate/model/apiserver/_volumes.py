"""Volumes: names, exactly one source each, and what each common source requires."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._facts import (
    CSI_DRIVER,
    FILE_MODE_MAX,
    HOST_PATH_TYPES,
    PROJECTIONS,
    PULL_POLICIES,
    TOKEN_EXPIRATION_MAX,
    TOKEN_EXPIRATION_MIN,
    VOLUME_FIELD_PATHS,
    VOLUME_SOURCES,
    Rule,
    descending_path_ok,
    dns_label_ok,
    dns_subdomain_ok,
    enum_rule,
    int_in,
)
from ._report import Problems, item_path
from ._resources import quantity_value

__all__ = ["check_volumes", "plain_source_ok", "NAMED_FIELDS"]

VOLUME_NAME = Rule("a volume name is a DNS-1123 label, unique in the pod (k8s ValidateVolumes)",
                   "use at most 63 lowercase letters, digits and '-', once per pod")
ONE_SOURCE = Rule("a volume has exactly one source (emptyDir, configMap, secret, "
                  "persistentVolumeClaim, hostPath, projected, csi...) (k8s validateVolumeSource)",
                  "keep one source per volume")
REQUIRED = Rule("a volume source names what it mounts (secretName, configMap name, "
                "claimName, hostPath path, csi driver, nfs server and path, image reference...) "
                "(k8s validateVolumeSource)", "name the object or path to mount")
HOST_PATH_TYPE = enum_rule("hostPath.type", HOST_PATH_TYPES, "validateHostPathType")
FILE_MODE = Rule("a file mode is between 0 and 0777 (octal) (k8s validateKeyToPath)",
                 "give a mode such as 0644 (420 in decimal)")
ITEM_PATH = Rule("an item has a key and a relative path without '..' (k8s validateKeyToPath)",
                 "give a key and a path such as config/app.yaml")
PROJECTION = Rule("a projected source has exactly one of secret, configMap, downwardAPI, "
                  "serviceAccountToken, clusterTrustBundle, podCertificate "
                  "(k8s validateProjectionSources)", "split it into one source per item")
TOKEN = Rule(f"a serviceAccountToken has a path and expirationSeconds between "
             f"{TOKEN_EXPIRATION_MIN} and {TOKEN_EXPIRATION_MAX} (k8s validateProjectionSources)",
             "give a path and at least 600 seconds")
DOWNWARD = Rule("a downwardAPI item has one of fieldRef (metadata.name, metadata.namespace, "
                "metadata.uid, metadata.labels, metadata.annotations) and resourceFieldRef "
                "(k8s validateDownwardAPIVolumeFile)", "keep one supported reference")
CSI_DRIVER_NAME = Rule("a csi driver name is at most 63 letters, digits, '-', '_' and '.' "
                       "(k8s validateCSIDriverName)", "use the driver's registered name")
ABSOLUTE = Rule("an nfs path is absolute (k8s validateNFSVolumeSource)", "start it with '/'")
CLAIM_TEMPLATE = Rule(
    "an ephemeral volume has a volumeClaimTemplate whose metadata holds only labels and "
    "annotations, with accessModes (ReadWriteOnce, ReadOnlyMany, ReadWriteMany or "
    "ReadWriteOncePod alone) and a storage request > 0 (k8s validateEphemeralVolumeSource)",
    "give accessModes: [ReadWriteOnce] and resources.requests.storage, e.g. 1Gi")
ACCESS_MODES = frozenset({"ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"})
IMAGE_PULL = enum_rule("image.pullPolicy", PULL_POLICIES, "validateImageVolumeSource")
# Sources that are fine when they name their object and set nothing else (the usual case).
_PLAIN = frozenset({"secret", "configMap", "persistentVolumeClaim", "emptyDir"})
NAMED_FIELDS = {"secret": "secretName", "configMap": "name", "persistentVolumeClaim": "claimName",
          "hostPath": "path", "csi": "driver", "image": "reference", "gitRepo": "repository",
          "ephemeral": "volumeClaimTemplate"}


def check_volumes(problems: Problems, spec: Mapping[str, Any], base: str
                  ) -> dict[str, Mapping[str, Any]]:
    """Check ``spec.volumes``; return the valid volumes by name (for mounts and devices).

    As the API server does (k8s ValidateVolumes), a volume with a problem is left out:
    a later volume of its name is no duplicate, and a mount of it names no volume."""
    by_name: dict[str, Mapping[str, Any]] = {}
    for index, volume in enumerate(spec.get("volumes") or ()):
        if not isinstance(volume, dict):
            continue
        before = len(problems)
        _check_source(problems, volume, item_path(f"{base}.volumes", index, volume))
        name = volume.get("name")
        if not dns_label_ok(name) or name in by_name:
            problems.add(f"{item_path(f'{base}.volumes', index, volume)}.name", VOLUME_NAME,
                         f"{name!r} is not valid or repeated")
        if len(problems) == before and type(name) is str:
            by_name[name] = volume
    return by_name


def _check_source(problems: Problems, volume: Mapping[str, Any], path: str) -> None:
    sources = [key for key in volume if key in VOLUME_SOURCES and volume[key] is not None]
    if len(sources) != 1:
        # No source at all is an emptyDir: the API server defaults it before it
        # validates (k8s SetDefaults_Volume).
        if len(sources) > 1:
            problems.add(path, ONE_SOURCE, f"{len(sources)} sources ({', '.join(sources)})")
    elif sources[0] == "ephemeral":
        if problems.final:
            _ephemeral(problems, f"{path}.ephemeral", volume["ephemeral"])
    elif not problems.local:
        # Each field of the source came from some layer that passed the local rules;
        # only the presence of what it must name relates the layers.
        required = NAMED_FIELDS.get(sources[0])
        source = volume[sources[0]]
        if required and problems.final and isinstance(source, dict) \
                and not source.get(required):
            problems.add(f"{path}.{sources[0]}.{required}", REQUIRED, f"{required} is missing")
    elif sources[0] not in _PLAIN or not plain_source_ok(
            volume[sources[0]], NAMED_FIELDS.get(sources[0]), problems.final):
        _source(problems, f"{path}.{sources[0]}", sources[0], volume[sources[0]])


def plain_source_ok(source: Any, required: str | None, final: bool) -> bool:
    """A plain source that is surely valid: its name given (if the source needs one) and no
    other field than ``optional``/``readOnly``; anything else is checked in full."""
    if type(source) is not dict:
        return False
    for key in source:
        if key != required and key not in ("optional", "readOnly"):
            return False
    return not final or required is None or bool(source.get(required))


def _source(problems: Problems, path: str, kind: str, source: Any) -> None:
    if not isinstance(source, dict):
        return
    required = NAMED_FIELDS.get(kind)
    if required and problems.final and not source.get(required):
        problems.add(f"{path}.{required}", REQUIRED, f"{required} is missing")
    if kind in ("secret", "configMap", "downwardAPI", "projected"):
        _mode(problems, f"{path}.defaultMode", source.get("defaultMode"))
    if kind in ("secret", "configMap"):
        _items(problems, path, source.get("items"))
    elif kind == "hostPath":
        kind_of = source.get("type")
        if kind_of is not None and kind_of not in HOST_PATH_TYPES:
            problems.add(f"{path}.type", HOST_PATH_TYPE, f"{kind_of!r} is not supported")
    elif kind == "emptyDir":
        # medium is free-form to the API server (the kubelet reads it)
        if source.get("sizeLimit") is not None:
            quantity_value(problems, f"{path}.sizeLimit", source["sizeLimit"])
    elif kind == "downwardAPI":
        _downward(problems, path, source.get("items"))
    elif kind == "projected":
        _projected(problems, path, source.get("sources"))
    elif kind == "csi":
        driver = source.get("driver")
        if driver and (type(driver) is not str or CSI_DRIVER.fullmatch(driver) is None):
            problems.add(f"{path}.driver", CSI_DRIVER_NAME, f"{driver!r} is not valid")
    elif kind == "nfs":
        for key in ("server", "path"):
            if problems.final and not source.get(key):
                problems.add(f"{path}.{key}", REQUIRED, f"{key} is missing")
        nfs_path = source.get("path")
        if nfs_path and not str(nfs_path).startswith("/"):
            problems.add(f"{path}.path", ABSOLUTE, f"{nfs_path!r} is relative")
    elif kind == "image":
        policy = source.get("pullPolicy")
        if policy is not None and policy not in PULL_POLICIES:
            problems.add(f"{path}.pullPolicy", IMAGE_PULL, f"{policy!r} is not supported")


def _ephemeral(problems: Problems, path: str, source: Any) -> None:
    """An ephemeral volume's claim template (k8s validateEphemeralVolumeSource): labels
    and annotations only in its metadata, access modes and a positive storage request."""
    if not isinstance(source, dict):
        return
    template = source.get("volumeClaimTemplate")
    if not isinstance(template, dict):
        problems.add(f"{path}.volumeClaimTemplate", CLAIM_TEMPLATE, "no volumeClaimTemplate")
        return
    path = f"{path}.volumeClaimTemplate"
    metadata = template.get("metadata")
    if isinstance(metadata, dict):
        for key, value in metadata.items():
            if key not in ("labels", "annotations") and value not in (None, "", [], {}):
                problems.add(f"{path}.metadata.{key}", CLAIM_TEMPLATE, f"{key} is set")
    spec = template.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    modes = spec.get("accessModes") or []
    if not modes or any(mode not in ACCESS_MODES for mode in modes) or (
            "ReadWriteOncePod" in modes and len(set(modes)) > 1):
        problems.add(f"{path}.spec.accessModes", CLAIM_TEMPLATE, f"{modes!r}")
    requests = (spec.get("resources") or {}).get("requests") or {}
    storage = requests.get("storage") if isinstance(requests, dict) else None
    if storage is None or not _positive(storage):
        problems.add(f"{path}.spec.resources[storage]", CLAIM_TEMPLATE,
                     f"storage request {storage!r}")
    mode = spec.get("volumeMode")
    if mode is not None and mode not in ("Block", "Filesystem"):
        problems.add(f"{path}.spec.volumeMode", CLAIM_TEMPLATE, f"{mode!r} is not supported")
    storage_class = spec.get("storageClassName")
    if storage_class and not dns_subdomain_ok(storage_class):
        problems.add(f"{path}.spec.storageClassName", CLAIM_TEMPLATE, f"{storage_class!r}")


def _positive(value: Any) -> bool:
    trial = Problems(final=True)
    number = quantity_value(trial, "", value)
    return not trial and number is not None and number > 0


def _mode(problems: Problems, path: str, mode: Any) -> None:
    if mode is not None and not int_in(mode, 0, FILE_MODE_MAX):
        problems.add(path, FILE_MODE, f"{mode!r} is out of range")


def _items(problems: Problems, path: str, items: Any) -> None:
    for index, item in enumerate(items or ()):
        if not isinstance(item, dict):
            continue
        where = f"{path}.items[{index}]"
        if not item.get("key") or not item.get("path") or \
                not descending_path_ok(item.get("path")):
            problems.add(where, ITEM_PATH, f"key {item.get('key')!r}, path "
                         f"{item.get('path')!r}")
        _mode(problems, f"{where}.mode", item.get("mode"))


def _downward(problems: Problems, path: str, items: Any) -> None:
    for index, item in enumerate(items or ()):
        if not isinstance(item, dict):
            continue
        where = f"{path}.items[{index}]"
        if not item.get("path") or not descending_path_ok(item.get("path")):
            problems.add(f"{where}.path", ITEM_PATH, f"path {item.get('path')!r}")
        field = item.get("fieldRef")
        resource = item.get("resourceFieldRef")
        if (field is None) == (resource is None) or (
                field is not None and not _volume_field_ok(field.get("fieldPath"))):
            problems.add(where, DOWNWARD, "not exactly one supported reference")
        _mode(problems, f"{where}.mode", item.get("mode"))


def _volume_field_ok(field: Any) -> bool:
    if field in VOLUME_FIELD_PATHS:
        return True
    return type(field) is str and field.startswith(
        ("metadata.labels['", "metadata.annotations['")) and field.endswith("']")


def _projected(problems: Problems, path: str, sources: Any) -> None:
    for index, source in enumerate(sources or ()):
        if not isinstance(source, dict):
            continue
        where = f"{path}.sources[{index}]"
        present = [kind for kind in PROJECTIONS if source.get(kind) is not None]
        if len(present) != 1:
            problems.add(where, PROJECTION, f"{len(present)} projections")
            continue
        kind = present[0]
        projection = source[kind]
        if not isinstance(projection, dict):
            continue
        if kind in ("secret", "configMap"):
            _items(problems, f"{where}.{kind}", projection.get("items"))
        elif kind == "downwardAPI":
            _downward(problems, f"{where}.{kind}", projection.get("items"))
        elif kind == "serviceAccountToken":
            seconds = projection.get("expirationSeconds")
            if not projection.get("path") or (seconds is not None and not int_in(
                    seconds, TOKEN_EXPIRATION_MIN, TOKEN_EXPIRATION_MAX)):
                problems.add(f"{where}.serviceAccountToken", TOKEN,
                             f"path {projection.get('path')!r}, expirationSeconds {seconds!r}")

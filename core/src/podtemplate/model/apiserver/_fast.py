"""The fast path of the API rules at render: the speed work of this subpackage, fenced here.

Render checks every role's final pod once: :func:`surely_valid`, and the plain
:func:`podtemplate.model.apiserver.check_rules` only when it cannot vouch for the pod
(which then names every problem). It runs the same rules as the plain path, but:

- The verdict on a pod field that is costly to walk and whose rules read nothing else
  (volumes, affinity, tolerations, topologySpreadConstraints, securityContext, dnsConfig,
  hostAliases) is remembered by the field's exact content. Final pods are fresh objects,
  but these fields come from a platform's few templates and recur from pod to pod. The
  content is identified by its ``marshal`` image (version 2, which writes no
  back-references, so that equal content gives equal bytes whoever holds it; it tells
  ``1`` from ``True`` and ``"1"``). Only "valid" is remembered, in a table of the render
  (``RenderContext.memo``, bounded), so a render knows only what it checked itself.
- Labels and annotations (which hold the task's name, so they are new on every task) go
  through the rules' own cached predicates mapped in C, the annotations' size counted in
  characters (at most 4 bytes each; a pod near the limit goes the plain way).
- An env list of name/value pairs (also new on every task) is judged at once: its names,
  joined by '=' (which no name may hold), are printable ASCII, none empty. Any valueFrom
  sends the list through the plain env rules.
- Everything else - containers, the other pod fields - is the plain rules' own code,
  with the pod's facts made as the plain path makes them.

Any odd data (not a dict where one is expected, a name that is not a string) makes it say
"not sure" and the plain path judges. ``core/tests/test_apiserver.py`` compares the two
paths on the invalid corpus, cold and warm, and on changes to remembered parts.
"""

from __future__ import annotations

import marshal
from collections.abc import Mapping
from typing import Any

from ._containers import check_container, check_env
from ._facts import ANNOTATIONS_MAX_BYTES, label_value, qualified_name
from ._pod import POD_FIELD_CHECKS, check_pod_field, pod_facts
from ._report import Problems
from ._volumes import check_volumes

__all__ = ["surely_valid"]

_LISTS = ("initContainers", "containers")
_POD_CHECKED = POD_FIELD_CHECKS | {"volumes"}
# The pod fields whose verdict is remembered: their rules read nothing else, and walking
# them costs more than their image (the others are checked every time).
_REMEMBERED = frozenset(("volumes", "affinity", "tolerations", "topologySpreadConstraints",
                         "securityContext", "dnsConfig", "hostAliases"))


def surely_valid(template: Mapping[str, Any], known: dict[bytes, bool]) -> bool:
    """True only when :func:`check_rules` would find nothing in ``template`` (a final
    PodTemplateSpec); False when it may find something: then run it. ``known`` holds the
    marshal images of the parts this render found valid."""
    spec = template.get("spec")
    if type(spec) is not dict or not spec.get("containers") or spec.get(
            "ephemeralContainers"):
        return False
    try:
        return _metadata_valid(template.get("metadata")) and \
            _pod_fields_valid(spec, known) and _containers_valid(spec, known)
    except (ValueError, TypeError, AttributeError, KeyError):  # odd data: the plain path
        return False


def _metadata_valid(metadata: Any) -> bool:
    # The cached predicates themselves, mapped in C; a key or value that is not a string
    # makes them raise (TypeError, AttributeError): the plain path then.
    if metadata is None:
        return True
    if type(metadata) is not dict:
        return False
    labels = metadata.get("labels")
    if labels is not None and (type(labels) is not dict or not all(
            map(qualified_name, labels)) or not all(map(label_value, labels.values()))):
        return False
    annotations = metadata.get("annotations")
    if annotations is None:
        return True
    # the size counted in characters, a character being at most 4 bytes (else: plain)
    # (str.__len__ raises for what is not a string, whose size the plain path counts)
    return type(annotations) is dict and all(map(qualified_name, annotations)) and 4 * (
        sum(map(str.__len__, annotations)) + sum(map(str.__len__, annotations.values()))
    ) <= ANNOTATIONS_MAX_BYTES


def _pod_fields_valid(spec: dict[str, Any], known: dict[bytes, bool]) -> bool:
    problems = Problems(final=True)
    for key, value in spec.items():
        if value is None or key not in _POD_CHECKED:
            continue
        if key in _REMEMBERED:
            image = _image((key, value))
            if image in known:
                continue
            if key == "volumes":
                check_volumes(problems, spec, "spec")
            else:
                check_pod_field(problems, "spec", key, value, spec)
            if problems:
                return False
            known[image] = True
        else:
            check_pod_field(problems, "spec", key, value, spec)
            if problems:
                return False
    return True


def _image(part: tuple[Any, ...]) -> bytes:
    # Version 2: no back-references, whose use depends on how many references an object
    # has, so that equal content always gives equal bytes.
    return marshal.dumps(part, 2)


def _containers_valid(spec: dict[str, Any], known: dict[bytes, bool]) -> bool:
    # The plain container rules, with the pod's facts as the plain path makes them; only
    # the env goes the fast way.
    volumes = {v["name"]: v for v in spec.get("volumes") or ()}
    facts = pod_facts(spec, volumes)
    problems = Problems(final=True)
    for kind in _LISTS:
        for container in spec.get(kind) or ():
            env = container.get("env")
            if env and not _env_valid(env, problems):
                return False
            check_container(problems, "spec", container, kind, facts, env=False)
            if problems:
                return False
    return True


def _env_valid(env: Any, problems: Problems) -> bool:
    """The plain rules on a list of name/value pairs, in C: the names, joined by the one
    character no name may hold, are printable ASCII with no empty name. A list with a
    valueFrom (or anything odd) goes through the plain env rules."""
    if type(env) is list:
        try:
            names = [var["name"] for var in env if "valueFrom" not in var]
            joined = "=".join(names)
        except (TypeError, KeyError):
            names = []
        if len(names) == len(env):
            return (all(names) and joined.isascii() and joined.isprintable()
                    and joined.count("=") == len(names) - 1)
    check_env(problems, "spec", env)
    return not problems

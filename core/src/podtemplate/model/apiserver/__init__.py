"""API-server-grade pod validation: the checks the Kubernetes API server makes when it
validates a pod's spec and metadata, written down as rules and run offline.

- :func:`check_pod_template` checks a PodTemplateSpec dict ``{"metadata", "spec"}``;
- :func:`check_pod` checks a ``kind: Pod`` document;
- each returns a list of :class:`ApiProblem` (field path, the rule as cited, what is
  wrong, the fix), empty when the API server would accept the pod.

Render runs every rule once on each role's final pod (:func:`check_final_pod`); a
template is also checked for what it alone decides (field names, enumerations, ranges,
names) when it is defined, so that a bad template fails where it is written.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._facts import Rule
from ._fast import Known, surely_valid
from ._keys import check_keys
from ._objects import configmap_problems
from ._pod import check_metadata, check_spec
from ._report import ApiProblem, Problems

__all__ = ["ApiProblem", "check_pod_template", "check_pod", "check_rules",
           "check_final_pod", "check_fragment", "check_keys_only", "check_object",
           "check_object_metadata"]

POD_KIND = Rule("a Pod document has apiVersion v1 and kind Pod (k8s the API's type meta)",
                "write apiVersion: v1 and kind: Pod")
SPEC = Rule("a pod has a spec (k8s ValidatePodTemplateSpec)", "add a spec with containers")
OBJECT = Rule("an object names its apiVersion and kind (k8s the API's type meta)",
              "return each manifest as a mapping with apiVersion, kind and metadata")
CONFIG_MAP = Rule("a ConfigMap has known fields, keys of letters, digits, '-', '_' and "
                  "'.', string values, 1 MiB of data at most (k8s ValidateConfigMap)",
                  "give each key a string value, in data (base64 in binaryData)")
_POD_TOP = frozenset({"apiVersion", "kind", "metadata", "spec", "status"})


def _run(template: Mapping[str, Any], *, final: bool, keys: bool, named: bool = False,
         base: str = "", local: bool = True) -> list[ApiProblem]:
    problems = Problems(final=final, local=local, pod=named)
    if keys:
        check_keys(problems, template, base)
    prefix = f"{base}." if base else ""
    spec = template.get("spec")
    check_metadata(problems, f"{prefix}metadata", template.get("metadata"), named=named,
                   spec=spec if isinstance(spec, dict) and final else None)
    if isinstance(spec, dict):
        check_spec(problems, spec, f"{prefix}spec")
    elif final:
        problems.add(f"{prefix}spec", SPEC, "no spec")
    return problems


def check_pod_template(template: Mapping[str, Any]) -> list[ApiProblem]:
    """Every problem the API server would find in a PodTemplateSpec dict: unknown or
    snake_case field names, wrong value types, and the pod validation rules."""
    return _run(template, final=True, keys=True)


def check_pod(pod: Mapping[str, Any]) -> list[ApiProblem]:
    """Every problem the API server would find in a ``kind: Pod`` document."""
    problems: list[ApiProblem] = []
    if pod.get("apiVersion") != "v1" or pod.get("kind") != "Pod":
        problems.append(ApiProblem("kind", POD_KIND.cite, f"apiVersion {pod.get('apiVersion')!r}"
                                   f", kind {pod.get('kind')!r}", POD_KIND.fix))
    body = {key: value for key, value in pod.items() if key in ("metadata", "spec")}
    for key in pod:
        if key not in _POD_TOP:
            body[key] = pod[key]  # reported as an unknown field by the walk
    return problems + _run(body, final=True, keys=True, named=True)


def check_object(document: Any, *, pod_judged: bool = False) -> list[ApiProblem]:
    """What the API server checks in an object, whatever its kind, as render writes it:
    its type meta and its own ``metadata`` (name, namespace, labels, annotations); a
    ``kind: Pod`` whole (:func:`check_pod`), or, when its metadata and spec were judged
    already as a role's pod (``pod_judged``), its other top-level fields and its name; a
    ``v1 ConfigMap``'s data."""
    if not isinstance(document, Mapping) or not all(
            isinstance(document.get(key), str) and document.get(key)
            for key in ("apiVersion", "kind")):
        return [ApiProblem("", OBJECT.cite, "not a Kubernetes object", OBJECT.fix)]
    api_version, kind = document["apiVersion"], document["kind"]
    if api_version == "v1" and kind == "Pod":
        if not pod_judged:
            return check_pod(document)
        found = Problems(final=True)
        check_keys(found, {key: value for key, value in document.items()
                           if key not in _POD_TOP})
        metadata = document.get("metadata")
        if isinstance(metadata, dict):  # its labels and annotations are the role pod's
            metadata = {key: value for key, value in metadata.items()
                        if key not in ("labels", "annotations")}
        check_metadata(found, "metadata", metadata, named=True)
        return found
    problems = check_object_metadata(document.get("metadata"))
    if api_version == "v1" and kind == "ConfigMap":
        problems += [ApiProblem(path, CONFIG_MAP.cite, message, CONFIG_MAP.fix)
                     for path, message in configmap_problems(document)
                     if path != "metadata.name"]  # the object's name: checked above
    return problems


def check_object_metadata(metadata: Any) -> list[ApiProblem]:
    """What the API server checks in the ``metadata`` of any object it stores (k8s
    ValidateObjectMeta): a name or a generateName, the name a DNS-1123 subdomain, the
    namespace a DNS-1123 label, label and annotation syntax and size. Paths start at
    ``metadata``."""
    problems = Problems(final=True)
    check_metadata(problems, "metadata", metadata, named=True)
    return list(problems)


def check_rules(template: Mapping[str, Any], *, named: bool = False,
                local: bool = True) -> list[ApiProblem]:
    """The pod validation rules alone, for a final pod whose field names and types are
    already known to be valid (render checks them against the shipped pod schema).

    ``local=False`` is for a pod merged from layers that each passed
    :func:`check_fragment`: a value that breaks a rule on its own (an enumeration, a
    range, a name) was refused with its layer, so only the rules that relate values, the
    metadata and what no layer gave (names, images, resources) are checked again."""
    return _run(template, final=True, keys=False, named=named, local=local)


def check_final_pod(template: Mapping[str, Any], known: Known
                    ) -> list[ApiProblem]:
    """What render runs on each role's final pod: every rule (:func:`check_rules`), by way
    of the fast path, which knows the parts of the pod that the render already found
    valid on earlier pods (``known``, a table of the render; see ``_fast``); the plain
    rules run whenever it cannot vouch for the pod."""
    return [] if surely_valid(template, known) else check_rules(template)


def check_fragment(template: Mapping[str, Any], *, base: str = "",
                   keys: bool = True) -> list[ApiProblem]:
    """What one template layer alone decides: field names and types, enumerations,
    ranges, names and conflicts within the layer. Rules that need the whole pod (a
    mount's volume, request <= limit, one handler or source present) wait for it.
    ``keys=False`` leaves out field names and types (known valid by other means)."""
    return _run(template, final=False, keys=keys, base=base)


def check_keys_only(template: Mapping[str, Any], *, base: str = "",
                    final: bool = False) -> list[ApiProblem]:
    """Field names and value types of a PodTemplateSpec alone, by the shipped pod schema;
    ``final`` adds its required fields (a fragment may leave them to another layer)."""
    problems = Problems(final=final)
    check_keys(problems, template, base)
    return list(problems)

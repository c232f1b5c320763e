"""The real API server as judge of the offline pod rules.

Each pod is submitted twice with ``dryRun=All`` and ``fieldValidation=Strict``: as a
``Pod`` and as the template of a ``PodTemplate``. The server's verdict (accepted or the
field paths of its causes) is set beside :func:`podtemplate.check_pod`'s and
:func:`podtemplate.check_pod_template`'s (:class:`Verdict`); :func:`compare` says whether
they agree, and how they differ when they do not (see :mod:`.apiserver_deviations` for
the differences that are known, each with its reason).

A field path we report agrees with a cause of the server when the two name the same
field or one lies inside the other (the server names ``metadata.labels`` where we name
the label; we name a list item by its ``name`` where the server gives its index: the
pod tells which).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Case", "Verdict", "Outcome", "submit_all", "compare", "server_path",
           "family_of", "pod_document", "template_document"]

Pod = dict[str, Any]
_DECODING = "strict decoding error"
_ITEM = re.compile(r"\[([^\]]*)\]")
_UNKNOWN = re.compile(r'unknown field "([^"]+)"')


@dataclass(frozen=True)
class Case:
    """A pod to judge: ``pod`` is PodTemplateSpec-shaped (metadata, spec)."""

    id: str
    source: str
    pod: Pod
    tags: tuple[str, ...] = ()  # what made it: the corpus changes of a generated pod


@dataclass(frozen=True)
class Verdict:
    """One side's verdict: no paths means accepted (``refused`` says it otherwise, for a
    server refusal that names no field)."""

    refused: bool
    paths: tuple[str, ...] = ()
    messages: tuple[str, ...] = ()


@dataclass
class Outcome:
    case: Case
    kind: str  # Pod or PodTemplate
    ours: Verdict
    server: Verdict
    agree: bool = False
    missing: list[str] = field(default_factory=list)  # our paths the server did not name
    family: str = ""

    def summary(self) -> dict[str, Any]:
        return {"id": self.case.id, "source": self.case.source, "kind": self.kind,
                "tags": list(self.case.tags),
                "family": self.family, "agree": self.agree,
                "ours": list(self.ours.paths), "server": list(self.server.paths),
                "server_refused": self.server.refused, "ours_refused": self.ours.refused,
                "missing": self.missing,
                "server_messages": list(self.server.messages)[:3]}


def pod_document(pod: Mapping[str, Any], name: str) -> Pod:
    """``pod`` as a ``kind: Pod`` named ``name`` unless it has a name or generateName."""
    metadata = dict(copy.deepcopy(pod.get("metadata") or {}))
    metadata.pop("namespace", None)  # the request's namespace
    if not metadata.get("name") and not metadata.get("generateName"):
        metadata["name"] = name
    document = {"apiVersion": "v1", "kind": "Pod", "metadata": metadata,
                "spec": copy.deepcopy(pod.get("spec"))}
    document.update({key: copy.deepcopy(value) for key, value in pod.items()
                     if key not in ("metadata", "spec")})
    return document


def template_document(pod: Mapping[str, Any], name: str) -> Pod:
    return {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": name},
            "template": copy.deepcopy(dict(pod))}


def _causes(status: int, body: str) -> Verdict:
    try:
        data = json.loads(body)
    except ValueError:
        return Verdict(True, (), (f"{status}: {body[:200]}",))
    message = str(data.get("message", ""))
    causes = (data.get("details") or {}).get("causes") or []
    paths = [str(c["field"]) for c in causes if c.get("field")]
    paths += _UNKNOWN.findall(message)
    return Verdict(True, tuple(dict.fromkeys(paths)), (message[:300],))


def _submit(api_client: Any, namespace: str, document: Pod) -> Verdict:
    """POST the document as it is: the client's typed methods would validate it with
    their own models first, and refuse what the server may accept."""
    resource = "pods" if document["kind"] == "Pod" else "podtemplates"
    method, url, headers, body, _ = api_client.param_serialize(
        "POST", f"/api/v1/namespaces/{{namespace}}/{resource}",
        path_params={"namespace": namespace},
        query_params=[("dryRun", "All"), ("fieldValidation", "Strict")],
        header_params={"Content-Type": "application/json", "Accept": "application/json"},
        body=document, auth_settings=["BearerToken"])
    response = api_client.call_api(method, url, headers, body)
    response.read()
    if 200 <= response.status < 300:
        return Verdict(False)
    return _causes(response.status, response.data.decode("utf-8", "replace"))


def submit_all(api_client: Any, namespace: str, documents: Sequence[Pod],
               workers: int = 8) -> list[Verdict]:
    """The server's verdict on each document, a few requests at a time."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda d: _submit(api_client, namespace, d), documents))


def _tokens(path: str) -> str:
    """A path with list items and map keys in brackets turned into dotted steps."""
    return _ITEM.sub(lambda m: "." + m.group(1), path)


def server_path(ours: str, document: Mapping[str, Any]) -> str:
    """Our path (items named by ``name``) as the server writes it (items by index)."""
    out = ""
    node: Any = document
    position = 0
    step = re.compile(r"\.?([^.\[\]]+)|\[([^\]]*)\]")
    while position < len(ours):
        match = step.match(ours, position)
        if match is None:
            return out + ours[position:]
        field_name, item = match.groups()
        if field_name is not None:
            if not isinstance(node, dict) or field_name not in node:
                return out + ours[position:]
            out += ("." if out else "") + field_name
            node = node[field_name]
        else:
            if not isinstance(node, list):
                return out + ours[position:]
            if item is not None and item.isdigit():
                index = int(item)
            else:
                names = [i for i, x in enumerate(node) if isinstance(x, dict)
                         and x.get("name") == item]
                if not names:
                    return out + ours[position:]
                index = names[0]
            out += f"[{index}]"
            node = node[index] if index < len(node) else None
        position = match.end()
    return out


def _ours_of(template_path: str) -> str:
    """A PodTemplate's cause as a PodTemplateSpec path: its template's ObjectMeta is
    inline (``template.labels``), its spec under ``template.spec``."""
    path = template_path.removeprefix("template.")
    return f"metadata.{path}" if path.startswith(("labels", "annotations")) else path


_INDEX = re.compile(r"\.\d+(?=\.|$)")


def _matches(ours: str, theirs: str) -> bool:
    """The same field, or one inside the other; list indexes left out when that alone
    differs (the server names some items without their index, and a repeated name is
    resolved to its first item here)."""
    a, b = _tokens(ours).lower(), _tokens(theirs).lower()  # the server writes spec.HostIPC
    if a == b or a.startswith(b + ".") or b.startswith(a + "."):
        return True
    a, b = _INDEX.sub("", a), _INDEX.sub("", b)
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def compare(outcome: Outcome, document: Mapping[str, Any]) -> Outcome:
    """Fill ``agree`` and ``missing``: the verdicts agree when both accept, or both
    refuse and every path we report is among the server's causes."""
    ours, server = outcome.ours, outcome.server
    theirs = [_ours_of(path) if outcome.kind == "PodTemplate" else path
              for path in server.paths]
    if ours.refused != server.refused:
        outcome.agree = False
    elif not ours.refused:
        outcome.agree = True
    else:
        target = document["template"] if outcome.kind == "PodTemplate" else document
        mine = [server_path(path, target) for path in ours.paths]
        if any(_DECODING in message for message in server.messages):
            # the server stops at the first decoding error (an unknown field, a wrong
            # type) and validates nothing else: each field it names must be among ours
            outcome.missing = [t for t in theirs if not any(_matches(m, t) for m in mine)]
        else:
            outcome.missing = [path for path, where in zip(ours.paths, mine, strict=True)
                               if not any(_matches(where, t) for t in theirs)]
        outcome.agree = not outcome.missing or not theirs
    first = theirs[0] if theirs else (ours.paths[0] if ours.paths else "")
    outcome.family = family_of(first) if (ours.refused or server.refused) else "valid pods"
    return outcome


_FAMILIES = (  # (path pattern, family), first match wins
    (r"^metadata\.(name|generateName|namespace|finalizers|ownerReferences)", "object metadata"),
    (r"^metadata\.annotations\.(kubernetes\.io/config\.mirror|controller\.kubernetes|"
     r"scheduler\.alpha|seccomp|container\.)", "well-known pod annotations"),
    (r"^metadata", "labels and annotations"),
    (r"securityContext\.(sysctls|windowsOptions)|^spec\.(os|hostPID|hostIPC|hostUsers|"
     r"shareProcessNamespace|hostNetwork)", "OS, host namespaces, sysctls"),
    (r"securityContext", "security contexts"),
    (r"\.(env|envFrom)\b", "env and envFrom"),
    (r"(Probe|lifecycle)", "probes and lifecycle hooks"),
    (r"\.(restartPolicy|restartPolicyRules)", "restart policies and rules"),
    (r"resources|overhead|resizePolicy", "resources"),
    (r"^spec\.volumes|volumeMounts|volumeDevices", "volumes and mounts"),
    (r"\.ports", "ports"),
    (r"^spec\.(containers|initContainers|ephemeralContainers)", "containers"),
    (r"^spec\.(affinity|tolerations|nodeSelector|topologySpreadConstraints|"
     r"schedulingGates|schedulerName|priority|preemptionPolicy|nodeName)",
     "scheduling"),
    (r"^spec\.(dnsPolicy|dnsConfig|hostAliases|hostname|subdomain|hostnameOverride)",
     "DNS and host names"),
    (r"^spec", "other pod fields"),
)


def family_of(path: str) -> str:
    for pattern, family in _FAMILIES:
        if re.search(pattern, path):
            return family
    return "other"

"""Declarations are checked, not trusted.

- ``owned``: the operator layer must set the field, and the role's pod must hold exactly
  that value; a field it sets to ``REMOVE`` must be absent from the role's pod. A field
  the operator fills in only when it creates the pod (a name, an address, a generated
  command) is declared with a reason starting ``runtime:``; the matrix shows it as such,
  and the plugin may leave it out or remove it. Such a declaration that exempts a probed
  field must be founded: the operator layer sets or removes the field, a ``native:``
  declaration maps it, or the operator's CRD names it beside the role's pod template (in a
  description there); a field the build merely drops is lost, whatever the reason says.
- ``native: <path>``: the CRD must keep ``<path>`` (the probe checks the value is there).
- A conditional declaration (``FieldDecl(when=WhenField(...))``) is checked as above
  where its condition holds in the plain sample task's pod.
- Operator facts (:data:`PLACEMENTS`): where an operator reads a pod field from its own
  resource instead of the pod (Kubeflow's ``restartPolicy`` on the replica spec, when the
  CRD has it there), the role must declare the field ``native:`` at that path.
- ``unsupported``: the operator's CRD must lack the field where the role's pod sits; the
  kit looks the path up in the CRD the task type ships. Without a CRD nothing shows the
  field is lost, so the declaration fails. A field the CRD keeps but that the API server
  refuses once another field is pruned (a probe on an init container whose sidecar
  ``restartPolicy`` the CRD drops) is declared with a reason starting
  ``lost with <path>:``, and then the CRD must lack ``<path>``.

``native:`` values are checked by the probe (the value must be at the named path).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import PodTemplateError
from ..model.roles import REMOVE, FieldDecl, RoleSpec, WhenField, applies, covers
from ..model.templates import PodTemplate
from .compare import MISSING, contains, field_value, overlap, walk
from .pod_checks import crd_of
from .reference_merge import KEYED, reference_merge
from .results import NATIVE, Finding, native_path

if TYPE_CHECKING:
    from .crd import Crd
    from .kit import Kit, RolePod

__all__ = ["LOST_WITH", "PLACEMENTS", "RUNTIME", "Placement", "declaration_findings",
           "declared_value", "crd_has"]

RUNTIME = "runtime:"
LOST_WITH = "lost with "
_PART = re.compile(r"([^.\[\]]+)(?:\[([^\]]*)\])?")
_MAPS = ("metadata.labels", "metadata.annotations")


@dataclass(frozen=True)
class Placement:
    """An operator fact: the operators of API group ``group`` read the pod field ``field``
    from the object holding the role's pod template (member ``beside``), not from the
    pod, wherever the CRD has that member."""

    group: str
    field: str
    beside: str
    why: str


PLACEMENTS = (
    Placement("kubeflow.org", "spec.restartPolicy", "restartPolicy",
              "Kubeflow's job operators (Training Operator v1.9 core.SetRestartPolicy, MPI "
              "Operator v2) set every pod's restartPolicy from its replica spec and "
              "overwrite the template's"),
)


def declaration_findings(kit: Kit) -> list[Finding]:
    rendered = kit.baseline
    if rendered.error is not None:
        return [Finding("declaration", kit.plugin, rendered.error)]
    crd = crd_of(kit)
    schema = _schema(kit, crd)
    findings = []
    for role in rendered.roles:
        located = rendered.pods.get(role.name)
        for decl in role.owned:
            findings += _owned(kit, role, decl, located)
            findings += _runtime(kit, role, decl, crd, schema)
        for decl in (*role.owned, *role.unsupported):
            findings += _native(kit, role, decl, crd, schema)
        for decl in role.unsupported:
            findings += _unsupported(kit, role, decl, crd)
        findings += _placement(kit, role, crd, schema)
    return findings + _conditional_findings(kit)


def _conditional_findings(kit: Kit) -> list[Finding]:
    """Each conditional declaration of a probed field, where its condition does not
    hold: a task template sets the field and the opposite condition, and the field must
    arrive like any other."""
    findings: list[Finding] = []
    conditional = {(d.path, d.when): d for role in kit.baseline.roles
                   for d in (*role.owned, *role.unsupported) if d.when is not None}
    for decl in conditional.values():
        assert decl.when is not None
        value = next((f.value for f in kit.probe.fields if f.path == decl.path
                      and not f.polarity), MISSING)
        other = _opposite(kit, decl.when)
        spec = _fragment({decl.when.path: other, decl.path: value})
        if value is MISSING or other is MISSING or spec is None:
            continue
        try:
            task = kit.sample_task(pod_template=PodTemplate(spec, "primary",
                                                            source="conditional probe"))
        except PodTemplateError:
            continue  # the two values cannot share a pod
        rendered = kit.render(task)
        for role in rendered.roles:
            located, ideal = rendered.pods.get(role.name), rendered.ideal.get(role.name)
            if located is None or ideal is None or decl not in (*role.owned, *role.unsupported):
                continue
            expected = overlap(value, field_value(ideal, decl.path, located.primary))
            actual = field_value(located.pod, decl.path, located.primary)
            if expected is MISSING or contains(actual, expected):
                continue
            findings.append(Finding(
                "declaration", kit.plugin, f"declared {decl.reason!r} {decl.when}, but with "
                f"{decl.when.path} {json.dumps(other)} the pod holds "
                f"{'nothing' if actual is MISSING else json.dumps(actual)}, not "
                f"{json.dumps(expected)}: where the condition does not hold the field must "
                "arrive", role=role.name, field=decl.path, layer="task template (layer 2)"))
    return findings


def _opposite(kit: Kit, when: WhenField) -> Any:
    """A value of ``when.path`` other than ``when.value``: the other boolean, else the
    probe's value when it differs (MISSING when there is none)."""
    if isinstance(when.value, bool):
        return not when.value
    probed = next((f.value for f in kit.probe.fields if f.path == when.path), MISSING)
    return probed if probed != when.value else MISSING


def _fragment(values: Mapping[str, Any]) -> dict[str, Any] | None:
    """A PodSpec setting pod fields and primary-container fields at their paths."""
    spec: dict[str, Any] = {}
    primary = "spec.containers[primary]."
    for path, value in values.items():
        if path.startswith(primary):
            target = spec.setdefault("containers", [{"name": "primary"}])[0]
            rest = path[len(primary):]
        elif path.startswith("spec.") and "[" not in path:
            target, rest = spec, path[len("spec."):]
        else:
            return None
        *parents, last = rest.split(".")
        for key in parents:
            target = target.setdefault(key, {})
        target[last] = value
    return spec


def _schema(kit: Kit, crd: Crd | None) -> Mapping[str, Any]:
    if crd is None:
        return {}
    version = kit.info.api_version.rpartition("/")[2]
    return crd.versions.get(version) or next(iter(crd.versions.values()), {})


def _hides_probe(kit: Kit, decl: FieldDecl) -> bool:
    """Whether ``decl`` exempts a whole probed field (not only a part of one)."""
    return any(covers(decl.path, path) for path in {f.path for f in kit.probe.fields})


def _runtime(kit: Kit, role: RoleSpec, decl: FieldDecl, crd: Crd | None,
             schema: Mapping[str, Any]) -> list[Finding]:
    if not decl.reason.startswith(RUNTIME) or not _hides_probe(kit, decl):
        return []
    operator = role.container_name or "primary"
    if declared_value(role.operator_layer, decl.path, operator) is not MISSING:
        return []  # the operator layer sets it or removes it
    if any(native_path(other) and covers(other.path, decl.path) for other in role.owned):
        return []  # the plugin maps it to the operator's own field
    name = _PART.findall(decl.path)[-1][0]
    parent = role.template_path.rpartition(".")[0]
    if crd is not None and parent and name in _descriptions(_crd_node(schema, parent)):
        return []
    where = f"the CRD {crd.file} beside {role.template_path}" if crd is not None else \
        "no CRD (a v1 Pod)"
    return [Finding("declaration", kit.plugin, f"declared {decl.reason!r}, but nothing shows "
                    f"the operator fills it in: the operator layer neither sets nor removes "
                    f"it, and {where} does not name {name!r}; a field the build drops is "
                    "lost: apply it, or set or remove it in the operator layer",
                    role=role.name, field=decl.path, layer="operator layer (layer 7)")]


def _native(kit: Kit, role: RoleSpec, decl: FieldDecl, crd: Crd | None,
            schema: Mapping[str, Any]) -> list[Finding]:
    if not decl.reason.startswith(NATIVE):
        return []
    target = native_path(decl)
    if target is None:
        problem = "names no manifest path: write 'native: <path in the manifest> (why)'"
    elif crd is None:
        if kit.info.kind != "Pod":
            return []  # a CRD that cannot be read: the task type is unverified
        problem = (f"but task type {kit.task_type!r} has no CRD: a v1 Pod has no native form "
                   "of its fields")
    elif not crd_has(schema, target):
        problem = f"but {crd.file} has no {target}: the operator never reads a value there"
    else:
        return []
    return [Finding("declaration", kit.plugin, f"declared {decl.reason!r}, {problem}",
                    role=role.name, field=decl.path)]


def _placement(kit: Kit, role: RoleSpec, crd: Crd | None, schema: Mapping[str, Any]
               ) -> list[Finding]:
    group = kit.info.api_version.rpartition("/")[0]
    parent, _, last = role.template_path.rpartition(".")
    if crd is None or not parent or last != "template":
        return []
    findings = []
    for fact in PLACEMENTS:
        where = f"{parent}.{fact.beside}"
        if fact.group != group or _crd_node(schema, where) is None:
            continue
        decl = role.declared(fact.field)
        if decl is not None and native_path(decl) == where:
            continue
        findings.append(Finding("placement", kit.plugin, f"the operator reads this at {where} "
                                f"(CRD {crd.file}), not on the pod: {fact.why}; write the "
                                f"value there and declare FieldDecl({fact.field!r}, "
                                f"'native: {where}')", role=role.name, field=fact.field))
    return findings


def _crd_node(schema: Mapping[str, Any], path: str) -> Mapping[str, Any] | None:
    """The CRD schema node at a manifest path (``[...]`` steps into items), or None."""
    node: Any = schema
    for name, selector in _PART.findall(path):
        if not isinstance(node, Mapping):
            return None
        properties = node.get("properties") or {}
        extra = node.get("additionalProperties")
        node = properties.get(name) if name in properties else (
            extra if isinstance(extra, Mapping) else None)
        if selector and isinstance(node, Mapping):
            node = node.get("items")
    return node if isinstance(node, Mapping) else None


def _descriptions(node: Mapping[str, Any] | None) -> str:
    """The descriptions of a CRD object and of its members but the pod template."""
    if node is None:
        return ""
    texts = [str(node.get("description", ""))]
    texts += [f"{name} {member.get('description', '')}"
              for name, member in (node.get("properties") or {}).items()
              if name != "template" and isinstance(member, Mapping)]
    return "\n".join(texts)


def _owned(kit: Kit, role: RoleSpec, decl: FieldDecl, located: RolePod | None
           ) -> list[Finding]:
    if decl.reason.startswith((NATIVE, RUNTIME)) or "[*]" in decl.path or located is None:
        return []
    if not applies(decl, located.pod, located.primary):
        return []  # its condition does not hold in the plain sample task's pod
    operator = role.container_name or "primary"
    value = declared_value(role.operator_layer, decl.path, operator)
    if value is MISSING or value is None:
        how = ("removes it with None: write REMOVE if the operator really removes it"
               if value is None else "does not set it")
        return [Finding("declaration", kit.plugin, f"declared operator-owned ({decl.reason}),"
                        f" but the operator layer {how}; an owned field is set by the "
                        "operator layer; if the operator fills it in when it creates the "
                        f"pod, start the reason with {RUNTIME!r}", role=role.name,
                        field=decl.path, layer="operator layer (layer 7)")]
    actual = declared_value(located.pod, decl.path, located.primary)
    if value is REMOVE:  # the operator removes the field
        return [] if actual is MISSING else [Finding(
            "declaration", kit.plugin, "declared operator-owned and removed by the operator "
            f"layer (REMOVE), but the role's pod holds {actual!r}", role=role.name,
            field=decl.path, layer="operator layer (layer 7)")]
    value = reference_merge({}, {"value": value}, root="").get("value")  # no directives
    if contains(actual, value):
        return []
    return [Finding("declaration", kit.plugin, f"declared operator-owned: the operator "
                    f"layer sets {value!r}, but the role's pod holds "
                    f"{'nothing' if actual is MISSING else repr(actual)}", role=role.name,
                    field=decl.path, layer="operator layer (layer 7)")]


def _unsupported(kit: Kit, role: RoleSpec, decl: FieldDecl, crd: Crd | None
                 ) -> list[Finding]:
    where = f"{role.template_path}.{decl.path}" if role.template_path else decl.path
    if crd is None:
        return [Finding("declaration", kit.plugin, f"declared unsupported ({decl.reason}), "
                        f"but task type {kit.task_type!r} has no CRD that shows {where} is "
                        "missing: a v1 Pod carries every field", role=role.name,
                        field=decl.path)]
    schema = _schema(kit, crd)
    if decl.reason.startswith(LOST_WITH):  # lost because the CRD prunes another field
        cause = decl.reason[len(LOST_WITH):].partition(":")[0]
        where = f"{role.template_path}.{cause}" if role.template_path else cause
    if not crd_has(schema, where):
        return []
    return [Finding("declaration", kit.plugin, f"declared unsupported ({decl.reason}), but "
                    f"{crd.file} has {where}: the operator takes the field, so apply it",
                    role=role.name, field=decl.path)]


def declared_value(pod: Mapping[str, Any], path: str, primary: str) -> Any:
    """The value at a declared path in a PodTemplateSpec: ``[primary]`` is the primary
    container, ``[key]`` or ``[key,key]`` a keyed item (``ports[23456,TCP]``), and
    everything after ``metadata.labels.`` one label key. MISSING when absent."""
    for prefix in _MAPS:
        if path.startswith(prefix + "."):
            values = walk(pod, prefix)
            return values.get(path[len(prefix) + 1:], MISSING) if isinstance(
                values, Mapping) else MISSING
    node: Any = pod
    rule = ""
    for name, selector in _PART.findall(path):
        rule = "container" if rule in ("spec.containers", "spec.initContainers") else rule
        rule = f"{rule}.{name}" if rule else name
        node = node.get(name, MISSING) if isinstance(node, Mapping) else MISSING
        if selector and node is not MISSING:
            node = _item(node, selector, rule, primary)
    return node


def _item(items: Any, selector: str, rule: str, primary: str) -> Any:
    keys = KEYED.get(rule, ("name",))
    wanted = [primary if part == "primary" and keys == ("name",) else part
              for part in selector.split(",")]
    for item in items if isinstance(items, list) else ():
        if isinstance(item, Mapping):
            got = [str(item.get(key, "TCP" if key == "protocol" else None))
                   for key in keys[:len(wanted)]]
            if got == wanted:
                return item
    return MISSING


def crd_has(schema: Mapping[str, Any], path: str) -> bool:
    """Whether the CRD schema keeps the field at ``path`` (``[...]`` steps into items);
    an object that preserves unknown fields keeps everything below it."""
    node: Any = schema
    for name, selector in _PART.findall(path):
        if not isinstance(node, Mapping):
            return False
        if node.get("x-kubernetes-preserve-unknown-fields") is True and not node.get(
                "properties"):
            return True
        properties = node.get("properties") or {}
        extra = node.get("additionalProperties")
        if name in properties:
            node = properties[name]
        elif isinstance(extra, Mapping):
            node = extra
        else:  # kept only where unknown fields are
            return extra is True or node.get("x-kubernetes-preserve-unknown-fields") is True
        if selector:
            node = node.get("items") if isinstance(node, Mapping) else None
    return True

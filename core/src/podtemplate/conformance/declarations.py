"""Declarations are checked, not trusted.

- ``owned``: the operator layer must set the field, and the role's pod must hold exactly
  that value; a field it sets to ``REMOVE`` must be absent from the role's pod. A
  field the operator fills in only when it creates the pod (a name, an address, a
  generated command) is declared with a reason starting ``runtime:``; the
  matrix shows it as such, and the plugin may leave it out or remove it.
- ``unsupported``: the operator's CRD must lack the field where the role's pod sits; the
  kit looks the path up in the CRD the task type ships. Without a CRD nothing shows the
  field is lost, so the declaration fails. A field the CRD keeps but that the API server
  refuses once another field is pruned (a probe on an init container whose sidecar
  ``restartPolicy`` the CRD drops) is declared with a reason starting
  ``lost with <path>:``, and then the CRD must lack ``<path>``.

``native:`` declarations are checked by the probe (the value must be at the named path).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..model.roles import REMOVE, FieldDecl, RoleSpec
from .compare import MISSING, contains, walk
from .pod_checks import crd_of
from .reference_merge import KEYED, reference_merge
from .results import NATIVE, Finding

if TYPE_CHECKING:
    from .crd import Crd
    from .kit import Kit, RolePod

__all__ = ["LOST_WITH", "RUNTIME", "declaration_findings", "declared_value", "crd_has"]

RUNTIME = "runtime:"
LOST_WITH = "lost with "
_PART = re.compile(r"([^.\[\]]+)(?:\[([^\]]*)\])?")
_MAPS = ("metadata.labels", "metadata.annotations")


def declaration_findings(kit: Kit) -> list[Finding]:
    rendered = kit.baseline
    if rendered.error is not None:
        return [Finding("declaration", kit.plugin, rendered.error)]
    crd = crd_of(kit)
    findings = []
    for role in rendered.roles:
        located = rendered.pods.get(role.name)
        for decl in role.owned:
            findings += _owned(kit, role, decl, located)
        for decl in role.unsupported:
            findings += _unsupported(kit, role, decl, crd)
    return findings


def _owned(kit: Kit, role: RoleSpec, decl: FieldDecl, located: RolePod | None
           ) -> list[Finding]:
    if decl.reason.startswith((NATIVE, RUNTIME)) or "[*]" in decl.path or located is None:
        return []
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
    version = kit.info.api_version.rpartition("/")[2]
    schema: Mapping[str, Any] = crd.versions.get(version) or next(iter(crd.versions.values()), {})
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

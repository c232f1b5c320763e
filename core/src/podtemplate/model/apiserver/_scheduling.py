"""Where a pod may run: nodeSelector, tolerations, affinity, topology spread constraints."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ._facts import (
    INCLUSION_POLICIES,
    INT32_MAX,
    LABEL_SELECTOR_OPERATORS,
    SELECTOR_OPERATORS,
    TAINT_EFFECTS,
    TOLERATION_OPERATORS,
    UNSATISFIABLE,
    Rule,
    enum_rule,
    int_in,
    label_value_ok,
    qualified_name_ok,
)
from ._report import Problems, remembered

__all__ = ["check_node_selector", "check_tolerations", "check_affinity",
           "check_topology_spread", "toleration_good", "LABEL_KEY", "LABEL_VALUE"]

LABEL_KEY = Rule("a label key is an optional DNS subdomain prefix and '/', then at most 63 "
                 "letters, digits, '-', '_' and '.', starting and ending alphanumeric "
                 "(k8s IsQualifiedName)", "use a key such as example.com/pool")
LABEL_VALUE = Rule("a label value is empty or at most 63 letters, digits, '-', '_' and '.', "
                   "starting and ending alphanumeric (k8s IsValidLabelValue)",
                   "shorten it and drop other characters")
OPERATOR = enum_rule("toleration operator", TOLERATION_OPERATORS, "validateTolerations")
EFFECT = enum_rule("toleration effect", TAINT_EFFECTS, "validateTolerations")
EXISTS_VALUE = Rule("a toleration with operator Exists has no value (k8s validateTolerations)",
                    "remove the value, or use operator Equal")
EMPTY_KEY = Rule("a toleration without a key has operator Exists (k8s validateTolerations)",
                 "set operator: Exists, or give a key")
SECONDS = Rule("tolerationSeconds is only for effect NoExecute (k8s validateTolerations)",
               "remove tolerationSeconds or use effect NoExecute")
SELECTOR_OPERATOR = enum_rule("node selector operator", SELECTOR_OPERATORS,
                              "validateNodeSelectorRequirement")
SELECTOR_VALUES = Rule("In/NotIn have values, Exists/DoesNotExist none, Gt/Lt one integer "
                       "(k8s validateNodeSelectorRequirement, ValidateLabelSelectorRequirement)",
                       "give values that fit the operator")
MATCH_FIELDS = Rule("matchFields key is metadata.name with In/NotIn and exactly one value "
                    "(k8s validateNodeFieldSelectorRequirement)", "use matchExpressions instead")
NODE_TERMS = Rule("requiredDuringSchedulingIgnoredDuringExecution has at least one "
                  "nodeSelectorTerm (k8s ValidateNodeSelector)", "add a term or remove the field")
WEIGHT = Rule("a preferred scheduling term's weight is between 1 and 100 "
              "(k8s validateWeightedPodAffinityTerms, validatePreferredSchedulingTerms)",
              "use a weight from 1 to 100")
TOPOLOGY_KEY = Rule("a pod affinity term has a topologyKey that is a label key "
                    "(k8s validatePodAffinityTerm)", "set topologyKey, e.g. kubernetes.io/hostname")
MAX_SKEW = Rule("maxSkew is > 0 (k8s validateTopologySpreadConstraints)", "use maxSkew >= 1")
LABEL_SELECTOR_OPERATOR = enum_rule("label selector operator", LABEL_SELECTOR_OPERATORS,
                                    "ValidateLabelSelectorRequirement")
UNSATISFIABLE_RULE = enum_rule("whenUnsatisfiable", UNSATISFIABLE,
                               "validateTopologySpreadConstraints")
MIN_DOMAINS = Rule("minDomains is > 0 and only with whenUnsatisfiable DoNotSchedule "
                   "(k8s validateMinDomains)", "remove minDomains or use DoNotSchedule")
INCLUSION = enum_rule("nodeAffinityPolicy and nodeTaintsPolicy", INCLUSION_POLICIES,
                      "validateNodeInclusionPolicy")
SPREAD_KEY = Rule("a topology spread constraint has a topologyKey "
                  "(k8s ValidateTopologyKey)", "set topologyKey, e.g. kubernetes.io/hostname")
SPREAD_UNIQUE = Rule("a topologyKey/whenUnsatisfiable pair is given once "
                     "(k8s validateTopologySpreadConstraints)", "merge the two constraints")


def check_labels(problems: Problems, path: str, labels: Any, *, values: bool = True) -> None:
    if not isinstance(labels, dict):
        return
    for key, value in labels.items():
        if values and type(key) is str and type(value) is str and _label_ok(key, value):
            continue
        # an annotation key's case does not matter (k8s ValidateAnnotations)
        if not qualified_name_ok(key if values or type(key) is not str else key.lower()):
            problems.add(f"{path}.{key}", LABEL_KEY, f"{key!r} is not a valid key")
        elif values and not label_value_ok(value):
            problems.add(f"{path}.{key}", LABEL_VALUE, f"{value!r} is not a valid label value")


@functools.lru_cache(maxsize=8192)  # system labels and a platform's few labels recur
def _label_ok(key: str, value: str) -> bool:
    return qualified_name_ok(key) and label_value_ok(value)


def check_node_selector(problems: Problems, path: str, selector: Any) -> None:
    check_labels(problems, path, selector)


def check_tolerations(problems: Problems, path: str, tolerations: Any) -> None:
    for index, toleration in enumerate(tolerations or ()):
        if isinstance(toleration, dict) and not toleration_good(toleration, problems.final):
            _toleration(problems, f"{path}[{index}]", toleration)


def _toleration(problems: Problems, where: str, toleration: dict[str, Any]) -> None:
    key = toleration.get("key")
    operator = toleration.get("operator")
    value = toleration.get("value")
    effect = toleration.get("effect")
    if key and not qualified_name_ok(key):
        problems.add(f"{where}.key", LABEL_KEY, f"{key!r} is not a valid key")
    if operator not in (None, "") and operator not in TOLERATION_OPERATORS:
        problems.add(f"{where}.operator", OPERATOR, f"{operator!r} is not supported")
    elif operator == "Exists" and value:
        problems.add(f"{where}.operator", EXISTS_VALUE, f"value {value!r} with Exists")
    elif not key and operator != "Exists":
        problems.add(f"{where}.operator", EMPTY_KEY, f"no key, operator {operator!r}")
    elif operator != "Exists" and value and not label_value_ok(value):
        problems.add(f"{where}.value", LABEL_VALUE, f"{value!r} is not a label value")
    if effect not in (None, "") and effect not in TAINT_EFFECTS:
        problems.add(f"{where}.effect", EFFECT, f"{effect!r} is not supported")
    elif toleration.get("tolerationSeconds") is not None and effect != "NoExecute":
        problems.add(f"{where}.effect", SECONDS, f"effect {effect!r} with tolerationSeconds")


toleration_good = remembered(_toleration)


def _requirements(problems: Problems, path: str, requirements: Any,
                  operators: frozenset[str], rule: Rule) -> None:
    for index, requirement in enumerate(requirements or ()):
        if not isinstance(requirement, dict):
            continue
        where = f"{path}[{index}]"
        key = requirement.get("key")
        if not qualified_name_ok(key):
            problems.add(f"{where}.key", LABEL_KEY, f"{key!r} is not a valid key")
        operator = requirement.get("operator")
        values = requirement.get("values") or []
        if operator not in operators:
            problems.add(f"{where}.operator", rule, f"{operator!r} is not supported")
        elif (operator in ("In", "NotIn") and not values) or (
                operator in ("Exists", "DoesNotExist") and values) or (
                operator in ("Gt", "Lt") and (len(values) != 1 or not _integer(values[0]))):
            problems.add(f"{where}.values", SELECTOR_VALUES, f"{operator} with {values!r}")


def _integer(value: Any) -> bool:
    return type(value) is str and value.lstrip("-").isdigit()


def _node_term(problems: Problems, path: str, term: Any) -> None:
    if not isinstance(term, dict):
        return
    _requirements(problems, f"{path}.matchExpressions", term.get("matchExpressions"),
                  SELECTOR_OPERATORS, SELECTOR_OPERATOR)
    for index, field in enumerate(term.get("matchFields") or ()):
        if not isinstance(field, dict):
            continue
        if field.get("key") != "metadata.name" or field.get("operator") not in ("In", "NotIn") \
                or len(field.get("values") or ()) != 1:
            problems.add(f"{path}.matchFields[{index}]", MATCH_FIELDS,
                         f"{field.get('key')!r} {field.get('operator')!r}")


def _label_selector(problems: Problems, path: str, selector: Any) -> None:
    if not isinstance(selector, dict):
        return
    check_labels(problems, f"{path}.matchLabels", selector.get("matchLabels"))
    _requirements(problems, f"{path}.matchExpressions", selector.get("matchExpressions"),
                  LABEL_SELECTOR_OPERATORS, LABEL_SELECTOR_OPERATOR)


def _weight(problems: Problems, path: str, term: dict[str, Any]) -> None:
    weight = term.get("weight")
    if not int_in(weight, 1, 100):
        problems.add(f"{path}.weight", WEIGHT, f"{weight!r} is out of range")


def _pod_term(problems: Problems, path: str, term: Any) -> None:
    if not isinstance(term, dict):
        return
    if not qualified_name_ok(term.get("topologyKey")):
        problems.add(f"{path}.topologyKey", TOPOLOGY_KEY, f"{term.get('topologyKey')!r}")
    _label_selector(problems, f"{path}.labelSelector", term.get("labelSelector"))
    _label_selector(problems, f"{path}.namespaceSelector", term.get("namespaceSelector"))


def check_affinity(problems: Problems, path: str, affinity: Any) -> None:
    if not isinstance(affinity, dict):
        return
    node = affinity.get("nodeAffinity")
    if isinstance(node, dict):
        required = node.get("requiredDuringSchedulingIgnoredDuringExecution")
        if isinstance(required, dict):
            where = f"{path}.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
            terms = required.get("nodeSelectorTerms")
            if not terms:
                problems.add(f"{where}.nodeSelectorTerms", NODE_TERMS, "no terms")
            for index, term in enumerate(terms or ()):
                _node_term(problems, f"{where}.nodeSelectorTerms[{index}]", term)
        _preferred(problems, f"{path}.nodeAffinity", node, "preference", _node_term)
    for kind in ("podAffinity", "podAntiAffinity"):
        pod = affinity.get(kind)
        if not isinstance(pod, dict):
            continue
        where = f"{path}.{kind}.requiredDuringSchedulingIgnoredDuringExecution"
        for index, term in enumerate(pod.get("requiredDuringSchedulingIgnoredDuringExecution")
                                     or ()):
            _pod_term(problems, f"{where}[{index}]", term)
        _preferred(problems, f"{path}.{kind}", pod, "podAffinityTerm", _pod_term)


def _preferred(problems: Problems, path: str, affinity: dict[str, Any], inner: str,
               check_term: Callable[[Problems, str, Any], None]) -> None:
    """Weighted terms of ``preferredDuringSchedulingIgnoredDuringExecution``."""
    where = f"{path}.preferredDuringSchedulingIgnoredDuringExecution"
    for index, term in enumerate(affinity.get("preferredDuringSchedulingIgnoredDuringExecution")
                                 or ()):
        if isinstance(term, dict):
            _weight(problems, f"{where}[{index}]", term)
            check_term(problems, f"{where}[{index}].{inner}", term.get(inner))


def check_topology_spread(problems: Problems, path: str, constraints: Any) -> None:
    seen: set[tuple[Any, Any]] = set()
    for index, constraint in enumerate(constraints or ()):
        if not isinstance(constraint, dict):
            continue
        where = f"{path}[{index}]"
        skew = constraint.get("maxSkew")
        if not int_in(skew, 1, INT32_MAX):
            problems.add(f"{where}.maxSkew", MAX_SKEW, f"{skew!r} is not positive")
        key = constraint.get("topologyKey")
        if not key or type(key) is not str:  # any non-empty key (k8s ValidateTopologyKey)
            problems.add(f"{where}.topologyKey", SPREAD_KEY, f"{key!r} is empty")
        when = constraint.get("whenUnsatisfiable")
        if when not in UNSATISFIABLE:
            problems.add(f"{where}.whenUnsatisfiable", UNSATISFIABLE_RULE,
                         f"{when!r} is not supported")
        domains = constraint.get("minDomains")
        if domains is not None and (not int_in(domains, 1, INT32_MAX)
                                    or when != "DoNotSchedule"):
            problems.add(f"{where}.minDomains", MIN_DOMAINS, f"{domains!r} with {when!r}")
        for policy in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            value = constraint.get(policy)
            if value is not None and value not in INCLUSION_POLICIES:
                problems.add(f"{where}.{policy}", INCLUSION, f"{value!r} is not supported")
        _label_selector(problems, f"{where}.labelSelector", constraint.get("labelSelector"))
        if (key, when) in seen:
            problems.add(where, SPREAD_UNIQUE, f"{key!r}/{when!r} is repeated")
        seen.add((key, when))

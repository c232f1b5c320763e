"""``ConformanceSuite``: the conformance kit as pytest tests, subclassed once per plugin::

    # plugins/pytorch/tests/test_pytorch_conformance.py
    from podtemplate.testing import ConformanceSuite

    class TestPyTorchConformance(ConformanceSuite):
        task_type = "pytorch"

The sample task comes from the plugin's ``podtemplate_make_sample_task`` hook; override the
class-scoped fixture ``make_sample_task`` to return your own factory
``(pod_template, pod_template_name, role_templates) -> Task`` instead::

    @pytest.fixture(scope="class")
    @classmethod
    def make_sample_task(cls) -> SampleTaskFactory:
        return my_factory
 Each test reports
every failure at once, each naming plugin, role, field path and layer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import pytest

from ..conformance.declarations import declaration_findings
from ..conformance.duplicates import duplicate_findings
from ..conformance.kit import Kit, SampleTaskFactory
from ..conformance.pod_checks import (
    crd_findings,
    crd_missing_reason,
    determinism_findings,
    pod_findings,
    shape_findings,
)
from ..conformance.results import LAYER_NAMES, LAYERS, Finding
from ..conformance.scenarios import precedence_findings, role_findings

__all__ = ["ConformanceSuite"]


def _rendered(kit: Kit) -> Kit:
    """``kit``, once its plain sample task renders: a check of rendered pods has nothing
    to judge otherwise, and must not pass for that."""
    if kit.baseline.error is not None:
        pytest.fail(f"{kit.plugin}: nothing to check: the plain sample task does not "
                    f"render: {kit.baseline.error}", pytrace=False)
    return kit


def _fail_on(findings: Sequence[Finding], what: str) -> None:
    if findings:
        lines = "\n".join(f"  {finding}" for finding in findings)
        pytest.fail(f"{len(findings)} {what}:\n{lines}", pytrace=False)


class ConformanceSuite:
    """Conformance tests for the task type named by ``task_type``.

    Set ``extra_plugins`` to register plugin objects that are not installed (tests of the
    kit itself do). Declarations the kit honours, per role (:class:`~podtemplate.RoleSpec`):
    ``owned``/``unsupported`` :class:`~podtemplate.FieldDecl` exempt a field (``[*]`` in a
    path matches every container), and each is checked as its reason's prefix
    (``native:``, ``runtime:``, ``lost with``) and its ``when`` condition say
    (:class:`~podtemplate.FieldDecl`; docs/plugins.md, "Declarations").
    """

    task_type: ClassVar[str] = ""
    variant: ClassVar[str | None] = None
    extra_plugins: ClassVar[Sequence[object]] = ()

    @pytest.fixture(scope="class")
    @classmethod
    def conformance_task_type(cls) -> str:
        if not cls.task_type:
            pytest.fail(f"{cls.__name__} sets no task_type", pytrace=False)
        return cls.task_type

    @pytest.fixture(scope="class")
    @classmethod
    def conformance_variant(cls) -> str | None:
        """One of the task type's ``TaskType.variants`` (its platform settings), or None."""
        return cls.variant

    @pytest.fixture(scope="class")
    @classmethod
    def conformance_plugins(cls) -> Sequence[object]:
        return tuple(cls.extra_plugins)

    @pytest.fixture(scope="class")
    @classmethod
    def make_sample_task(cls) -> SampleTaskFactory | None:
        """None: the plugins' ``podtemplate_make_sample_task`` hook builds the task."""
        return None

    @pytest.fixture(scope="class")
    @classmethod
    def conformance(cls, conformance_task_type: str, conformance_plugins: Sequence[object],
                    make_sample_task: SampleTaskFactory | None,
                    conformance_variant: str | None) -> Kit:
        return Kit(conformance_task_type, extra_plugins=conformance_plugins,
                   make_sample_task=make_sample_task, variant=conformance_variant)

    @pytest.mark.parametrize("layer", LAYERS)
    def test_probe_reaches_every_role(self, conformance: Kit, layer: str) -> None:
        """Every probe field at ``layer`` reaches every role's pod, or is declared."""
        _, findings = conformance.probe_layer(layer)
        _fail_on(findings, f"probe failure(s) at the {LAYER_NAMES[layer]}")

    def test_higher_layer_wins(self, conformance: Kit) -> None:
        """Two layers set the same fields differently: the higher one's values arrive."""
        _fail_on(precedence_findings(conformance), "precedence failure(s)")

    def test_settings_and_roles(self, conformance: Kit) -> None:
        """Task and role settings and per-role templates: on their role, on no other."""
        _fail_on(role_findings(conformance), "settings or role failure(s)")

    def test_declarations_hold(self, conformance: Kit) -> None:
        """Owned fields hold what the operator layer sets (``runtime:`` ones are set or
        removed there, ``native:`` paths are in the CRD); unsupported ones are missing from
        the operator's CRD; conditional ones arrive where the condition does not hold;
        fields an operator reads elsewhere (Kubeflow's ``restartPolicy``) are there."""
        _fail_on(declaration_findings(conformance), "unfounded declaration(s)")

    def test_every_field_is_proven(self, conformance: Kit) -> None:
        """No field escapes the probe at every layer (e.g. shadowed by the sample task)."""
        _fail_on(_rendered(conformance).unproven(),
                 "field(s) the probe could not reach at any layer")

    def test_manifests_match_schema(self, conformance: Kit) -> None:
        """Custom resources validate against the operator's CRD; ``v1 Pod`` types are
        checked strictly by :meth:`test_pods_validate`."""
        reason = crd_missing_reason(conformance)
        if reason:  # no CRD, no green
            pytest.fail(f"{conformance.plugin}: unverified: {reason}", pytrace=False)
        _fail_on(crd_findings(_rendered(conformance)), "CRD violation(s)")

    def test_pods_validate(self, conformance: Kit) -> None:
        _fail_on(pod_findings(_rendered(conformance)), "pod(s) the API server would refuse")

    def test_primary_container_first(self, conformance: Kit) -> None:
        _fail_on(shape_findings(_rendered(conformance), "primary"), "primary container problem(s)")

    def test_no_duplicate_keys(self, conformance: Kit) -> None:
        _fail_on(duplicate_findings(_rendered(conformance)), "duplicate key(s)")

    def test_labels_on_every_pod(self, conformance: Kit) -> None:
        _fail_on(shape_findings(_rendered(conformance), "labels"), "missing system label(s)")

    def test_inputs_unmutated(self, conformance: Kit) -> None:
        _fail_on(_rendered(conformance).inputs_unmutated(), "mutated input(s)")

    def test_deterministic(self, conformance: Kit) -> None:
        _fail_on(determinism_findings(_rendered(conformance)), "non-deterministic render(s)")

"""Where the offline pod rules knowingly differ from the real API server: one table, read
by the server tier (``tests/kube/test_apiserver_judge.py``) and by
``scripts/gen_validation_table.py`` for ``docs/validation.md``.

A :class:`Deviation` names a case (its id, or a tag that generated pods carry: the corpus
change that made them), the kind of object it concerns (``Pod``, ``PodTemplate`` or
``both``) and why the difference is kept. The tier fails on a difference that no entry
explains, and on an entry that no longer matches a difference (so the table cannot go
stale).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Deviation", "DEVIATIONS", "deviation_for"]


@dataclass(frozen=True)
class Deviation:
    case: str
    kind: str  # "Pod", "PodTemplate" or "both"
    reason: str


DEVIATIONS: tuple[Deviation, ...] = (
    Deviation("gen-sidecar-image", "PodTemplate",
              "an image with leading or trailing spaces: the API server accepts it in a pod "
              "template (for backward compatibility) but refuses every Pod made from it; "
              "we refuse it where it is written"),
)


def deviation_for(case: str, tags: tuple[str, ...], kind: str) -> Deviation | None:
    """The entry that explains a difference on this case, if any."""
    for deviation in DEVIATIONS:
        if deviation.kind in (kind, "both") and (deviation.case == case
                                                  or deviation.case in tags):
            return deviation
    return None

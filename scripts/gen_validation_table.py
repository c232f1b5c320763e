#!/usr/bin/env python3
"""Write the table of agreement with the real API server into docs/validation.md.

Usage (from the repository root, after the server tier ran)::

    python scripts/gen_validation_table.py [build/apiserver-agreement.json] [--check]

The server tier (``tests/kube/test_apiserver_judge.py``) writes its results as JSON: one
outcome per pod and kind (Pod, PodTemplate), with the rule family of the field concerned,
both verdicts and whether they agree, and the table of documented deviations. This script
counts them per family and replaces the text between the ``agreement`` markers of
docs/validation.md. ``--check`` writes nothing and exits 1 when the table is stale.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "validation.md"
DEFAULT = ROOT / "build" / "apiserver-agreement.json"
START = "<!-- agreement:start (scripts/gen_validation_table.py) -->"
END = "<!-- agreement:end -->"


def table(results: dict[str, Any]) -> str:
    outcomes = results["outcomes"]
    explained = {d["case"] for d in results.get("deviations", [])}
    rows: dict[str, Counter[str]] = defaultdict(Counter)
    sources: Counter[str] = Counter()
    for outcome in outcomes:
        count = rows[outcome["family"]]
        count["cases"] += 1
        sources[outcome["source"]] += 1
        if outcome["agree"]:
            count["agree"] += 1
            continue
        known = outcome["id"] in explained or any(tag in explained
                                                  for tag in outcome.get("tags", ()))
        count["documented" if known else "unexplained"] += 1
        if outcome["ours_refused"] and not outcome["server_refused"]:
            count["refused valid"] += 1
        elif outcome["server_refused"] and not outcome["ours_refused"]:
            count["passed invalid"] += 1
        else:
            count["path differs"] += 1
    total: Counter[str] = Counter()
    for count in rows.values():
        total.update(count)
    columns = ("cases", "agree", "refused valid", "passed invalid", "path differs",
               "documented", "unexplained")
    lines = [f"Kubernetes {results['kubernetes']}: {len(outcomes)} verdicts "
             f"({', '.join(f'{n} {s}' for s, n in sorted(sources.items()))}; "
             "each pod as a Pod and as a PodTemplate).", "",
             "| rule family | " + " | ".join(columns) + " |",
             "| --- | " + " | ".join("---:" for _ in columns) + " |"]
    for family in sorted(rows):
        lines.append(f"| {family} | " + " | ".join(str(rows[family][c]) for c in columns)
                     + " |")
    lines.append("| **all** | " + " | ".join(f"**{total[c]}**" for c in columns) + " |")
    deviations = results.get("deviations", [])
    if deviations:
        lines += ["", "Documented deviations:", ""]
        lines += [f"- `{d['case']}` ({d['kind']}): {d['reason']}" for d in deviations]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    results = json.loads(args.results.read_text(encoding="utf-8"))
    text = DOC.read_text(encoding="utf-8")
    head, found, rest = text.partition(START)
    _, found_end, tail = rest.partition(END)
    if not found or not found_end:
        print(f"{DOC}: the agreement markers are missing", file=sys.stderr)
        return 2
    new = f"{head}{START}\n{table(results)}\n{END}{tail}"
    if args.check:
        return 0 if new == text else 1
    DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

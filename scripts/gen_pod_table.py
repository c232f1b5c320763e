#!/usr/bin/env python3
"""Ship the table of pod fields that podtemplate's fast validity proof and field-name
check walk (``core/src/podtemplate/schemas/kubernetes/pod-fields.json``), built from the
``kubernetes`` client's models, so a render need not import ``kubernetes.client``.

Usage (from the repository root, with the package installed)::

    python scripts/gen_pod_table.py [--check]

``--check`` writes nothing and exits 1 when the shipped file is stale.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from podtemplate.model._podcheck import TABLE_FILE, build_pod_template_spec_table, table_to_json

TARGET = Path(__file__).resolve().parents[1] / "core/src/podtemplate" / TABLE_FILE


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    check = parser.parse_args().check
    text = json.dumps(table_to_json(build_pod_template_spec_table()), sort_keys=True,
                      separators=(",", ":")) + "\n"
    if check:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET} is stale: run scripts/gen_pod_table.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

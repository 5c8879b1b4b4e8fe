"""Derive src/kubelite/server/data/column_docs.json from the Kubernetes 1.32 OpenAPI definitions.

Usage: python tools/gen_column_docs.py

A server-side Table's column descriptions are the documentation of API fields
(kubelite.server.printers.columns.Doc). The definitions holding them (kubernetes-validate's
_definitions.json) take ~8 ms to load, a tenth of what an embedded `get` costs; the product reads
the few descriptions its printers name from this extract instead, and falls back to the
definitions for one the extract does not hold. tests/server/test_column_docs.py checks that the
extract is what this script writes now: rerun it after adding a Doc column.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "src/kubelite/server/data/column_docs.json"


def documented_fields() -> set[tuple[str, str]]:
    """(definition, field) of every Doc column of the built-in printers and the default ones."""
    from kubelite.server.printers import columns
    from kubelite.server.printers.table import BUILTIN_PRINTERS

    found = [c for printer in BUILTIN_PRINTERS.values() for c in printer.columns]
    found += [value for value in vars(columns).values() if isinstance(value, columns.Column)]
    return {(c.description.definition, c.description.field) for c in found if isinstance(c.description, columns.Doc)}


def extract() -> str:
    from kubelite.schema.builtin import builtin_definitions

    definitions = builtin_definitions("1.32").definitions
    out: dict[str, dict[str, str]] = {}
    for definition, field in sorted(documented_fields()):
        node = definitions.get(definition) or {}
        prop = (node.get("properties") or {}).get(field) or {}
        out.setdefault(definition, {})[field] = prop.get("description", "")
    return json.dumps(out, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    OUT.write_text(extract(), encoding="utf-8")
    print(f"wrote {OUT}")

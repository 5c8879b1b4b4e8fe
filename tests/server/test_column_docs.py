"""The Table column descriptions extracted into server/data/column_docs.json (tools/gen_column_docs.py)
are the definitions' own: an extract older than the printers or the definitions fails here."""
from __future__ import annotations

from tools_support import load_tool

from kubelite.server.printers import columns


def test_extract_is_what_the_tool_writes_now():
    tool = load_tool("gen_column_docs")
    assert tool.OUT.read_text(encoding="utf-8") == tool.extract()


def test_every_doc_column_is_in_the_extract():
    extract = columns._extract()
    missing = [(d, f) for d, f in load_tool("gen_column_docs").documented_fields() if f not in extract.get(d, {})]
    assert missing == []


def test_a_doc_outside_the_extract_comes_from_the_definitions():
    from kubelite.schema.builtin import builtin_definitions

    doc = columns.Doc("io.k8s.api.core.v1.PodSpec", "hostname")
    assert "hostname" not in columns._extract().get(doc.definition, {})
    expected = builtin_definitions("1.32").definitions[doc.definition]["properties"]["hostname"]["description"]
    assert columns.describe(doc) == expected

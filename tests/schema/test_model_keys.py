"""Schema.field for keys that are not declared properties (a map's keys, a preserved object's
unknown fields): one schema serves them all, so that a long-running server does not keep one
for every label, annotation or data key it has seen."""
from __future__ import annotations

import tracemalloc

from kubelite.schema.builtin import for_kind
from kubelite.schema.model import ANY, MAP, PRIMITIVE, Schema


def test_every_label_key_has_the_same_schema():
    labels = for_kind("v1", "ConfigMap").field("metadata").field("labels")
    assert labels.type == MAP
    first = labels.field("app")
    assert first is not None and first.type == PRIMITIVE
    assert labels.field("app.kubernetes.io/name") is first


def test_keys_seen_do_not_accumulate():
    data = for_kind("v1", "ConfigMap").field("data")
    data.field("warm-up")
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        schemas = {id(data.field(f"key-{i}")) for i in range(20_000)}
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    assert len(schemas) == 1
    grown = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    assert grown < 256 * 1024, f"{grown} bytes kept for 20,000 keys"  # one Schema each: ~10 MB


def test_declared_properties_keep_their_own_schemas():
    meta = for_kind("v1", "ConfigMap").field("metadata")
    name, labels = meta.field("name"), meta.field("labels")
    assert name.type == PRIMITIVE and labels.type == MAP
    assert meta.field("name") is name
    assert meta.field("no-such-field") is None  # ObjectMeta takes no unknown fields


def test_unknown_fields_of_a_preserved_object_are_any():
    preserved = Schema(None, {"type": "object", "properties": {"spec": {"type": "string"}},
                              "x-kubernetes-preserve-unknown-fields": True})
    assert preserved.field("spec").type == PRIMITIVE
    other = preserved.field("anything")
    assert other.type == ANY and preserved.field("else") is other

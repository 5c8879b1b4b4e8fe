"""The built-in definitions' compact copy (no descriptions): what a patch reads of a type is the
same as from the full file, and the copy is only used while it matches the file it was made from."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from kubelite.schema import builtin, compact
from kubelite.schema.openapi import Definitions

FULL = builtin.builtin_definitions("1.32")
COMPACT = Definitions({name: compact.without_descriptions(node) for name, node in FULL.definitions.items()})
SOURCE = builtin._path("1.32")
FULL.name_for_kind("", "v1", "Pod")  # builds the kind index
KINDS = sorted(FULL._gvk)


def _shape(schema, depth: int, seen: set) -> tuple:
    """Everything a patch reads of a schema, its fields' (by name) included, down to `depth`."""
    own = (schema.name, schema.type, schema.patch_strategy, schema.merge_key, schema.list_type, schema.map_keys,
           schema.map_type, schema.preserve_unknown_fields, schema.embedded_resource, schema.int_or_string,
           schema.nullable)
    if depth == 0 or (schema.name and schema.name in seen):
        return own
    seen = seen | {schema.name} if schema.name else seen
    names = sorted((schema._node.get("properties") or {}))
    fields = tuple((n, _shape(schema.field(n), depth - 1, seen)) for n in names)
    items = _shape(schema.items(), depth - 1, seen) if schema.type == "list" else None
    return own, fields, items


@pytest.mark.parametrize("gvk", KINDS, ids=lambda k: "/".join(filter(None, k)))
def test_each_kind_reads_the_same_without_descriptions(gvk):
    group, version, kind = gvk
    api_version = f"{group}/{version}" if group else version
    full, small = FULL.for_kind(api_version, kind), COMPACT.for_kind(api_version, kind)
    assert _shape(small, 6, set()) == _shape(full, 6, set())


def test_descriptions_go_and_fields_named_description_stay():
    text = json.dumps(COMPACT.definitions)
    kept = [name for name, node in FULL.definitions.items() if "description" in (node.get("properties") or {})]
    assert kept, "the 1.32 definitions have fields named description"
    for name in kept:
        assert "description" in COMPACT.definitions[name]["properties"]
    assert len(text) < len(json.dumps(FULL.definitions)) / 3

    def descriptions(node) -> int:
        if isinstance(node, dict):
            own = isinstance(node.get("description"), str)
            return own + sum(descriptions(v) for k, v in node.items() if k != "properties") + sum(
                descriptions(v) for v in (node.get("properties") or {}).values())
        return sum(descriptions(v) for v in node) if isinstance(node, list) else 0
    assert descriptions(list(COMPACT.definitions.values())) == 0


def test_the_copy_is_used_only_while_it_matches_its_file(tmp_path, monkeypatch):
    monkeypatch.setenv("KUBELITE_HOME", str(tmp_path / "home"))
    assert compact.read(SOURCE) is None
    compact.write(SOURCE, FULL.definitions)
    assert compact.read(SOURCE) == COMPACT.definitions
    # another file at the same place (the package upgraded): its own size or time
    other = tmp_path / SOURCE.parent.name / SOURCE.name
    other.parent.mkdir()
    other.write_bytes(SOURCE.read_bytes())
    assert compact.read(other) is None
    cache = tmp_path / "home" / "cache" / "schema" / f"{SOURCE.parent.name}.json"
    assert cache.is_file()
    cache.write_text(cache.read_text()[:1000])  # cut short
    assert compact.read(SOURCE) is None


def test_a_home_that_cannot_be_written_is_no_error(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setenv("KUBELITE_HOME", str(blocked))  # a file: nothing can be made under it
    compact.write(SOURCE, FULL.definitions)
    assert compact.read(SOURCE) is None
    assert not [p for p in tmp_path.iterdir() if p.name != "file"]


def test_a_command_reads_the_copy_once_one_was_made(tmp_path):
    probe = ("from kubelite.schema import builtin, for_kind; "
             "s = for_kind('apps/v1', 'Deployment'); "
             "print(s.field('spec').field('template').field('spec').field('containers').merge_key, "
             "sorted(builtin._FULL), sorted(builtin._COMPACT))")
    env = dict(os.environ, KUBELITE_HOME=str(tmp_path), KUBELITE_KUBERNETES_VERSION="")
    first = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    again = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert first.stdout.split() == ["name", "['1.32']", "[]"]  # made from the full file
    assert again.stdout.split() == ["name", "[]", "['1.32']"]  # then read from the copy

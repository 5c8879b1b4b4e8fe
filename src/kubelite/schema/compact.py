"""The built-in definitions without their descriptions, kept as a cache file.

What a patch needs of a type is its shape and its patch metadata; the descriptions are for
people (kubectl explain, the served OpenAPI), and they are four fifths of the definitions file.
The copy names the file it was made from, with its size and modification time, and is used only
while those still match. Anything wrong with it (missing, unreadable, made from another file,
not writable) means reading the full file, as without a cache.
"""
from __future__ import annotations

import json
import os
import pathlib

FORMAT = 1  # changes whenever what the copy keeps changes


def read(source: pathlib.Path) -> dict | None:
    """The compact definitions made from `source`, or None when there is no usable copy."""
    try:
        identity = _identity(source)
        doc = json.loads(_cache_file(source).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("source") != identity or not isinstance(doc.get("definitions"), dict):
        return None
    return doc["definitions"]


def write(source: pathlib.Path, definitions: dict) -> None:
    """Keep the compact copy of `source`'s definitions (silently not, where it cannot be written)."""
    try:
        identity = _identity(source)
        path = _cache_file(source)
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError:
        return
    doc = {"source": identity, "definitions": {name: without_descriptions(node) for name, node in definitions.items()}}
    # written aside and renamed: a reader never sees half a file, two writers leave one whole one
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(doc, separators=(",", ":")))
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass


def without_descriptions(node):
    """A schema node without the descriptions of itself and of the schemas inside it (a field
    named "description" stays: only the keys that are schema keywords are looked at)."""
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key == "description" and isinstance(value, str):
            continue
        if key == "properties" and isinstance(value, dict):
            value = {name: without_descriptions(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties", "not"):
            value = without_descriptions(value)
        elif key in ("allOf", "anyOf", "oneOf") and isinstance(value, list):
            value = [without_descriptions(sub) for sub in value]
        out[key] = value
    return out


def _identity(source: pathlib.Path) -> list:
    st = source.stat()
    return [str(source), st.st_size, st.st_mtime_ns, FORMAT]


def _cache_file(source: pathlib.Path) -> pathlib.Path:
    from kubelite.home import kubelite_home

    return kubelite_home() / "cache" / "schema" / f"{source.parent.name}.json"

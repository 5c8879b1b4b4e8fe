"""Key order of built-in objects as Go's encoding/json writes them.

kube-apiserver and kubectl marshal typed objects from Go structs: keys come in struct declaration
order (embedded structs such as TypeMeta expanded in place) and Go maps (labels, resource lists,
schema properties...) come with sorted keys. Unstructured objects (custom resources) are Go maps
all the way down, so every key is sorted.

The layout of each struct is data (data/go_field_order.json, written by tools/gen_proto_fields.py
from the Kubernetes Go type declarations). Values whose type marshals itself (Time, Quantity,
RawExtension, FieldsV1...) and keys the struct does not declare keep their order; undeclared keys
follow the declared ones.

The functions return new dicts and lists for every struct and map level; scalar leaves and
self-marshalling values are shared with the input, not copied.
"""
from __future__ import annotations

import functools
import json
import os

META_PACKAGE = "k8s.io.apimachinery.pkg.apis.meta.v1"

# One struct's layout: key -> (position, element struct or None, is a Go map)
_Layout = dict[str, tuple[int, "str | None", bool]]


class _Tables:
    """The loaded data: group versions onto Go packages, and every struct's layout."""

    def __init__(self, groups: dict[str, str], types: dict[str, object]) -> None:
        self.groups = groups
        self.layouts: dict[str, _Layout] = _Layouts(types)

    def struct_for(self, api_version: object, kind: object) -> str | None:
        package = self.groups.get(api_version) if isinstance(api_version, str) else None
        if package is None or not isinstance(kind, str):
            return None
        # meta/v1 kinds (Status, Table, WatchEvent, ...) are served under every group version
        for candidate in (f"{package}.{kind}", f"{META_PACKAGE}.{kind}"):
            if candidate in self.layouts:
                return candidate
        return None


class _Layouts(dict):
    """Struct name -> layout, each built when first looked up: a command orders a few of the
    1,154 structs, and building them all was ~2 ms of every command that answers a built-in kind.
    `types` holds each struct's fields as a list, or as the JSON text of one (parsed when asked)."""

    def __init__(self, types: dict[str, object]) -> None:
        super().__init__()
        self._types = types

    def __contains__(self, name: object) -> bool:
        return name in self._types

    def __missing__(self, name: str) -> _Layout:
        fields = self._types[name]
        if isinstance(fields, bytes):
            fields = json.loads(fields)
        layout = {key: (i, ref, "m" in flags) for i, (key, ref, flags) in enumerate(fields)}
        self[name] = layout
        return layout


# The data file is one JSON document with each struct on a line of its own after _TYPES_START,
# so that a command parses the few structs it orders, not all 1,154 (~1 ms warm, ~3.5 ms at a
# command's start, of every embedded command that answers a built-in kind).
_TYPES_START = b',"types":{\n'


def dumps(document: dict) -> str:
    """The data file's text (tools/gen_proto_fields.py writes it): `document` as compact JSON
    with sorted keys, its "types" last, one struct per line."""
    head = json.dumps({k: v for k, v in document.items() if k != "types"}, separators=(",", ":"), sort_keys=True)
    types = document["types"]
    lines = (json.dumps({name: types[name]}, separators=(",", ":"))[1:-1] for name in sorted(types))
    return head[:-1] + _TYPES_START.decode() + ",\n".join(lines) + "\n}}\n"


def _load(raw: bytes) -> _Tables:
    head, found, body = raw.partition(_TYPES_START)
    if not found:  # any other layout of the same document
        document = json.loads(raw)
        return _Tables(document["groups"], document["types"])
    types = {}
    for line in body.split(b"\n")[:-2]:  # the last two: the closing braces, the final newline
        name, _, fields = line.partition(b'":')
        types[name[1:].decode()] = fields.rstrip(b",")
    return _Tables(json.loads(head + b"}")["groups"], types)


@functools.cache
def _tables() -> _Tables:
    # A plain read: importlib.resources brings tempfile, shutil and zipfile (~4 ms at every start)
    with open(os.path.join(os.path.dirname(__file__), "data", "go_field_order.json"), "rb") as f:
        return _load(f.read())


def struct_name(api_version: object, kind: object) -> str | None:
    """The Go struct ("<package>.<Kind>") a built-in apiVersion/kind is written from, if known."""
    return _tables().struct_for(api_version, kind)


def is_builtin(api_version: object, kind: object) -> bool:
    return struct_name(api_version, kind) is not None


def order(obj: object, api_version: object = None, kind: object = None) -> object:
    """``obj`` with its keys in the order Go marshals the built-in type ``api_version``/``kind``.

    ``api_version``/``kind`` default to the object's own. Objects of unknown kinds (custom
    resources, kinds the data does not hold) come back unchanged.
    """
    if isinstance(obj, dict):
        api_version = obj.get("apiVersion") if api_version is None else api_version
        kind = obj.get("kind") if kind is None else kind
    tables = _tables()
    name = tables.struct_for(api_version, kind)
    if name is None:
        return obj
    return _value(obj, name, False, tables.layouts)


def sorted_keys(value: object) -> object:
    """Go's encoding of an unstructured object: every map's keys sorted, at every depth."""
    if isinstance(value, dict):
        return {key: sorted_keys(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [sorted_keys(item) for item in value]
    return value


def as_served(value: object) -> object:
    """A response body in the order kube-apiserver writes it.

    Built-in kinds come from Go structs; other kinds (custom resources and their lists) are
    unstructured, written with sorted keys; a watch event wraps one such object. Anything else
    (version, discovery documents without a kind) keeps its order.
    """
    if not isinstance(value, dict):
        return value
    if "kind" in value and "apiVersion" in value:
        name = struct_name(value["apiVersion"], value["kind"])
        if name is not None:
            return _value(value, name, False, _tables().layouts)
        return sorted_keys(value)
    if value.keys() == {"type", "object"}:
        return {"type": value["type"], "object": as_served(value["object"])}
    return value


def _value(value: object, struct: str | None, is_map: bool, layouts: dict[str, _Layout]) -> object:
    if isinstance(value, list):
        return [_value(item, struct, is_map, layouts) for item in value]
    if not isinstance(value, dict):
        return value
    if is_map:
        if struct is None:
            return {key: value[key] for key in sorted(value)}
        return {key: _value(value[key], struct, False, layouts) for key in sorted(value)}
    if struct is None:
        return value
    return _struct(value, layouts[struct], layouts)


def _struct(value: dict, layout: _Layout, layouts: dict[str, _Layout]) -> dict:
    keys = tuple(value)
    known = _PLANS.get((id(layout), keys))
    plan = known[1] if known is not None else _plan(keys, layout)
    out = {}
    for key, ref, is_map in plan:
        item = value[key]
        out[key] = _value(item, ref, is_map, layouts) if (ref is not None or is_map) else item
    return out


# A struct's keys in Go's order, with what each holds, by the struct's layout and the keys as
# given: the objects of a kind come with the same few sets of keys in the same orders, and sorting
# each object's keys anew was most of the ordering of an answer. Each entry holds its layout, so
# that the layout's id names no other while the entry is kept.
_PLANS: dict[tuple, tuple] = {}
_PLANS_KEPT = 4096


def _plan(keys: tuple, layout: _Layout) -> tuple:
    declared = [key for key in keys if key in layout]
    declared.sort(key=lambda key: layout[key][0])
    plan = tuple((key, *layout[key][1:]) for key in declared) + \
        tuple((key, None, False) for key in keys if key not in layout)
    if len(_PLANS) >= _PLANS_KEPT:
        _PLANS.clear()
    _PLANS[(id(layout), keys)] = (layout, plan)
    return plan

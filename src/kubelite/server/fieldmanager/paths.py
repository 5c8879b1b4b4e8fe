"""Field paths and field sets, in the FieldsV1 spelling kube-apiserver stores in managedFields.

A path is a tuple of path elements, each kept in its FieldsV1 form:
  "f:<name>"   a field of a struct or a key of a map
  "k:<json>"   an item of a map-list, by its key fields (a JSON object, keys sorted)
  "v:<json>"   an item of a set-list, by its value
  "i:<n>"      an item of a list by position (lists of unknown item kind)
A field set is a Python set of such tuples; each tuple is a *member* (owned) path.
"""
from __future__ import annotations

import json
from functools import cmp_to_key, lru_cache

TYPE_CHECKING = False  # typing for annotations only: a write's first admission does without its import
if TYPE_CHECKING:
    from typing import Iterable, Iterator
Path = tuple
_KIND_ORDER = {"f": 0, "k": 1, "v": 2, "i": 3}


def go_json(value) -> str:
    """Compact JSON as Go's encoding/json writes it (HTML characters escaped)."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def field(name: str) -> str:
    return "f:" + name


def key_element(keys: dict) -> str:
    items = tuple(sorted(keys.items()))
    types = tuple(type(v) for _, v in items)
    if all(t in _CACHED_KEY_TYPES for t in types):
        return _key_element(items, types)
    return "k:" + go_json(dict(items))


# The same few keys (a container's name, a condition's type) name the items of every object of
# a kind. The types are part of the cache key: True and 1 are equal, their JSON is not (floats,
# -0.0 equal to 0.0, are not cached).
_CACHED_KEY_TYPES = frozenset({str, int, bool, type(None)})


@lru_cache(maxsize=4096)
def _key_element(items: tuple, types: tuple) -> str:
    return "k:" + go_json(dict(items))


def value_element(value) -> str:
    return "v:" + go_json(value)


# -- ordering (the order of structured-merge-diff's PathElement comparison) ---------------------

def _value_rank(v) -> tuple:
    if v is None:
        return (0,)
    if isinstance(v, bool):
        return (1, v)
    if isinstance(v, (int, float)):
        return (2, v)
    if isinstance(v, str):
        return (3, v)
    if isinstance(v, list):
        return (4, tuple(_value_rank(x) for x in v))
    return (5, tuple((k, _value_rank(x)) for k, x in sorted(v.items())))


@lru_cache(maxsize=4096)
def element_rank(pe: str) -> tuple:
    kind, body = pe[0], pe[2:]
    if kind == "f":
        return (0, body)
    if kind == "i":
        return (3, int(body))
    try:
        value = json.loads(body)
    except ValueError:
        return (_KIND_ORDER.get(kind, 4), body)
    if kind == "k" and isinstance(value, dict):
        return (1, tuple((k, _value_rank(v)) for k, v in sorted(value.items())))
    return (2, _value_rank(value))


def _compare(a: str, b: str) -> int:
    ra, rb = element_rank(a), element_rank(b)
    try:
        return (ra > rb) - (ra < rb)
    except TypeError:
        return (repr(ra) > repr(rb)) - (repr(ra) < repr(rb))


def _sorted_elements(elements) -> list:
    """Path elements in order: field names alone (the common case) sort as plain strings.
    Strings with one prefix are contiguous in string order: when the first and the last of the
    sorted elements are field names, all of them are."""
    elements = list(elements)
    ordered = sorted(elements)
    if not ordered or (ordered[0][:2] == "f:" and ordered[-1][:2] == "f:"):
        return ordered
    return sorted(elements, key=cmp_to_key(_compare))


# -- FieldsV1 ------------------------------------------------------------------------------------

_MEMBER = None  # a tree node's key marking that the path leading to it is itself a member


def encode(paths: Iterable[Path]) -> dict:
    """A field set as a FieldsV1 JSON object: nested elements, "." marking a member with children."""
    tree: dict = {}
    for path in paths:
        node = tree
        for pe in path:
            child = node.get(pe)
            if child is None:
                child = node[pe] = {}
            node = child
        node[_MEMBER] = True
    return _ordered_tree(tree, top=True)


def ordered_tree(tree: dict) -> dict:
    """The FieldsV1 object of a tree as encode builds it (a member's node holds None: True);
    the tree is used up."""
    return _ordered_tree(tree, top=True)


def _ordered_tree(node: dict, top: bool = False) -> dict:
    out: dict = {}
    member = node.pop(_MEMBER, False)
    if node and member and not top:
        out["."] = {}
    for pe in _sorted_elements(node) if len(node) > 1 else node:
        child = node[pe]
        # Most members are leaves: their encoding is {} without a walk.
        out[pe] = {} if len(child) == 1 and _MEMBER in child else _ordered_tree(child)
    return out


def decode(fields: dict) -> set:
    """The member paths of a FieldsV1 object."""
    out: set = set()
    _decode_into(fields if isinstance(fields, dict) else {}, (), out)
    return out


def _decode_into(node: dict, prefix: Path, out: set) -> None:
    for pe, child in node.items():
        if pe == ".":
            out.add(prefix)
            continue
        path = prefix + (pe,)
        if not child:
            out.add(path)
        elif isinstance(child, dict):
            _decode_into(child, path, out)


# -- sets ----------------------------------------------------------------------------------------

def with_ancestors(paths: Iterable[Path]) -> set:
    out: set = set()
    for path in paths:
        for i in range(1, len(path) + 1):
            out.add(path[:i])
    return out


def under(paths: Iterable[Path], prefix: Path) -> set:
    n = len(prefix)
    return {p for p in paths if p[:n] == prefix}


def iterate(paths: Iterable[Path]) -> Iterator[Path]:
    """Paths in structured-merge-diff's iteration order: at each level the members, then the
    subtrees, each in element order."""
    tree: dict = {}
    members: set = set(paths)
    for path in members:
        node = tree
        for pe in path:
            node = node.setdefault(pe, {})
    yield from _walk(tree, (), members)


def _walk(node: dict, prefix: Path, members: set) -> Iterator[Path]:
    keys = _sorted_elements(node)
    for pe in keys:
        if prefix + (pe,) in members:
            yield prefix + (pe,)
    for pe in keys:
        if node[pe]:
            yield from _walk(node[pe], prefix + (pe,), members)


def to_string(path: Path) -> str:
    """A path as kube-apiserver prints it in conflicts: .spec.containers[name="app"].image"""
    out = []
    for pe in path:
        kind, body = pe[0], pe[2:]
        if kind == "f":
            out.append("." + body)
        elif kind == "k":
            try:
                keys = json.loads(body)
                out.append("[" + ",".join(f"{k}={go_json(v)}" for k, v in keys.items()) + "]")
            except ValueError:
                out.append("[" + body + "]")
        elif kind == "v":
            out.append("[=" + body + "]")
        else:
            out.append("[" + body + "]")
    return "".join(out)

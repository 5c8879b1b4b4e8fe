"""Schema-driven walks over objects, as structured-merge-diff does them: the field set a value
sets, the comparison of two values, the merge of an applied configuration into a live object,
and the removal of paths.

The schema is a kubelite.schema Schema node (or None when nothing is known: maps are then
granular, lists atomic). Lists are atomic, sets (items by value) or maps (items by key
fields) from x-kubernetes-list-type, else from the built-in patch strategy (merge + merge key
= map, merge alone = set); maps and structs are atomic with x-kubernetes-map-type: atomic.
"""
from __future__ import annotations

from kubelite.jsoncopy import clone
from functools import lru_cache

from kubelite.server.fieldmanager import paths as fp

MISSING = object()
SCALAR, STRUCT, MAP, LIST = "scalar", "struct", "map", "list"


class ValueMismatch(ValueError):
    """A value that does not fit the schema (kube-apiserver: "failed to create typed ... object")."""

    def __init__(self, path: tuple, message: str):
        super().__init__(f"{fp.to_string(path)}: {message}")
        self.path = path


@lru_cache(maxsize=1)
def object_meta():
    from kubelite.schema import builtin_definitions

    try:
        return builtin_definitions().schema("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
    except Exception:
        return None


class Root:
    """The top of an object: its schema, with ObjectMeta for `metadata` whatever the schema says."""

    def __init__(self, schema):
        self.schema = schema

    def child(self, key: str):
        if key == "metadata":
            return object_meta()
        if self.schema is None:
            return None
        return self.schema.field(key)


# -- what a schema node says about a value ------------------------------------------------------

def shape(s, value) -> tuple[str, bool]:
    """(kind, atomic) of `value` under schema node `s`."""
    if isinstance(s, Root):
        return STRUCT, False
    t = getattr(s, "type", "any")
    if t == "object":
        return STRUCT, s.map_type == "atomic"
    if t == "map":
        return MAP, s.map_type == "atomic"
    if t == "list":
        return LIST, _list_type(s) == "atomic"
    if t == "primitive":
        return SCALAR, True
    # Nothing known: deduced from the value.
    if isinstance(value, dict):
        return MAP, False
    if isinstance(value, list):
        return LIST, True
    return SCALAR, True


def _list_type(s) -> str:
    if s.list_type:
        return s.list_type
    if "merge" in s.patch_strategy:
        return "map" if s.merge_key else "set"
    return "atomic"


def _map_keys(s) -> tuple:
    if s.map_keys:
        return s.map_keys
    return (s.merge_key,) if s.merge_key else ()


def child_schema(s, key: str):
    if isinstance(s, Root):
        return s.child(key)
    if s is None:
        return None
    return s.field(key)


def is_struct_field(s, key: str) -> bool:
    if isinstance(s, Root):
        return True
    return getattr(s, "type", None) == "object" and key in s.properties


def item_schema(s):
    return s.items() if s is not None and not isinstance(s, Root) else None


def item_element(s, item, index: int, path: tuple) -> str:
    """The path element naming a list item: k:{keys} in a map-list, v:value in a set."""
    kind = _list_type(s) if s is not None else "atomic"
    if kind == "set":
        return fp.value_element(item)
    if kind == "map":
        keys = {}
        items = item_schema(s)
        for name in _map_keys(s):
            if isinstance(item, dict) and name in item:
                keys[name] = item[name]
                continue
            default = None
            sub = items.field(name) if items is not None else None
            if sub is not None:
                default = sub.node.get("default")
            if default is None:
                default = _KEY_DEFAULTS.get(name)
            if default is None:
                raise ValueMismatch(path, f'associative list with keys has an element that omits key field "{name}" '
                                       "(and doesn't have default value)")
            keys[name] = default
        return fp.key_element(keys)
    return f"i:{index}"


# Defaults of map-list keys the published OpenAPI leaves out (ports' protocol is TCP).
_KEY_DEFAULTS = {"protocol": "TCP"}


def _items(s, values: list, path: tuple, allow_duplicates: bool) -> list[tuple[str, object]]:
    out, seen = [], set()
    for i, item in enumerate(values):
        pe = item_element(s, item, i, path)
        if pe in seen and not allow_duplicates:
            raise ValueMismatch(path, f"duplicate entries for key {fp.to_string((pe,))}")
        seen.add(pe)
        out.append((pe, item))
    return out


# -- the field set a value sets (an applier's ownership) -----------------------------------------

def field_set(obj: dict, schema, check_types: bool = False) -> set:
    out: set = set()
    _set_of(obj, Root(schema), (), out, check_types)
    return out


def _set_of(value, s, path: tuple, out: set, check: bool) -> None:
    kind, atomic = shape(s, value)
    if check:
        _check_type(s, value, path)
    if kind == SCALAR or atomic:
        if path:
            out.add(path)
        return
    if kind == LIST:
        if not isinstance(value, list):
            return
        items = item_schema(s)
        for pe, item in _items(s, value, path, allow_duplicates=False):
            _set_of(item, items, path + (pe,), out, check)
            out.add(path + (pe,))
        return
    if not isinstance(value, dict):
        if path:
            out.add(path)
        return
    for key, val in value.items():
        child = path + (fp.field(key),)
        sub = child_schema(s, key)
        if check and sub is None and _closed_struct(s) and not (isinstance(s, Root) and key in _TYPE_META):
            raise ValueMismatch(child, "field not declared in schema")
        _set_of(val, sub, child, out, check)
        if val is None or (isinstance(val, dict) and not val) or not is_struct_field(s, key):
            out.add(child)


_TYPE_META = ("apiVersion", "kind", "metadata")


def _closed_struct(s) -> bool:
    if isinstance(s, Root):
        return s.schema is not None and getattr(s.schema, "type", None) == "object" \
            and not s.schema.preserve_unknown_fields
    return getattr(s, "type", None) == "object" and not s.preserve_unknown_fields


def _check_type(s, value, path: tuple) -> None:
    if s is None or isinstance(s, Root) or value is None:
        return
    if s.type == "primitive" and not s.int_or_string:
        want = s.node.get("type")
        if isinstance(want, list):
            want = next((t for t in want if t != "null"), None)
        ok = {"string": isinstance(value, str), "boolean": isinstance(value, bool),
              "integer": isinstance(value, int) and not isinstance(value, bool),
              "number": isinstance(value, (int, float)) and not isinstance(value, bool)}.get(want, True)
        if not ok:
            raise ValueMismatch(path, f"expected {want}, got &value.valueUnstructured{{Value:{_go_value(value)}}}")


def _go_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# -- comparison (what an Update changed) ---------------------------------------------------------

class Comparison:
    __slots__ = ("added", "modified", "removed")

    def __init__(self):
        self.added: set = set()
        self.modified: set = set()
        self.removed: set = set()

    @property
    def changed(self) -> set:
        return self.added | self.modified

    def same(self) -> bool:
        return not (self.added or self.modified or self.removed)


def compare(old: dict, new: dict, schema) -> Comparison:
    result = Comparison()
    _compare(old, new, Root(schema), (), result, top=True)
    return result


def _empty(v) -> bool:
    return v is MISSING or v is None or (isinstance(v, (dict, list)) and not v)


def _compare(lhs, rhs, s, path: tuple, res: Comparison, top: bool = False) -> None:
    if isinstance(lhs, (dict, list)) and lhs == rhs:
        return  # an unchanged subtree (most of an update): nothing to walk
    if lhs is MISSING and not top:
        _one_sided(rhs, s, path, res.added)
        return
    if rhs is MISSING and not top:
        _one_sided(lhs, s, path, res.removed)
        return
    kind, atomic = shape(s, rhs if rhs is not MISSING else lhs)
    leafy = kind == SCALAR or atomic or (_empty(lhs) and _empty(rhs)) \
        or not _container_fits(kind, lhs) or not _container_fits(kind, rhs)
    if leafy:
        _leaf(lhs, rhs, path, res)
        return
    if kind == LIST:
        items = item_schema(s)
        left = dict(_items(s, lhs, path, True)) if isinstance(lhs, list) else {}
        right = dict(_items(s, rhs, path, True)) if isinstance(rhs, list) else {}
        for pe in list(left) + [pe for pe in right if pe not in left]:
            _compare(left.get(pe, MISSING), right.get(pe, MISSING), items, path + (pe,), res)
    else:
        left = lhs if isinstance(lhs, dict) else {}
        right = rhs if isinstance(rhs, dict) else {}
        added, removed = res.added, res.removed
        for key in list(left) + [k for k in right if k not in left] if left else right:
            before, after = left.get(key, MISSING), right.get(key, MISSING)
            child = path + ("f:" + key,)
            if isinstance(before, (dict, list)) or isinstance(after, (dict, list)):
                # One side missing: all of the other is added or removed (what _compare would
                # call, without the call).
                if before is MISSING:
                    _one_sided(after, child_schema(s, key), child, added)
                elif after is MISSING:
                    _one_sided(before, child_schema(s, key), child, removed)
                else:
                    _compare(before, after, child_schema(s, key), child, res)
            # Two scalars are a leaf whatever the schema says: no walk (_leaf, without the call:
            # most of a created object's fields come here).
            elif before is MISSING:
                added.add(child)
            elif after is MISSING:
                removed.add(child)
            elif before != after or type(before) is not type(after):
                res.modified.add(child)
    if not top:
        if lhs is MISSING:
            res.added.add(path)
        elif rhs is MISSING:
            res.removed.add(path)


def changed_tree(old: dict, new: dict, schema) -> dict:
    """compare(old, new, schema).changed as paths.encode holds a set before it orders it: a tree
    of path elements, None: True in the node of each member. What a create records (nearly all
    of the object is new), without a tuple spelled for each path and a second walk to nest them.
    Raises ValueMismatch where compare would (its path may differ)."""
    tree: dict = {}
    _changed(old, new, Root(schema), tree, top=True)
    return tree


def _changed(lhs, rhs, s, node: dict, top: bool = False) -> None:
    # _compare's walk, keeping added and modified alone; a child's node is put in `node` only if
    # something is in it, as a set holds no path with nothing under it.
    if isinstance(lhs, (dict, list)) and lhs == rhs:
        return
    if lhs is MISSING and not top:
        _added(rhs, s, node)
        return
    if rhs is MISSING and not top:
        return  # removed
    kind, atomic = shape(s, rhs if rhs is not MISSING else lhs)
    leafy = kind == SCALAR or atomic or (_empty(lhs) and _empty(rhs)) \
        or not _container_fits(kind, lhs) or not _container_fits(kind, rhs)
    if leafy:
        if lhs is MISSING or (rhs is not MISSING and (lhs != rhs or type(lhs) is not type(rhs))):
            node[None] = True
        return
    if kind == LIST:
        items = item_schema(s)
        left = dict(_items(s, lhs, (), True)) if isinstance(lhs, list) else {}
        right = dict(_items(s, rhs, (), True)) if isinstance(rhs, list) else {}
        for pe in list(left) + [pe for pe in right if pe not in left]:
            after = right.get(pe, MISSING)
            if after is not MISSING:
                child: dict = {}
                _changed(left.get(pe, MISSING), after, items, child)
                if child:
                    node[pe] = child
        return
    left = lhs if isinstance(lhs, dict) else {}
    right = rhs if isinstance(rhs, dict) else {}
    for key in list(left) + [k for k in right if k not in left] if left else right:
        after = right.get(key, MISSING)
        if after is MISSING:
            continue  # removed
        before = left.get(key, MISSING)
        if isinstance(before, (dict, list)) or isinstance(after, (dict, list)):
            child = {}
            if before is MISSING:
                _added(after, child_schema(s, key), child)
            else:
                _changed(before, after, child_schema(s, key), child)
            if child:
                node["f:" + key] = child
        elif before is MISSING or before != after or type(before) is not type(after):
            node["f:" + key] = {None: True}


def _added(value, s, node: dict) -> None:
    """_one_sided's walk into a tree: `node` (and all under it) added. Items of a list that share
    an element share its node, as their paths are one in a set."""
    node[None] = True
    kind, atomic = shape(s, value)
    if kind == SCALAR or atomic or not value:
        return
    if kind == LIST:
        if isinstance(value, list):
            items = item_schema(s)
            for pe, item in _items(s, value, (), True):
                child = node.get(pe)
                if child is None:
                    child = node[pe] = {}
                _added(item, items, child)
        return
    if isinstance(value, dict):
        for key, val in value.items():
            pe = "f:" + key
            child = node.get(pe)
            if child is None:
                child = node[pe] = {}
            if isinstance(val, (dict, list)):
                _added(val, child_schema(s, key), child)
            else:  # a leaf whatever the schema says
                child[None] = True


def _leaf(lhs, rhs, path: tuple, res: Comparison) -> None:
    """A leaf's change: added, removed or modified (its values are not walked)."""
    if lhs is MISSING:
        res.added.add(path)
    elif rhs is MISSING:
        res.removed.add(path)
    elif lhs != rhs or type(lhs) is not type(rhs):
        res.modified.add(path)


def _one_sided(value, s, path: tuple, out: set) -> None:
    """A value present on one side only: it and everything under it are added (or removed)."""
    out.add(path)
    kind, atomic = shape(s, value)
    if kind == SCALAR or atomic or not value:
        return
    if kind == LIST:
        if isinstance(value, list):
            items = item_schema(s)
            for pe, item in _items(s, value, path, True):
                _one_sided(item, items, path + (pe,), out)
        return
    if isinstance(value, dict):
        for key, val in value.items():
            if isinstance(val, (dict, list)):
                _one_sided(val, child_schema(s, key), path + ("f:" + key,), out)
            else:  # a leaf whatever the schema says
                out.add(path + ("f:" + key,))


def _container_fits(kind: str, v) -> bool:
    if v is MISSING or v is None:
        return True
    if kind == LIST:
        return isinstance(v, list)
    return isinstance(v, dict)


# -- merge (an applied configuration over the live object) ---------------------------------------

def merge(live: dict, config: dict, schema) -> dict:
    return _merge(live, config, Root(schema), ())


def _merge(lhs, rhs, s, path: tuple):
    if rhs is MISSING:
        return lhs
    if lhs is MISSING or lhs is None:
        return clone(rhs)
    kind, atomic = shape(s, rhs)
    if kind == SCALAR or atomic or rhs is None:
        return clone(rhs)
    if kind == LIST:
        if not isinstance(lhs, list) or not isinstance(rhs, list):
            return clone(rhs)
        return _merge_list(lhs, rhs, s, path)
    if not isinstance(lhs, dict) or not isinstance(rhs, dict):
        return clone(rhs)
    out = dict(lhs)
    for key, value in rhs.items():
        out[key] = _merge(lhs.get(key, MISSING), value, child_schema(s, key), path + (fp.field(key),))
    return out


def _merge_list(lhs: list, rhs: list, s, path: tuple) -> list:
    """Live order, with the applied items placed where the applied list puts them relative to the
    items both lists share (structured-merge-diff's ordering)."""
    items = item_schema(s)
    left = _items(s, lhs, path, True)
    right = _items(s, rhs, path, False)
    left_map = dict(left)
    right_map = dict(right)
    shared = [pe for pe, _ in right if pe in left_map]
    next_shared = shared.pop(0) if shared else None
    done: set = set()
    out = []
    li = ri = 0
    while li < len(left) or ri < len(right):
        if li < len(left) and ri < len(right):
            pe = left[li][0]
            if pe == right[ri][0]:
                done.add(pe)
                out.append(_merge(left_map[pe], right_map[pe], items, path + (pe,)))
                li += 1
                ri += 1
                next_shared = shared.pop(0) if shared else None
                continue
            if pe in right_map and next_shared is not None and next_shared != pe:
                li += 1
                continue
        if li < len(left):
            pe, item = left[li]
            if pe not in right_map:
                out.append(item)
                li += 1
                continue
            if pe in done:
                li += 1
        if ri < len(right):
            pe = right[ri][0]
            done.add(pe)
            out.append(_merge(left_map.get(pe, MISSING), right_map[pe], items, path + (pe,)))
            ri += 1
            if next_shared is not None and next_shared == pe:
                next_shared = shared.pop(0) if shared else None
    return out


# -- nulls ------------------------------------------------------------------------------------------

def settle_nulls(obj: dict, schema, custom: bool) -> dict:
    """Nulls an applied configuration left, as decoding into the stored type treats them: a
    built-in map of strings keeps the key with "" (Go's zero value), other fields go; a custom
    resource keeps a null only where its schema says nullable."""
    return _settle(obj, Root(schema), custom)


def _is_string(s) -> bool:
    if getattr(s, "type", None) != "primitive":
        return False
    declared = s.node.get("type")
    return declared == "string" or (isinstance(declared, list) and "string" in declared)


def _settle(value, s, custom: bool):
    kind, atomic = shape(s, value)
    if isinstance(value, list) and kind == LIST:
        items = item_schema(s)
        return [_settle(v, items, custom) for v in value if v is not None]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, val in value.items():
        sub = child_schema(s, key)
        if val is None:
            if not custom and kind == MAP and _is_string(sub):
                out[key] = ""
            elif custom and getattr(sub, "nullable", False):
                out[key] = None
            continue
        out[key] = _settle(val, sub, custom)
    return out


# -- removal ---------------------------------------------------------------------------------------

def remove(obj: dict, doomed: set, schema) -> dict:
    """A copy of `obj` without the subtrees at the `doomed` paths."""
    out = clone(obj)
    for path in sorted(doomed, key=len):
        _remove(out, path, Root(schema))
    return out


def _remove(node, path: tuple, s) -> None:
    parent, ps = node, s
    for depth, pe in enumerate(path):
        last = depth == len(path) - 1
        if pe.startswith("f:"):
            if not isinstance(parent, dict) or pe[2:] not in parent:
                return
            if last:
                del parent[pe[2:]]
                return
            parent, ps = parent[pe[2:]], child_schema(ps, pe[2:])
            continue
        if not isinstance(parent, list):
            return
        index = None
        for i, item in enumerate(parent):
            try:
                if item_element(ps, item, i, path[:depth]) == pe:
                    index = i
                    break
            except ValueMismatch:
                continue
        if index is None:
            return
        if last:
            del parent[index]
            return
        parent, ps = parent[index], item_schema(ps)

"""JSON merge patch as gopkg.in/evanphx/json-patch.v4 (v4.12.0) implements it: MergePatch (what
`kubectl patch --type merge` and kube-apiserver run) and CreateMergePatch (the diff behind
apimachinery's three-way JSON merge patch). Written from a reading of that library's behaviour.

How MergePatch departs from RFC 7386:
- the top-level patch must be an object or an array: null gives "Invalid JSON Patch", as does
  a string, number or boolean; a null document gives "Invalid JSON Document";
- a value the patch adds where the document has nothing (or null, or a non-object) is stripped
  of nulls all the way down, inside arrays too ({"a": [{"b": null}]} adds [{}]); an array
  patch at the top is stripped the same way; an array replacing an existing object is not.
"""
from __future__ import annotations

from kubelite.patch import PatchError
from kubelite.patch._jsonvalue import deep_copy, is_number, json_equal, same_kind

INVALID_DOCUMENT = "Invalid JSON Document"
INVALID_PATCH = "Invalid JSON Patch"


def apply(doc: object, patch: object) -> object:
    if doc is None:
        raise PatchError(INVALID_DOCUMENT)
    if patch is None:
        raise PatchError(INVALID_PATCH)
    if isinstance(patch, dict) and isinstance(doc, dict):
        doc = deep_copy(doc)
        merge_docs(doc, deep_copy(patch))
        return doc
    if isinstance(patch, (dict, list)):
        return prune_nulls(deep_copy(patch))
    raise PatchError(INVALID_PATCH)


def merge_docs(doc: dict, patch: dict) -> None:
    """Merge `patch` into `doc` in place; both are objects."""
    for key, value in patch.items():
        if value is None:
            doc.pop(key, None)
        elif doc.get(key) is None:
            doc[key] = prune_nulls(value)
        else:
            doc[key] = _merge(doc[key], value)


def _merge(current: object, patch: object) -> object:
    if not isinstance(current, dict):
        return prune_nulls(patch)
    if not isinstance(patch, dict):
        return patch
    merge_docs(current, patch)
    return current


def prune_nulls(value: object) -> object:
    """Drop null members of objects at every depth (array elements that are null stay)."""
    if isinstance(value, dict):
        for key in [k for k, v in value.items() if v is None]:
            del value[key]
        for child in value.values():
            prune_nulls(child)
    elif isinstance(value, list):
        for child in value:
            if child is not None:
                prune_nulls(child)
    return value


def create(original: object, modified: object) -> dict:
    """CreateMergePatch for two objects: the diff, with removed members as nulls."""
    if not isinstance(original, dict) or not isinstance(modified, dict):
        raise PatchError(INVALID_DOCUMENT)
    return _diff(original, modified)


def _diff(a: dict, b: dict) -> dict:
    into: dict = {}
    for key, new in b.items():
        if key not in a:
            into[key] = deep_copy(new)
            continue
        old = a[key]
        if not same_kind(old, new):
            into[key] = deep_copy(new)
        elif isinstance(old, dict):
            nested = _diff(old, new)
            if nested:
                into[key] = nested
        elif old is not None and not json_equal(old, new):
            into[key] = deep_copy(new)
    for key in a:
        if key not in b:
            into[key] = None
    return into


def has_conflicts(left: object, right: object) -> bool:
    """mergepatch.HasConflicts: do two patches set a shared key to different values?"""
    if isinstance(left, dict):
        if not isinstance(right, dict):
            return True
        return any(key in right and has_conflicts(value, right[key])
                   for key, value in left.items())
    if isinstance(left, list):
        if not isinstance(right, list) or len(left) != len(right):
            return True
        return any(has_conflicts(x, y) for x, y in zip(left, right))
    # Go's reflect.DeepEqual: same dynamic type and value (all JSON numbers are float64 there).
    if is_number(left) and is_number(right):
        return left != right
    return type(left) is not type(right) or left != right

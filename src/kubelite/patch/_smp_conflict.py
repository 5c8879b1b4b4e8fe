"""Conflict detection for three-way patches (apimachinery's MergingMapsHaveConflicts)."""
from __future__ import annotations

TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Any

from kubelite.patch._smp_go import deep_equal, fmt_s, fmt_v
from kubelite.patch._smp_meta import (
    DIRECTIVE,
    MERGE,
    REPLACE,
    RETAIN_KEYS_DIRECTIVE,
    dedupe_and_sort_scalars,
    element_kind,
    fail,
    join,
    lookup_slice,
    lookup_struct,
)


def have_conflicts(left: dict, right: dict, schema: Any) -> bool:
    """True when the two patches change a common field in different ways."""
    return _values_conflict(left, right, schema, "", "", "")


def _values_conflict(left: Any, right: Any, schema: Any, strategy: str, merge_key: str, path: str) -> bool:
    if isinstance(left, dict):
        if not isinstance(right, dict):
            return True
        in_left, in_right = DIRECTIVE in left, DIRECTIVE in right
        if in_left or in_right:
            if in_left != in_right:
                return True
            if not deep_equal(left[DIRECTIVE], right[DIRECTIVE]):
                return True
        if strategy == REPLACE:
            return False
        return _maps_conflict(left, right, schema, path)
    if isinstance(left, list):
        if not isinstance(right, list):
            return True
        return _lists_conflict(left, right, schema, strategy, merge_key, path)
    return not deep_equal(left, right)


def _maps_conflict(left: dict, right: dict, schema: Any, path: str) -> bool:
    for key, lv in left.items():
        if key in (DIRECTIVE, RETAIN_KEYS_DIRECTIVE) or key not in right:
            continue
        sub, strategy, merge_key = None, "", ""
        if isinstance(lv, list):
            meta = lookup_slice(schema, key, path)
            sub, strategy, merge_key = meta.schema, meta.strategy, meta.merge_key
        elif isinstance(lv, dict):
            meta = lookup_struct(schema, key, path)
            sub, strategy, merge_key = meta.schema, meta.strategy, meta.merge_key
        if _values_conflict(lv, right[key], sub, strategy, merge_key, join(path, key)):
            return True
    return False


def _lists_conflict(left: list, right: list, schema: Any, strategy: str, merge_key: str, path: str) -> bool:
    kind = element_kind(path, left, right)
    if strategy == MERGE:
        if kind != "map":
            return False  # merging lists of scalars never conflict
        lmap = _by_merge_key(left, merge_key, path)
        rmap = _by_merge_key(right, merge_key, path)
        for k, lv in lmap.items():
            if k in rmap and _values_conflict(lv, rmap[k], schema, "", "", f"{path}[{k}]"):
                return True
        return False
    if len(left) != len(right):
        return True
    if kind != "map":
        left, right = dedupe_and_sort_scalars(left), dedupe_and_sort_scalars(right)
    return any(_values_conflict(a, b, schema, "", "", path) for a, b in zip(left, right))


def _by_merge_key(items: list, merge_key: str, path: str) -> dict:
    out = {}
    for v in items:
        if not isinstance(v, dict):
            raise fail(f"invalid element type in merging list:{fmt_v(items)}", path)
        if merge_key not in v:
            raise fail(f"cannot find merge key `{merge_key}` in merging list element:{fmt_v(v)}", path)
        out[fmt_s(v[merge_key])] = v
    return out

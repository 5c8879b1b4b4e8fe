"""Applying a strategic merge patch to a document (apimachinery's mergeMap family).

The same code merges two patches when a three-way patch is built; `MergeOptions` says which.
Like apimachinery, it updates `original` in place and may consume `patch`: callers pass copies.
"""
from __future__ import annotations

from collections import namedtuple

TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Any

from kubelite.patch._smp_go import decoded_capacity, deep_equal, dedupe_in_place, fmt_s, fmt_v, kind_of, scalar_key
from kubelite.patch._smp_meta import (
    BAD_PRIMITIVE_LIST_FORMAT,
    BAD_RETAIN_KEYS_FORMAT,
    BAD_SET_ORDER_FORMAT,
    DELETE,
    DELETE_FROM_PRIMITIVE_LIST,
    DIRECTIVE,
    MERGE,
    REPLACE,
    RETAIN_KEYS_DIRECTIVE,
    SET_ELEMENT_ORDER,
    bad_arg_type,
    element_kind,
    fail,
    find_by_key,
    join,
    lookup_slice,
    lookup_struct,
    no_merge_key,
    normalize_element_order,
    split_deletions,
)

SLICE_TYPE = "[]interface {}"
MAP_TYPE = "map[string]interface {}"


# merge_parallel_list: True when applying, False when merging two patches
MergeOptions = namedtuple("MergeOptions", ("merge_parallel_list", "ignore_unmatched_nulls"))


APPLY = MergeOptions(True, True)
COMBINE = MergeOptions(False, False)


def merge_map(original: dict | None, patch: dict, schema: Any, opts: MergeOptions, path: str = "") -> dict:
    if DIRECTIVE in patch:
        return _map_directive(patch[DIRECTIVE], patch, path)
    if original is None:
        original = {}
    _apply_retain_keys(original, patch, opts, path)
    _merge_ordered_lists(original, patch, schema, opts, path)
    for key in list(patch):
        if key not in patch:
            continue
        pv = patch[key]
        is_delete_list = False
        if key.startswith(DELETE_FROM_PRIMITIVE_LIST):
            if not opts.merge_parallel_list:
                original[key] = pv
                continue
            key = _strip_prefix(key, DELETE_FROM_PRIMITIVE_LIST, path)
            is_delete_list = True
        if pv is None:
            original.pop(key, None)
            if opts.ignore_unmatched_nulls:
                continue
        if key not in original or kind_of(original[key]) != kind_of(pv):
            if not is_delete_list:
                _take_patch_value(original, key, pv, opts)
            continue
        ov = original[key]
        here = join(path, key)
        if isinstance(ov, dict):
            meta = lookup_struct(schema, key, path)
            if meta.strategy == REPLACE:
                original[key] = pv
            else:
                original[key] = merge_map(ov, pv, meta.schema, opts, here)
        elif isinstance(ov, list):
            meta = lookup_slice(schema, key, path)
            original[key] = merge_list_field(ov, pv, meta.schema, meta.strategy, meta.merge_key,
                                             is_delete_list, opts, here)
        else:
            value, keep = remove_directives(pv)
            if keep:
                original[key] = value
            else:
                del original[key]
    return original


def _take_patch_value(original: dict, key: str, pv: Any, opts: MergeOptions) -> None:
    if opts.ignore_unmatched_nulls:
        discard_nulls(pv)
    value, keep = remove_directives(pv)
    if keep:
        original[key] = value
    else:
        original.pop(key, None)


def _map_directive(directive: Any, patch: dict, path: str) -> dict:
    if directive == REPLACE and isinstance(directive, str):
        del patch[DIRECTIVE]
        return patch
    if directive == DELETE and isinstance(directive, str):
        return {}
    raise fail(f"unknown patch type: {fmt_s(directive)} in map: {fmt_v(patch)}", path)


def _strip_prefix(key: str, prefix: str, path: str) -> str:
    head, sep, rest = key.partition("/")
    if not sep or head != prefix:
        message = BAD_PRIMITIVE_LIST_FORMAT if prefix == DELETE_FROM_PRIMITIVE_LIST else BAD_SET_ORDER_FORMAT
        raise fail(message, join(path, key))
    return rest


def _apply_retain_keys(original: dict, patch: dict, opts: MergeOptions, path: str) -> None:
    if RETAIN_KEYS_DIRECTIVE not in patch:
        return
    keys = patch.pop(RETAIN_KEYS_DIRECTIVE)
    where = join(path, RETAIN_KEYS_DIRECTIVE)
    if not opts.merge_parallel_list:
        if RETAIN_KEYS_DIRECTIVE in original:
            if not deep_equal(original[RETAIN_KEYS_DIRECTIVE], keys):
                raise fail(f"{fmt_v(original[RETAIN_KEYS_DIRECTIVE])} and {fmt_v(keys)} are not deep equal: "
                           "this may happen when calculating the 3-way diff patch", where)
        else:
            original[RETAIN_KEYS_DIRECTIVE] = keys
        return
    if not isinstance(keys, list):
        raise fail(BAD_RETAIN_KEYS_FORMAT, where)
    allowed = {scalar_key(v) for v in keys}
    for k, v in patch.items():
        if v is None or k.startswith(DELETE_FROM_PRIMITIVE_LIST) or k.startswith(SET_ELEMENT_ORDER):
            continue
        if scalar_key(k) not in allowed:
            raise fail(BAD_RETAIN_KEYS_FORMAT, where)
    for k in list(original):
        if scalar_key(k) not in allowed:
            del original[k]


def _merge_ordered_lists(original: dict, patch: dict, schema: Any, opts: MergeOptions, path: str) -> None:
    """Handle every `$setElementOrder/<field>` of `patch` together with `<field>` itself."""
    for key in [k for k in patch if k.startswith(SET_ELEMENT_ORDER)]:
        order = patch[key]
        where = join(path, key)
        if not opts.merge_parallel_list:
            if key in original:
                if not deep_equal(original[key], order):
                    raise fail(BAD_SET_ORDER_FORMAT, where)
            else:
                original[key] = order
        del patch[key]
        if not isinstance(order, list):
            raise bad_arg_type(SLICE_TYPE, order, where)
        field = _strip_prefix(key, SET_ELEMENT_ORDER, path)
        here = join(path, field)
        found_original, found_patch = field in original, field in patch
        original_list: list = []
        patch_list: list = []
        if found_original:
            original_list = original[field]
            if not isinstance(original_list, list):
                raise bad_arg_type(SLICE_TYPE, original_list, here)
        if found_patch:
            patch_list = patch[field]
            if not isinstance(patch_list, list):
                raise bad_arg_type(SLICE_TYPE, patch_list, here)
        meta = lookup_slice(schema, field, path)
        _check_order_matches(patch_list, order, meta.merge_key, here)
        if found_original and not found_patch:
            merged = original_list
            server_order = original_list
        elif found_patch and not found_original:
            merged, _ = remove_directives(patch_list)
            server_order = original_list
        elif found_original and found_patch:
            merged, server_order = _merge_list_field_with_view(
                original_list, patch_list, meta.schema, meta.strategy, meta.merge_key, opts, here)
        else:
            continue
        patch_items, server_only = _partition(merged, order, meta.merge_key, here)
        kind = element_kind(here, original_list, patch_list)
        original[field] = normalize_element_order(patch_items, server_only, order, server_order,
                                                  meta.merge_key, kind, here)
        patch.pop(field, None)


def _check_order_matches(patch_list: list, order: list, merge_key: str, path: str) -> None:
    """validatePatchWithSetOrderList: patch items must appear in the $setElementOrder order."""
    if not order or not patch_list:
        return
    items = split_deletions(patch_list, path)[0] if merge_key else patch_list
    pi = oi = 0
    while pi < len(items) and oi < len(order):
        item = items[pi]
        if isinstance(item, dict) and DIRECTIVE in item:
            pi += 1
            continue
        if _merge_key_equal(item, order[oi], merge_key, path):
            pi += 1
        oi += 1
    if pi < len(items) and oi >= len(order):
        raise fail(f"The order in patch list:\n{fmt_v(patch_list)}\n doesn't match {SET_ELEMENT_ORDER} list:\n"
                   f"{fmt_v(order)}\n", path)


def _merge_key_equal(left: Any, right: Any, merge_key: str, path: str) -> bool:
    if not merge_key:
        return scalar_key(left) == scalar_key(right)
    for v in (left, right):
        if not isinstance(v, dict):
            raise bad_arg_type(MAP_TYPE, v, path)
        if merge_key not in v:
            raise no_merge_key(v, merge_key, path)
    return scalar_key(left[merge_key]) == scalar_key(right[merge_key])


def _partition(merged: list, present: list, merge_key: str, path: str) -> tuple[list, list]:
    """Split into items named in `present` and server-only items, keeping order."""
    inside, outside = [], []
    if not merge_key:
        wanted = {scalar_key(v) for v in present}
        for v in merged:
            (inside if scalar_key(v) in wanted else outside).append(v)
        return inside, outside
    wanted_keys = _key_set(present, merge_key, path)
    for v in merged:
        if not isinstance(v, dict):
            raise bad_arg_type(MAP_TYPE, v, path)
        if merge_key not in v:
            raise no_merge_key(v, merge_key, path)
        if wanted_keys is None:
            found = find_by_key(present, merge_key, v[merge_key], path) >= 0
        else:
            found = scalar_key(v[merge_key]) in wanted_keys
        (inside if found else outside).append(v)
    return inside, outside


def _key_set(items: list, merge_key: str, path: str) -> set | None:
    """Merge-key values of a list of maps, or None when a non-map forces the slow path
    (whose error depends on where the scan stops)."""
    keys = set()
    for v in items:
        if not isinstance(v, dict):
            return None
        if merge_key in v:
            keys.add(scalar_key(v[merge_key]))
    return keys


def merge_list_field(original: Any, patch: Any, schema: Any, strategy: str, merge_key: str,
                     is_delete_list: bool, opts: MergeOptions, path: str) -> list:
    """mergeSliceHandler: merge lists, or replace them when the field has no merge strategy."""
    if not isinstance(original, list):
        raise bad_arg_type(SLICE_TYPE, original, path)
    if not isinstance(patch, list):
        raise bad_arg_type(SLICE_TYPE, patch, path)
    if strategy == MERGE or is_delete_list:
        return _merge_list(original, patch, schema, merge_key, opts, is_delete_list, path)[0]
    return patch


def _merge_list_field_with_view(original: list, patch: list, schema: Any, strategy: str, merge_key: str,
                                opts: MergeOptions, path: str) -> tuple[list, list]:
    """Like merge_list_field, also returning what the caller's view of `original` holds after
    Go's in-place slice edits (its order is what the $setElementOrder step consults)."""
    if strategy == MERGE:
        merged, view = _merge_list(original, patch, schema, merge_key, opts, False, path)
        return merged, view
    return patch, original


def _merge_list(original: list, patch: list, schema: Any, merge_key: str, opts: MergeOptions,
                is_delete_list: bool, path: str) -> tuple[list, list]:
    """mergeSlice. Returns the merged list and the Go caller's view of `original` afterwards."""
    if not original and not patch:
        return original, original
    kind = element_kind(path, original, patch)
    view = original
    if kind != "map":
        if opts.merge_parallel_list and is_delete_list:
            doomed = {scalar_key(v) for v in patch}
            return [v for v in original if scalar_key(v) not in doomed], original
        merged, server_order = _merge_scalars(original, patch)
        view = server_order
    else:
        if not merge_key:
            name = getattr(schema, "type", "struct")
            raise fail(f"cannot merge lists without merge key for {'struct' if name == 'object' else name}", path)
        server_order, patch, view = _apply_list_directives(original, patch, merge_key, path)
        merged, view = _merge_list_elements(server_order, patch, merge_key, schema, opts, path, view)
    if not merge_key:
        patch_items, server_only = _partition(merged, patch, "", path)
    else:
        patch_items, server_only = _partition(merged, patch, merge_key, path)
    return normalize_element_order(patch_items, server_only, patch, server_order, merge_key, kind, path), view


def _merge_scalars(original: list, patch: list) -> tuple[list, list]:
    """Go appends the patch to the original slice and de-duplicates in place. When the
    original's spare capacity holds the patch, that rewrites the original slice too, and the
    rewritten one is what orders the result afterwards. Returns (merged, original as seen)."""
    both = original + patch
    length = dedupe_in_place(both)
    shared = len(original) + len(patch) <= decoded_capacity(len(original))
    return both[:length], (both[: len(original)] if shared else original)


def _apply_list_directives(original: list, patch: list, merge_key: str, path: str) -> tuple[list, list, "_GoView"]:
    """mergeSliceWithSpecialElements: honour `$patch` elements, return the rest of the patch."""
    rest = []
    replace = False
    view = _GoView(original)
    for v in patch:
        if not isinstance(v, dict):
            raise bad_arg_type(MAP_TYPE, v, path)
        if DIRECTIVE not in v:
            rest.append(v)
            continue
        directive = v[DIRECTIVE]
        if directive == DELETE and isinstance(directive, str):
            if merge_key not in v:
                raise no_merge_key(v, merge_key, path)
            view.delete_matching(merge_key, v[merge_key], path)
        elif directive == REPLACE and isinstance(directive, str):
            replace = True
        elif directive == MERGE and isinstance(directive, str):
            raise fail("merging lists cannot yet be specified in the patch", path)
        else:
            raise fail(f"unknown patch type: {fmt_s(directive)} in map: {fmt_v(v)}", path)
    if replace:
        return rest, [], view
    return view.current(), rest, view


def _merge_list_elements(original: list, patch: list, merge_key: str, schema: Any, opts: MergeOptions,
                         path: str, view: "_GoView") -> tuple[list, list]:
    """mergeSliceWithoutSpecialElements: merge patch maps into the element with the same key."""
    merged = list(original)
    positions: dict | None = {}
    for i, v in enumerate(merged):
        if not isinstance(v, dict):
            positions = None  # fall back to scanning, which reports the offending index
            break
        if merge_key in v:
            positions.setdefault(scalar_key(v[merge_key]), i)
    for v in patch:
        if merge_key not in v:
            raise no_merge_key(v, merge_key, path)
        value = v[merge_key]
        if positions is None:
            at = find_by_key(merged, merge_key, value, path)
        else:
            at = positions.get(scalar_key(value), -1)
        if at >= 0:
            merged[at] = merge_map(merged[at], v, schema, opts, f"{path}[{fmt_v(value)}]")
        else:
            if positions is not None:
                positions[scalar_key(value)] = len(merged)
            merged.append(v)
            view.append(v)
    return merged, view.visible()


class _GoView:
    """The backing array of a Go slice decoded from JSON, to replay apimachinery's in-place
    edits: deletions shift elements left (leaving stale copies at the end) and appends write
    into spare capacity, all of which the original slice header still sees."""

    __slots__ = ("_array", "_length", "_size", "_detached")

    def __init__(self, original: list):
        n = len(original)
        cap = decoded_capacity(n)
        self._size = n  # length of the caller's slice header
        self._array = list(original) + [None] * (cap - n)
        self._length = n
        self._detached = n == 0

    def current(self) -> list:
        return self._array[: self._length]

    def delete_matching(self, merge_key: str, value: Any, path: str) -> None:
        while True:
            at = find_by_key(self._array[: self._length], merge_key, value, path)
            if at < 0:
                return
            self._array[at:self._length - 1] = self._array[at + 1:self._length]
            self._length -= 1

    def append(self, v: Any) -> None:
        if self._detached or self._length >= len(self._array):
            self._detached = True
            return
        self._array[self._length] = v
        self._length += 1

    def visible(self) -> list:
        return self._array[: self._size]


def remove_directives(obj: Any) -> tuple[Any, bool]:
    """Strip `$patch` maps from a value being inserted as is; (value, keep)."""
    if isinstance(obj, dict):
        if DIRECTIVE in obj:
            return None, False
        for k in list(obj):
            value, keep = remove_directives(obj[k])
            if keep:
                obj[k] = value
            else:
                del obj[k]
        return obj, True
    if isinstance(obj, list):
        out = []
        for v in obj:
            value, keep = remove_directives(v)
            if keep:
                out.append(value)
        return out, True
    return obj, True


def discard_nulls(value: Any) -> None:
    """Drop null members everywhere inside a value (lists keep their null elements)."""
    if isinstance(value, dict):
        for k in list(value):
            if value[k] is None:
                del value[k]
            else:
                discard_nulls(value[k])
    elif isinstance(value, list):
        for v in value:
            discard_nulls(v)

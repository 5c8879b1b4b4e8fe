"""Computing a strategic merge patch from two documents (apimachinery's diffMaps family)."""
from __future__ import annotations

from collections import namedtuple

TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Any

from kubelite.patch._smp_go import deep_equal, fmt_v, kind_of, same, dedupe_scalars
from kubelite.patch._smp_meta import (
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
    join,
    lookup_slice,
    lookup_struct,
    no_merge_key,
    normalize_slice_order,
    sort_merge_list,
    sort_scalars,
)
from kubelite.patch import PatchError


# apimachinery's DiffOptions (ignore_changes: IgnoreChangesAndAdditions), all off by default
DiffOptions = namedtuple("DiffOptions", ("set_element_order", "ignore_changes", "ignore_deletions",
                                         "build_retain_keys"), defaults=(False, False, False, False))


def diff_maps(original: dict, modified: dict, schema: Any, opts: DiffOptions, path: str = "") -> dict:
    """The patch turning `original` into `modified` under `opts`."""
    patch: dict = {}
    retain: list = []
    for key, mv in modified.items():
        if opts.build_retain_keys and mv is not None:
            retain.append(key)
        if key not in original:
            if not opts.ignore_changes:
                patch[key] = mv
            continue
        ov = original[key]
        if key == DIRECTIVE:
            if not isinstance(ov, str) or not isinstance(mv, str):
                raise fail(f"invalid value for special key: {DIRECTIVE}", join(path, key))
            if mv != ov:
                patch[key] = mv
            continue
        t = type(ov)
        # Values of one type have one Go kind, but for integers (int64, or float64 past its range).
        if (t is not type(mv) or t is int) and kind_of(ov) != kind_of(mv):
            if not opts.ignore_changes:
                patch[key] = mv
            continue
        if isinstance(ov, dict):
            _diff_map_field(key, ov, mv, patch, schema, opts, path)
        elif isinstance(ov, list):
            _diff_list_field(key, ov, mv, patch, schema, opts, path)
        elif not opts.ignore_changes and (ov != mv if t is str and type(mv) is str else not same(ov, mv)):
            patch[key] = mv
    if not opts.ignore_deletions:
        for key in original:
            if key not in modified:
                patch[key] = None
    if retain and (patch or _has_additional_field(original, modified)):
        patch[RETAIN_KEYS_DIRECTIVE] = sort_scalars(retain)
    return patch


def _has_additional_field(original: dict, modified: dict) -> bool:
    return any(v is not None and k not in modified for k, v in original.items())


def _diff_map_field(key: str, ov: dict, mv: dict, patch: dict, schema: Any, opts: DiffOptions, path: str) -> None:
    try:
        meta = lookup_struct(schema, key, path)
    except PatchError:
        # Without metadata a field can still be compared when it did not change.
        if deep_equal(ov, mv):
            return
        raise
    if opts.build_retain_keys != meta.retain_keys:
        opts = opts._replace(build_retain_keys=meta.retain_keys)
    if meta.strategy == REPLACE:
        if not opts.ignore_changes:
            patch[key] = mv
        return
    value = diff_maps(ov, mv, meta.schema, opts, join(path, key))
    if value:
        patch[key] = value


def _diff_list_field(key: str, ov: list, mv: list, patch: dict, schema: Any, opts: DiffOptions, path: str) -> None:
    try:
        meta = lookup_slice(schema, key, path)
    except PatchError:
        if deep_equal(ov, mv):
            return
        raise
    if meta.strategy != MERGE:
        if not opts.ignore_changes and not deep_equal(ov, mv):
            patch[key] = mv
        return
    if opts.build_retain_keys != meta.retain_keys:
        opts = opts._replace(build_retain_keys=meta.retain_keys)
    here = join(path, key)
    additions, deletions, order = diff_lists(ov, mv, meta.schema, meta.merge_key, opts, here)
    if additions:
        patch[key] = additions
    if deletions:
        patch[f"{DELETE_FROM_PRIMITIVE_LIST}/{key}"] = deletions
    if order:
        patch[f"{SET_ELEMENT_ORDER}/{key}"] = order


def diff_lists(original: list, modified: list, schema: Any, merge_key: str, opts: DiffOptions,
               path: str) -> tuple[list, list, list]:
    """(patch list, primitive deletion list, $setElementOrder list) for a merging list."""
    if not original:
        if not modified or opts.ignore_changes:
            return [], [], []
        return modified, [], []
    kind = element_kind(path, original, modified)
    order: list = []
    if kind == "map":
        patch_list, deletions = _diff_lists_of_maps(original, modified, schema, merge_key, opts, path)
        patch_list = normalize_slice_order(patch_list, modified, merge_key, kind, path)
        order_same = _is_order_same(original, modified, merge_key, path)
        patch_list = patch_list + deletions
        if opts.set_element_order and (
            (not opts.ignore_changes and (patch_list or not order_same))
            or (not opts.ignore_deletions and patch_list)
        ):
            order = [{merge_key: v.get(merge_key)} for v in modified]
        return patch_list, [], order
    patch_list, deletions = _diff_lists_of_scalars(original, modified, opts)
    patch_list = normalize_slice_order(patch_list, modified, merge_key, kind, path)
    if opts.set_element_order and (
        (not opts.ignore_deletions and deletions)
        or (not opts.ignore_changes and not deep_equal(original, modified))
    ):
        order = modified
    return patch_list, deletions, order


def _is_order_same(original: list, modified: list, merge_key: str, path: str) -> bool:
    if len(original) != len(modified):
        return False
    for o, m in zip(original, modified):
        for v in (o, m):
            if not isinstance(v, dict):
                raise bad_arg_type("map[string]interface {}", v, path)
            if merge_key not in v:
                raise no_merge_key(v, merge_key, path)
        if not same(o[merge_key], m[merge_key]):
            return False
    return True


def _diff_lists_of_scalars(original: list, modified: list, opts: DiffOptions) -> tuple[list, list]:
    # apimachinery sorts the original list in place; later diffs of the same document see it
    # sorted, so do the same.
    original[:] = sort_scalars(original)
    mod_sorted = sort_scalars(list(modified))
    additions: list = []
    deletions: list = []
    i = j = 0
    no, nm = len(original), len(mod_sorted)
    while i < no or j < nm:
        if i < no and j < nm:
            os_, ms = fmt_v(original[i]), fmt_v(mod_sorted[j])
            if os_ == ms:
                i += 1
                j += 1
                continue
            removed = os_ < ms
        else:
            removed = j >= nm
        if removed:
            if not opts.ignore_deletions:
                deletions.append(original[i])
            i += 1
        else:
            if not opts.ignore_changes:
                additions.append(mod_sorted[j])
            j += 1
    return additions, dedupe_scalars(deletions)


def _keyed(items: list, index: int, merge_key: str, path: str) -> tuple[dict, Any]:
    m = items[index]
    if not isinstance(m, dict):
        raise bad_arg_type("map[string]interface {}", m, path)
    if merge_key not in m:
        raise no_merge_key(m, merge_key, path)
    return m, m[merge_key]


def _diff_lists_of_maps(original: list, modified: list, schema: Any, merge_key: str, opts: DiffOptions,
                        path: str) -> tuple[list, list]:
    patch: list = []
    deletions: list = []
    o_sorted = sort_merge_list(original, schema, merge_key, False, path)
    m_sorted = sort_merge_list(modified, schema, merge_key, False, path)
    i = j = 0
    no, nm = len(o_sorted), len(m_sorted)
    while i < no or j < nm:
        if i < no:
            o_elem, o_key = _keyed(o_sorted, i, merge_key, path)
            o_str = fmt_v(o_key)
        if j < nm:
            m_elem, m_key = _keyed(m_sorted, j, merge_key, path)
            m_str = fmt_v(m_key)
        if i < no and j < nm and o_str == m_str:
            value = diff_maps(o_elem, m_elem, schema, opts, f"{path}[{m_str}]")
            if value:
                value[merge_key] = m_key
                patch.append(value)
            i += 1
            j += 1
        elif i >= no or (j < nm and o_str > m_str):
            if not opts.ignore_changes:
                patch.append(m_elem)
            j += 1
        else:
            if not opts.ignore_deletions:
                deletions.append({merge_key: o_key, DIRECTIVE: DELETE})
            i += 1
    return patch, deletions

"""Shared pieces of the strategic merge patch engine: directive names, errors, schema lookups
and the list helpers that both patch creation and patch application use."""
from __future__ import annotations

from collections import namedtuple

TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Any

from kubelite.patch import PatchError
from kubelite.patch._smp_go import _quote, dedupe_scalars, fmt_v, kind_of, scalar_key, sort_by_string, stable_sort, type_name

DIRECTIVE = "$patch"
DELETE = "delete"
REPLACE = "replace"
MERGE = "merge"
RETAIN_KEYS = "retainKeys"
RETAIN_KEYS_DIRECTIVE = "$retainKeys"
DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList"
SET_ELEMENT_ORDER = "$setElementOrder"

BAD_JSON_DOC = "invalid JSON document"
NO_LIST_OF_LISTS = "lists of lists are not supported"
BAD_PRIMITIVE_LIST_FORMAT = "invalid patch format of primitive list"
BAD_RETAIN_KEYS_FORMAT = "invalid patch format of retainKeys"
BAD_SET_ORDER_FORMAT = "invalid patch format of setElementOrder list"


def fail(message: str, path: str = "") -> PatchError:
    """A PatchError carrying apimachinery's message; `.message` keeps it without the path."""
    err = PatchError(message, path or None)
    err.message = message  # type: ignore[attr-defined]
    return err


def bad_arg_type(expected: str, actual: Any, path: str) -> PatchError:
    return fail(f"expected a {expected}, but received a {type_name(actual)}", path)


def no_merge_key(m: Any, merge_key: str, path: str) -> PatchError:
    return fail(f"map: {fmt_v(m)} does not contain declared merge key: {merge_key}", path)


def join(path: str, key: Any) -> str:
    return f"{path}.{key}" if path else str(key)


# -- schema lookups --------------------------------------------------------------------------


# schema: the kubelite Schema to use below this field; strategy: "merge", "replace" or "" once
# retainKeys is split off
Meta = namedtuple("Meta", ("schema", "strategy", "retain_keys", "merge_key"))


def _field(schema: Any, key: str, path: str) -> Any:
    sub = schema.field(key) if schema is not None else None
    if sub is None:
        name = getattr(schema, "name", None)
        if name:
            # apimachinery names the Go struct, the definition name's last part (DeploymentSpec)
            raise fail(f"unable to find api field in struct {name.rsplit('.', 1)[-1]} for the json field "
                       f"{_quote(key)}", join(path, key))
        where = getattr(schema, "type", None) or "value"
        raise fail(f'unable to find api field "{key}" in {where}', join(path, key))
    return sub


def split_strategies(strategies: tuple[str, ...], path: str) -> tuple[bool, str]:
    """Separate retainKeys from the one other strategy a field may declare."""
    if not strategies:
        return False, ""
    if len(strategies) == 1:
        return (True, "") if strategies[0] == RETAIN_KEYS else (False, strategies[0])
    if len(strategies) == 2:
        if strategies[0] == RETAIN_KEYS:
            return True, strategies[1]
        if strategies[1] == RETAIN_KEYS:
            return True, strategies[0]
    raise fail(f"unexpected patch strategy: [{' '.join(strategies)}]", path)


def lookup_struct(schema: Any, key: str, path: str) -> Meta:
    """Metadata for a map-valued field (LookupPatchMetadataForStruct)."""
    sub = _field(schema, key, path)
    retain, strategy = _strategies(sub.patch_strategy, path, key)
    return Meta(sub, strategy, retain, sub.merge_key or "")


def lookup_slice(schema: Any, key: str, path: str) -> Meta:
    """Metadata for a list-valued field; the schema returned is the element's."""
    sub = _field(schema, key, path)
    retain, strategy = _strategies(sub.patch_strategy, path, key)
    return Meta(sub.items(), strategy, retain, sub.merge_key or "")


def _strategies(strategies: tuple[str, ...], path: str, key: str) -> tuple[bool, str]:
    # most fields declare none: their path, only ever named in an error, is not worth writing
    return (False, "") if not strategies else split_strategies(strategies, join(path, key))


# -- list helpers ----------------------------------------------------------------------------


def element_kind(path: str, *lists: list) -> str:
    """The one Go type all elements share: "map", a scalar kind; lists of lists are refused."""
    prev = None
    for lst in lists:
        for v in lst:
            k = kind_of(v)
            if prev is None:
                prev = k
                if k == "slice":
                    raise fail(NO_LIST_OF_LISTS, path)
                if k == "nil":
                    # Go dereferences a nil type here and crashes; refuse instead.
                    raise fail(f"list element types are not identical: {fmt_v([list(x) for x in lists])}", path)
            elif prev != k:
                raise fail(f"list element types are not identical: {fmt_v([list(x) for x in lists])}", path)
    if prev is None:
        raise fail("no elements in any of the given slices", path)
    return prev


def sort_scalars(items: list) -> list:
    return sort_by_string(items, fmt_v)


def sort_maps_by_field(items: list, field: str) -> list:
    return sort_by_string(items, lambda m: fmt_v(m.get(field)))


def dedupe_and_sort_scalars(items: list) -> list:
    return sort_scalars(dedupe_scalars(items))


def sort_merge_list(items: list, schema: Any, merge_key: str, recurse: bool, path: str) -> list:
    """sortMergeListsByNameArray: scalars de-duplicated and sorted; maps sorted by merge key."""
    if not items:
        return items
    if element_kind(path, items) != "map":
        return dedupe_and_sort_scalars(items)
    if recurse:
        items = [sort_merge_lists_in_map(e, schema, path) for e in items]
    return sort_maps_by_field(items, merge_key)


def sort_merge_lists_in_map(m: dict, schema: Any, path: str) -> dict:
    """sortMergeListsByNameMap (used by apimachinery's tests to compare documents)."""
    out = {}
    for k, v in m.items():
        if k == RETAIN_KEYS_DIRECTIVE:
            if not isinstance(v, list):
                raise fail(BAD_RETAIN_KEYS_FORMAT, join(path, k))
            v = sort_scalars(v)
        elif k.startswith(DELETE_FROM_PRIMITIVE_LIST):
            if not isinstance(v, list):
                raise fail(BAD_PRIMITIVE_LIST_FORMAT, join(path, k))
            v = sort_scalars(v)
        elif k.startswith(SET_ELEMENT_ORDER):
            if not isinstance(v, list):
                raise fail(BAD_SET_ORDER_FORMAT, join(path, k))
        elif k != DIRECTIVE:
            if isinstance(v, dict):
                meta = lookup_struct(schema, k, path)
                v = sort_merge_lists_in_map(v, meta.schema, join(path, k))
            elif isinstance(v, list):
                meta = lookup_slice(schema, k, path)
                if meta.strategy == MERGE:
                    v = sort_merge_list(v, meta.schema, meta.merge_key, True, join(path, k))
        out[k] = v
    return out


class FirstIndex:
    """index(): position of the first element of `order` with the same merge-key value (maps)
    or the same value (scalars); -1 when absent. Built once, O(1) per lookup."""

    __slots__ = ("_pos", "_is_map", "_key")

    def __init__(self, order: list, merge_key: str, kind: str):
        self._is_map = kind == "map"
        self._key = merge_key
        pos: dict = {}
        for i, v in enumerate(order):
            pos.setdefault(self._identity(v), i)
        self._pos = pos

    def _identity(self, v: Any) -> Any:
        if self._is_map:
            v = v.get(self._key) if isinstance(v, dict) else None
        return scalar_key(v)

    def __call__(self, v: Any) -> int:
        return self._pos.get(self._identity(v), -1)


def find_by_key(items: list, merge_key: str, value: Any, path: str) -> int:
    """findMapInSliceBasedOnKeyValue: index of the first map whose merge key equals value."""
    want = scalar_key(value)
    for i, v in enumerate(items):
        if not isinstance(v, dict):
            raise fail(f"value for key {i} is not a map", path)
        if merge_key in v and scalar_key(v[merge_key]) == want:
            return i
    return -1


def validate_merge_keys(merge_key: str, path: str, *lists: list) -> None:
    for lst in lists:
        for item in lst:
            if not isinstance(item, dict):
                raise bad_arg_type("map[string]interface {}", item, path)
            if merge_key not in item:
                raise no_merge_key(item, merge_key, path)


def split_deletions(items: list, path: str) -> tuple[list, list]:
    """extractToDeleteItems: ($patch: delete elements last)."""
    keep, delete = [], []
    for v in items:
        if not isinstance(v, dict):
            raise bad_arg_type("map[string]interface {}", v, path)
        if v.get(DIRECTIVE) == DELETE:
            delete.append(v)
        else:
            keep.append(v)
    return keep, delete


def normalize_slice_order(to_sort: list, order: list, merge_key: str, kind: str, path: str) -> list:
    """Sort `to_sort` by positions in `order` (Go's SliceStable with apimachinery's odd `less`:
    an element missing from `order` compares as smaller than anything)."""
    to_delete: list = []
    if kind == "map":
        validate_merge_keys(merge_key, path, to_sort, order)
        to_sort, to_delete = split_deletions(to_sort, path)
    else:
        to_sort = list(to_sort)
    index = FirstIndex(order, merge_key, kind)

    def less(a: Any, b: Any) -> bool:
        ia = index(a)
        if ia >= 0:
            ib = index(b)
            if ib >= 0:
                return ia < ib
        return True

    stable_sort(to_sort, less)
    return to_sort + to_delete


def merge_sorted(left: list, right: list, server_order: list, merge_key: str, kind: str) -> list:
    """mergeSortedSlice: interleave server-only items (left) into patch items (right)."""
    index = FirstIndex(server_order, merge_key, kind)
    out = []
    i = j = 0
    nl, nr = len(left), len(right)
    while i < nl or j < nr:
        if i >= nl:
            out.append(right[j])
            j += 1
        elif j >= nr:
            out.append(left[i])
            i += 1
        else:
            li, ri = index(left[i]), index(right[j])
            if li >= 0 and ri >= 0 and li < ri:
                out.append(left[i])
                i += 1
            else:
                out.append(right[j])
                j += 1
    return out


def normalize_element_order(patch: list, server_only: list, patch_order: list, server_order: list,
                            merge_key: str, kind: str, path: str) -> list:
    patch = normalize_slice_order(patch, patch_order, merge_key, kind, path)
    server_only = normalize_slice_order(server_only, server_order, merge_key, kind, path)
    return merge_sorted(server_only, patch, server_order, merge_key, kind)

"""Strategic merge patch: apply, and create two-way and three-way patches.

Exactly apimachinery's `pkg/util/strategicpatch` semantics (the engine behind `kubectl apply`
and `kubectl patch --type strategic`): lists whose field declares `patchStrategy: merge` are
merged by their merge key (or as ordered sets of scalars), other lists are replaced, `null`
deletes, and the directives `$patch` (replace / delete / merge), `$retainKeys`,
`$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>` are honoured and generated.

Patch metadata comes from a `kubelite.schema.Schema`. `apply` finds the built-in schema from
the document's apiVersion/kind when none is passed, and raises when it knows none (a strategic
patch without one would silently be something else). An explicit `schema=None` asks for the
JSON merge patch (RFC 7386) fallback, as apimachinery does for unstructured objects.

Documents are dicts (or JSON text); inputs are never modified. Every failure is a
`kubelite.patch.PatchError` whose message is apimachinery's, followed by the field path.
"""
from __future__ import annotations

import json
TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Any

from kubelite.patch import ConflictError, PatchError
from kubelite.patch._smp_go import marshal
from kubelite.patch._smp_meta import BAD_JSON_DOC, fail, sort_merge_lists_in_map

__all__ = ["apply", "create_two_way", "create_three_way", "to_json", "sort_merge_lists"]


class _Lookup:
    """The default of `apply`'s schema: look the kind up (a sentinel, since None means merge patch)."""

    def __repr__(self) -> str:
        return "<schema of the document's kind>"


LOOKUP: Any = _Lookup()


def apply(doc: Any, patch: Any, schema: Any = LOOKUP) -> dict:
    """StrategicMergePatch: `patch` applied to `doc` (each a dict, JSON text or None = {}).

    Without `schema`, the built-in schema of the document's apiVersion/kind is used, and a
    PatchError is raised for a kind without one; `schema=None` applies a JSON merge patch."""
    original = _load(doc, empty_ok=False)
    patch_map = _load(patch, empty_ok=False)
    if schema is LOOKUP:
        schema = schema_of(original)
    if schema is None:
        return _guard(lambda: _merge_patch().apply(original, patch_map))
    from kubelite.patch._smp_merge import APPLY, merge_map

    return _guard(lambda: merge_map(_clone(original), _clone(patch_map), schema, APPLY))


def schema_of(doc: dict) -> Any:
    """The built-in schema of a document's kind; PatchError when no schema is known for it."""
    from kubelite.schema import for_kind

    api_version, kind = doc.get("apiVersion"), doc.get("kind")
    schema = for_kind(api_version, kind) if api_version and kind else None
    if schema is None:
        raise PatchError(f"no strategic merge patch schema is known for apiVersion {api_version!r} kind "
                         f"{kind!r}: pass schema= (a kubelite.schema.Schema, or None for a JSON merge patch)")
    return schema


def create_two_way(original: Any, modified: Any, schema: Any) -> dict:
    """CreateTwoWayMergePatch: the patch that turns `original` into `modified`."""
    orig, mod = _load(original), _load(modified)
    if schema is None:
        return _merge_patch().create(orig, mod)
    from kubelite.patch._smp_diff import DiffOptions, diff_maps

    opts = DiffOptions(set_element_order=True)
    return _guard(lambda: _clone(diff_maps(_clone(orig), _clone(mod), schema, opts)))


def create_three_way(original: Any, modified: Any, current: Any, schema: Any, overwrite: bool = True, *,
                     disposable: bool = False) -> dict:
    """CreateThreeWayMergePatch, as `kubectl apply` computes it.

    `original` is the last-applied configuration, `modified` the new configuration and
    `current` the live object. The patch sets what `modified` changes relative to `current`
    and deletes what was removed from `original` to `modified`; fields only `current` has are
    left alone. With overwrite=False, a patch that would undo a change made from `original` to
    `current` raises ConflictError.

    Every argument is left as it was, unless `disposable` says that `original` and `modified`
    are the caller's own copies, made for this call and not used after it: they are then
    worked on as they are (apimachinery sorts some of their lists in place) instead of copied.
    """
    orig, mod, cur = _load(original), _load(modified), _load(current)
    if schema is None:
        return _merge_patch().create_three_way(orig, mod, cur, overwrite=overwrite)

    def copied_and_diffed() -> dict:
        o, m = (orig, mod) if disposable else (_clone(orig), _clone(mod))
        # Without the conflict check, only the parts of `current` that `modified` also has are
        # diffed (the additions ignore the rest): only those need copies.
        c = _clone_along(cur, m) if overwrite else _clone(cur)
        return _three_way(o, m, c, schema, overwrite)

    return _guard(copied_and_diffed)


def _three_way(original: dict, modified: dict, current: dict, schema: Any, overwrite: bool) -> dict:
    from kubelite.patch._smp_conflict import have_conflicts
    from kubelite.patch._smp_diff import DiffOptions, diff_maps
    from kubelite.patch._smp_merge import COMBINE, merge_map

    # Additions and changes come from current -> modified, deletions from original -> modified;
    # merging the two keeps both (the second is strictly additive).
    delta = diff_maps(current, modified, schema, DiffOptions(set_element_order=True, ignore_deletions=True))
    deletions = diff_maps(original, modified, schema, DiffOptions(set_element_order=True, ignore_changes=True))
    patch = merge_map(deletions, delta, schema, COMBINE)
    if not overwrite:
        changed = diff_maps(original, current, schema, DiffOptions())
        if have_conflicts(patch, changed, schema):
            raise ConflictError(
                f"patch:\n{_yaml(patch)}\nconflicts with changes made from original to current:\n{_yaml(changed)}\n"
            )
    return _clone(patch)


def to_json(value: Any) -> str:
    """The bytes Go's json.Marshal writes for a decoded document (what apimachinery returns)."""
    return _guard(lambda: marshal(value))


def sort_merge_lists(doc: dict, schema: Any) -> dict:
    """apimachinery's test helper sortMergeListsByName: merge lists sorted by merge key,
    merging scalar lists de-duplicated and sorted. For comparing documents in tests."""
    return _guard(lambda: sort_merge_lists_in_map(_load(doc), schema, ""))


# -- boundary helpers ------------------------------------------------------------------------


def _load(value: Any, empty_ok: bool = True) -> dict:
    """A document as a dict: dicts pass, None is {}, text must be a JSON object (or "null";
    empty text counts as {} when creating patches, but is invalid when applying one, as in
    apimachinery)."""
    if value is None:
        return {}
    if isinstance(value, dict):
        return value
    if isinstance(value, (bytes, bytearray)):
        try:
            value = bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            raise fail(BAD_JSON_DOC) from None
    if isinstance(value, str):
        if not value and empty_ok:
            return {}
        from kubelite.godepth import too_deep

        if too_deep(value):
            raise fail(BAD_JSON_DOC)
        try:
            parsed = json.loads(value, parse_constant=_reject_constant)
        except (ValueError, RecursionError):
            raise fail(BAD_JSON_DOC) from None
        if parsed is None:
            return {}
        if isinstance(parsed, dict):
            return parsed
    raise fail(BAD_JSON_DOC)


def _reject_constant(name: str) -> Any:
    raise ValueError(name)


def _clone(value: Any) -> Any:
    # Containers are copied one by one, so that a document whose parts are shared (YAML anchors)
    # comes back with none shared; scalars are not called for (most of a document's values).
    if isinstance(value, dict):
        return {k: _clone(v) if isinstance(v, (dict, list)) else v for k, v in value.items()}
    if isinstance(value, list):
        return [_clone(v) if isinstance(v, (dict, list)) else v for v in value]
    return value


def _clone_along(value: Any, shape: Any) -> Any:
    """`value` with its maps copied down the keys `shape` also has, and whatever lies under
    those keys copied whole; the rest is shared."""
    if isinstance(value, dict) and isinstance(shape, dict):
        return {k: (_clone_along(v, shape[k]) if k in shape else v) for k, v in value.items()}
    return _clone(value)


def _guard(fn):
    try:
        return fn()
    except RecursionError:
        raise PatchError("document is nested too deeply to patch") from None


def _merge_patch():
    from kubelite.patch import merge_patch

    return _MergePatchAdapter(merge_patch)


class _MergePatchAdapter:
    """schema=None: JSON merge patch, through kubelite.patch.merge_patch, in the variant
    apimachinery uses for unstructured objects (evanphx/json-patch v4)."""

    def __init__(self, module: Any):
        self._m = module

    def apply(self, doc: dict, patch: dict) -> dict:
        return self._m.apply(_clone(doc), _clone(patch), kubectl_compat=True)

    def create(self, original: dict, modified: dict) -> dict:
        return self._m.create(original, modified, kubectl_compat=True)

    def create_three_way(self, original: dict, modified: dict, current: dict, overwrite: bool) -> dict:
        return self._m.create_three_way(original, modified, current, overwrite=overwrite)


def _yaml(value: Any) -> str:
    try:
        import yaml

        return yaml.safe_dump(value, default_flow_style=False, sort_keys=True)
    except Exception as err:  # the message is informative only
        return f"<{err}>"

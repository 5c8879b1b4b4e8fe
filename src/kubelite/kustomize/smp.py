"""Strategic merge patches as Kustomize applies them (kyaml's merge2 walker).

This differs from apimachinery's strategic merge in the order of merged lists:
the patch's elements come first (merged with their counterparts), then the
target's elements the patch did not mention. Lists the schema does not declare
mergeable are replaced. The only directive merge2 knows is ``$patch``
(delete|replace|merge, on maps and list elements); other ``$``-keys such as
``$setElementOrder/...`` or ``$retainKeys`` are ordinary fields and are kept.
"""
from __future__ import annotations

import copy

from .errors import KustomizeError

_DROP = object()


def _field(schema, name):
    if schema is None:
        return None
    try:
        return schema.field(name)
    except Exception:  # schema lookups never fail a build
        return None


def _items(schema):
    if schema is None:
        return None
    try:
        return schema.items()
    except Exception:
        return None


def clean(value: object) -> object:
    """A patch value with its directives removed (for fields the target lacks)."""
    if isinstance(value, dict):
        if value.get("$patch") == "delete":
            return _DROP
        out = {}
        for k, v in value.items():
            if k == "$patch":
                continue
            if v is None:
                continue
            c = clean(v)
            if c is not _DROP:
                out[k] = c
        return out
    if isinstance(value, list):
        out_list = []
        for item in value:
            if isinstance(item, dict) and set(item) == {"$patch"}:
                continue
            c = clean(item)
            if c is not _DROP:
                out_list.append(c)
        return out_list
    return value


def merge(dest: dict, patch: dict, schema) -> dict | None:
    """dest with patch merged in (dest is modified); None when the patch deletes it."""
    directive = patch.get("$patch")
    if directive == "delete":
        return None
    if directive == "replace":
        out = clean(patch)
        return out if out is not _DROP else None
    from .associative import normalize

    for key in dest:
        if key not in patch:
            # kyaml walks the fields a patch leaves alone too (see associative.py)
            dest[key] = normalize(dest[key], _field(schema, key))
    for key, pv in patch.items():
        if key == "$patch":
            continue
        if pv is None:
            dest.pop(key, None)
            continue
        dv = dest.get(key)
        sub = _field(schema, key)
        if isinstance(pv, dict) and isinstance(dv, dict):
            merged = merge(dv, pv, sub)
            if merged is None:
                dest.pop(key, None)
            else:
                dest[key] = merged
        elif isinstance(pv, list) and isinstance(dv, list):
            dest[key] = _merge_list(dv, pv, sub)
        else:
            c = clean(pv)
            if c is _DROP:
                dest.pop(key, None)
            else:
                dest[key] = c
    return dest


def _strategy(schema) -> tuple[bool, str | None]:
    if schema is None:
        return False, None
    strategy = getattr(schema, "patch_strategy", ()) or ()
    return "merge" in strategy, getattr(schema, "merge_key", None)


def _merge_list(dest: list, patch: list, schema) -> list:
    if any(isinstance(p, dict) and p.get("$patch") == "replace" and len(p) == 1 for p in patch):
        return [c for c in (clean(p) for p in patch if not (isinstance(p, dict) and set(p) == {"$patch"})) if c is not _DROP]
    mergeable, key = _strategy(schema)
    if not mergeable:
        return clean(patch)
    if not key:
        refuse_maps_in_set(patch, dest)
        seen = []
        for item in patch + dest:
            if item not in seen:
                seen.append(item)
        return seen
    from .associative import has_repeated_keys, merge_keys, normalize, rebuild_with_patch

    item_schema = _items(schema)
    keys = merge_keys(schema) or [key]
    if has_repeated_keys(dest, keys):
        # the target repeats a key: only kyaml's own rebuild gives its answer
        return rebuild_with_patch(dest, patch, keys, item_schema, lambda t, p: merge(t, p, item_schema), _clean_element)
    dest_by_key = {}
    for item in dest:
        if isinstance(item, dict) and key in item:
            dest_by_key.setdefault(_k(item[key]), item)
    out: list = []
    used = set()
    for item in patch:
        if not isinstance(item, dict) or key not in item:
            c = clean(item)
            if c is not _DROP and c != {}:
                out.append(c)
            continue
        kv = _k(item[key])
        if kv in used:
            continue
        used.add(kv)
        target = dest_by_key.get(kv)
        if item.get("$patch") == "delete":
            continue
        if target is None:
            c = clean(item)
            if c is not _DROP:
                out.append(c)
            continue
        merged = merge(target, item, item_schema)
        if merged is not None:
            out.append(merged)
    for item in dest:
        if isinstance(item, dict) and key in item:
            if _k(item[key]) in used:
                continue
        out.append(normalize(item, item_schema))
    return out


def refuse_maps_in_set(patch: list, dest: list) -> None:
    """A merged list without a merge key is a set of scalars for kyaml; maps in it fail
    with the node's contents (the patch's first map, else the target's)."""
    maps = [item for item in patch + dest if isinstance(item, dict)]
    if maps:
        import yaml

        contents = yaml.safe_dump(maps[0], sort_keys=False, default_flow_style=False, allow_unicode=True)
        raise KustomizeError(f"wrong node kind: expected ScalarNode but got MappingNode: node contents:\n{contents}")


def _clean_element(item: object) -> object:
    """A patch list element with no counterpart, as it lands in the result (None: dropped)."""
    if isinstance(item, dict) and item.get("$patch") == "delete":
        return None
    c = clean(item)
    return None if c is _DROP else c


def _k(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def apply(target: dict, patch: dict, schema) -> dict | None:
    """Merge a copy of patch into target (modified in place); None if it deletes the target."""
    return merge(target, copy.deepcopy(patch), schema)

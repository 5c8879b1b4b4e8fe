"""Dropping the fields a kind's schema does not know, as decoding into Go structs does."""
from __future__ import annotations


def schema_for(r):
    if r.crd:
        raw = r.schema
        if not raw:
            return None
        from kubelite.schema import from_openapi

        try:
            return from_openapi({"definitions": {"cr": dict(raw)}}, "cr")
        except Exception:
            return None
    from kubelite.schema import for_kind

    try:
        return for_kind(r.api_version, r.kind)
    except Exception:
        return None


def prune_object(r, obj: dict) -> list[str]:
    """Prune a whole object of resource `r`; a custom resource's metadata is never pruned here."""
    schema = schema_for(r)
    if schema is None:
        return []
    if not r.crd:
        return prune_unknown(obj, schema)
    found: list[str] = []
    for key in list(obj):
        if key in ("apiVersion", "kind", "metadata"):
            continue
        child = schema.field(key)
        if child is None:
            if schema.type == "object" and not schema.preserve_unknown_fields:
                found.append(key)
                del obj[key]
            continue
        found.extend(prune_unknown(obj[key], child, key))
    return found


def prune_unknown(value, schema, path: str = "") -> list[str]:
    """Drop fields the schema does not know, returning their paths."""
    if schema is None:
        return []
    found: list[str] = []
    kind = schema.type
    if kind == "any":
        return found
    if kind == "list" and isinstance(value, list):
        items = schema.items()
        for i, child in enumerate(value):
            found.extend(prune_unknown(child, items, f"{path}[{i}]"))
        return found
    if kind in ("object", "map") and isinstance(value, dict):
        for key in list(value):
            child_path = f"{path}.{key}" if path else key
            if not path and key in ("apiVersion", "kind"):
                continue
            child = schema.field(key)
            if child is None:
                found.append(child_path)
                del value[key]
                continue
            found.extend(prune_unknown(value[key], child, child_path))
    return found

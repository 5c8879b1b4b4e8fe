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


def prune_object(r, obj: dict, looked_up: list | None = None) -> list[str]:
    """Prune a whole object of resource `r`; a custom resource's metadata is never pruned here.
    `looked_up`: a built-in kind's schema as the caller has just looked it up (if it has)."""
    schema = looked_up[0] if looked_up and not r.crd else schema_for(r)
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
    found: list[str] = []
    if schema is not None and isinstance(value, (dict, list)):
        _prune(value, schema, path, found)
    return found


def _prune(value, schema, path: str, found: list[str]) -> None:
    # Scalars hold nothing to drop: they are not walked into (most of a body's values), and a
    # path is spelled only for what is walked into or dropped.
    kind = schema.type
    if kind == "list":
        if isinstance(value, list):
            items = schema.items()
            for i, child in enumerate(value):
                if isinstance(child, (dict, list)):
                    _prune(child, items, f"{path}[{i}]", found)
        return
    if (kind == "object" or kind == "map") and isinstance(value, dict):
        field = schema.field
        for key in list(value):
            if not path and key in ("apiVersion", "kind"):
                continue
            child = field(key)
            if child is None:
                found.append(f"{path}.{key}" if path else key)
                del value[key]
                continue
            sub = value[key]
            if isinstance(sub, (dict, list)):
                _prune(sub, child, f"{path}.{key}" if path else key, found)

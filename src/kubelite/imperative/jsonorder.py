"""JSON text of typed objects, as Go prints them: struct order, map keys sorted.

Built-in kinds take their order from the Go struct declarations (:mod:`kubelite.schema.goorder`).
Other objects are written in the dict's own key order, with the keys of well-known map fields
sorted.
"""
from __future__ import annotations

from kubelite.manifest.jsonfmt import _string, number
from kubelite.schema import goorder

# Go maps (as opposed to structs) inside typed objects of kinds goorder does not know
_MAP_FIELDS = frozenset({"labels", "annotations", "data", "binaryData", "stringData", "matchLabels", "hard",
                         "limits", "requests", "nodeSelector", "capacity", "allocatable"})
_LABEL_SELECTOR_KEYS = frozenset({"matchLabels", "matchExpressions"})


def _is_map(key: str | None, value: dict) -> bool:
    if key in _MAP_FIELDS:
        return True
    return key == "selector" and not (_LABEL_SELECTOR_KEYS & value.keys())


def _write(value: object, indent: str | None, level: str, out: list[str], key: str | None = None,
           maps_sorted: bool = False) -> None:
    if isinstance(value, str):
        out.append(_string(value))
    elif value is None:
        out.append("null")
    elif value is True or value is False:
        out.append("true" if value else "false")
    elif isinstance(value, (int, float)):
        out.append(number(value))
    elif isinstance(value, dict):
        keys = sorted(value) if not maps_sorted and _is_map(key, value) else list(value)
        _container([(k, value[k]) for k in keys], "{", "}", indent, level, out, maps_sorted)
    elif isinstance(value, (list, tuple)):
        _container([(None, v) for v in value], "[", "]", indent, level, out, maps_sorted)
    else:
        raise TypeError(f"json: unsupported type: {type(value).__name__}")


def _container(entries, open_: str, close: str, indent, level, out, maps_sorted: bool) -> None:
    if not entries:
        out.append(open_ + close)
        return
    inner = level + indent if indent is not None else ""
    out.append(open_)
    for i, (key, val) in enumerate(entries):
        if i:
            out.append(",")
        if indent is not None:
            out.append("\n" + inner)
        if key is not None:
            out.append(_string(key) + (": " if indent is not None else ":"))
        _write(val, indent, inner, out, key, maps_sorted)
    if indent is not None:
        out.append("\n" + level)
    out.append(close)


def _typed(obj: object) -> tuple[object, bool]:
    """(the object in Go struct order, whether its kind is built in) for one object or a List."""
    if not is_typed(obj):
        return obj, False
    if obj.get("kind") == "List" and isinstance(obj.get("items"), list):
        # a v1 List holds RawExtensions: each item is written in its own kind's order
        obj = {**obj, "items": [goorder.order(item) for item in obj["items"]]}
    return goorder.order(obj), True


def is_typed(obj: object) -> bool:
    """Whether kubectl holds this object as a Go struct (a built-in kind), so prints it in struct order."""
    return isinstance(obj, dict) and goorder.is_builtin(obj.get("apiVersion"), obj.get("kind"))


def to_json_in_order(obj: object) -> str:
    """``kubectl create ... -o json`` text for a typed object (4-space indent, final newline)."""
    obj, known = _typed(obj)
    out: list[str] = []
    _write(obj, "    ", "", out, maps_sorted=known)
    out.append("\n")
    return "".join(out)


def compact_json_in_order(obj: object) -> str:
    """Go's ``json.Marshal`` of a typed object: no spaces, struct order, HTML-escaped."""
    obj, known = _typed(obj)
    out: list[str] = []
    _write(obj, None, "", out, maps_sorted=known)
    return "".join(out)

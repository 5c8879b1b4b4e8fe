"""JSON text in the dict's own key order, as Go prints typed structs."""
from __future__ import annotations

from kubelite.manifest.jsonfmt import _string, number

# Go maps (as opposed to structs) inside typed objects: json.Marshal sorts their keys
_MAP_FIELDS = frozenset({"labels", "annotations", "data", "binaryData", "stringData", "matchLabels", "hard",
                         "limits", "requests", "nodeSelector", "capacity", "allocatable"})
_LABEL_SELECTOR_KEYS = frozenset({"matchLabels", "matchExpressions"})


def _is_map(key: str | None, value: dict) -> bool:
    if key in _MAP_FIELDS:
        return True
    return key == "selector" and not (_LABEL_SELECTOR_KEYS & value.keys())


def _write(value: object, indent: str | None, level: str, out: list[str], key: str | None = None) -> None:
    if isinstance(value, str):
        out.append(_string(value))
    elif value is None:
        out.append("null")
    elif value is True or value is False:
        out.append("true" if value else "false")
    elif isinstance(value, (int, float)):
        out.append(number(value))
    elif isinstance(value, dict):
        keys = sorted(value) if _is_map(key, value) else list(value)
        _container([(k, value[k]) for k in keys], "{", "}", indent, level, out)
    elif isinstance(value, (list, tuple)):
        _container([(None, v) for v in value], "[", "]", indent, level, out)
    else:
        raise TypeError(f"json: unsupported type: {type(value).__name__}")


def _container(entries, open_: str, close: str, indent, level, out) -> None:
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
        _write(val, indent, inner, out, key)
    if indent is not None:
        out.append("\n" + level)
    out.append(close)


def to_json_in_order(obj: object) -> str:
    """``kubectl create ... -o json`` text for a generated object (4-space indent, final newline)."""
    out: list[str] = []
    _write(obj, "    ", "", out)
    out.append("\n")
    return "".join(out)


def compact_json_in_order(obj: object) -> str:
    """Go's ``json.Marshal`` of a typed object: no spaces, struct order, HTML-escaped."""
    out: list[str] = []
    _write(obj, None, "", out)
    return "".join(out)

"""JSON text exactly as ``kubectl -o json`` prints it.

kubectl marshals with Go's encoding/json and indents by four spaces: keys
sorted bytewise, ``<``, ``>``, ``&``, U+2028 and U+2029 escaped as ``\\u00XX``
forms, other non-ASCII characters written as they are, floats in Go's
shortest form (``1e+21``, ``1.5e-7``, ``100000000000000000000``).
"""
from __future__ import annotations

import math
from json.encoder import encode_basestring  # the C speedup when available

from . import _gonum
from .errors import ManifestError

_HTML = str.maketrans({
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
})
_NEEDS_HTML = frozenset("<>&\u2028\u2029")


def _string(s: str) -> str:
    out = encode_basestring(s)
    if not _NEEDS_HTML.isdisjoint(s):
        out = out.translate(_HTML)
    if "\\ud" in out or _has_surrogate(s):
        # Go writes the replacement character for text that is not UTF-8
        out = encode_basestring(s.encode("utf-8", "surrogatepass").decode("utf-8", "replace")).translate(_HTML)
    return out


def _has_surrogate(s: str) -> bool:
    return any("\ud800" <= c <= "\udfff" for c in s) if not s.isascii() else False


def number(value: int | float) -> str:
    """Go's encoding/json text for a number."""
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise ManifestError("json: unsupported value: " + _gonum.go_g(value))
        return _gonum.json_float(value)
    return str(value)


class GoStruct(dict):
    """A mapping Go holds as a struct: encoding/json writes its fields in declaration order (the
    dict's order), not sorted as a map's keys."""


def _write(value: object, indent: str, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(_string(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, (int, float)):
        out.append(number(value))
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = indent + "    "
        out.append("{\n")
        first = True
        for key in (value if isinstance(value, GoStruct) else sorted(value)):
            if not isinstance(key, str):
                raise ManifestError(f"json: unsupported map key type {type(key).__name__}")
            if not first:
                out.append(",\n")
            first = False
            out.append(inner)
            out.append(_string(key))
            out.append(": ")
            _write(value[key], inner, out)
        out.append("\n")
        out.append(indent)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        if not value:
            out.append("[]")
            return
        inner = indent + "    "
        out.append("[\n")
        first = True
        for item in value:
            if not first:
                out.append(",\n")
            first = False
            out.append(inner)
            _write(item, inner, out)
        out.append("\n")
        out.append(indent)
        out.append("]")
    else:
        raise ManifestError(f"json: unsupported type: {type(value).__name__}")


def to_json(obj: object) -> str:
    """The text ``kubectl get -o json`` prints for ``obj``, final newline included."""
    out: list[str] = []
    try:
        _write(obj, "", out)
    except RecursionError:
        raise ManifestError("json: object nests too deeply to print") from None
    out.append("\n")
    return "".join(out)


def to_compact_json(obj: object) -> str:
    """Go's ``json.Marshal`` text (no spaces, sorted keys), as kubectl quotes objects in errors."""
    if isinstance(obj, str):
        return _string(obj)
    if obj is None or isinstance(obj, (bool, int, float)):
        out: list[str] = []
        _write(obj, "", out)
        return out[0]
    if isinstance(obj, dict):
        return "{" + ",".join(_string(k) + ":" + to_compact_json(obj[k]) for k in sorted(obj)) + "}"
    if isinstance(obj, (list, tuple)):
        return "[" + ",".join(to_compact_json(v) for v in obj) + "]"
    raise ManifestError(f"json: unsupported type: {type(obj).__name__}")

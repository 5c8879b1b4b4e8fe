"""The template functions: Go's builtins plus kubectl's exists and base64decode."""
from __future__ import annotations

import base64
import binascii
import urllib.parse

from kubelite.manifest import _gofmt
from kubelite.manifest._gotpl_values import _truth, _Uint8, INVALID, type_name
from kubelite.manifest._govalues import go_sprint


class _CallError(Exception):
    pass


def _basic_kind(value) -> str:
    if value is None or value is INVALID:
        return "invalid"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, _Uint8):
        return "uint"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    return "other"


def _eq(values):
    first, rest = values[0], values[1:]
    if not rest:
        raise _CallError("missing argument for comparison")
    k1 = _basic_kind(first)
    for other in rest:
        k2 = _basic_kind(other)
        if k1 != k2:
            if {k1, k2} == {"int", "uint"}:
                truth = first == other
            elif k1 != "invalid" and k2 != "invalid":
                raise _CallError("incompatible types for comparison")
            else:
                truth = False
        elif k1 in ("other", "invalid"):
            if k1 == "invalid":
                truth = True
            else:
                raise _CallError(f"non-comparable types {go_sprint(first)}: {type_name(first)}, "
                                 f"{type_name(other)}: {go_sprint(other)}")
        else:
            truth = first == other
        if truth:
            return True
    return False


def _lt(values):
    a, b = values
    k1, k2 = _basic_kind(a), _basic_kind(b)
    if k1 in ("invalid", "other") or k2 in ("invalid", "other"):
        raise _CallError("invalid type for comparison")
    if k1 != k2:
        if {k1, k2} == {"int", "uint"}:
            return a < b
        raise _CallError("incompatible types for comparison")
    if k1 == "bool":
        raise _CallError("invalid type for comparison")
    if k1 == "string":
        return a.encode("utf-8") < b.encode("utf-8")
    return a < b


def _le(values):
    return _lt(values) or _eq(values)


def _gt(values):
    return not _le(values)


def _ge(values):
    return not _lt(values)


def _ne(values):
    return not _eq(values)


def _not(values):
    return not _truth(values[0])


def _index_arg(index, length: int, for_slice: bool = False) -> int:
    if isinstance(index, bool) or not isinstance(index, int):
        if index is None:
            raise _CallError("cannot index slice/array with nil")
        raise _CallError(f"cannot index slice/array with type {type_name(index)}")
    if index < 0 or index > length or (not for_slice and index == length):
        raise _CallError(f"index out of range: {index}")
    return index


def _index(values):
    item, indexes = values[0], [None if i is INVALID else i for i in values[1:]]
    if item is None or item is INVALID:
        raise _CallError("index of untyped nil")
    for index in indexes:
        if item is None:
            raise _CallError("index of nil pointer")
        if isinstance(item, (list, str)):
            i = _index_arg(index, len(item.encode("utf-8")) if isinstance(item, str) else len(item))
            item = _Uint8(item.encode("utf-8")[i]) if isinstance(item, str) else item[i]
        elif isinstance(item, dict):
            if index is None:
                index = ""
            if not isinstance(index, str):
                raise _CallError(f"value has type {type_name(index)}; should be string")
            item = item.get(index)
        else:
            raise _CallError(f"can't index item of type {type_name(item)}")
    return item


def _slice(values):
    item, indexes = values[0], [None if i is INVALID else i for i in values[1:]]
    if item is None or item is INVALID:
        raise _CallError("slice of untyped nil")
    if len(indexes) > 3:
        raise _CallError(f"too many slice indexes: {len(indexes)}")
    if isinstance(item, str):
        if len(indexes) == 3:
            raise _CallError("cannot 3-index slice a string")
        data = item.encode("utf-8")
    elif isinstance(item, list):
        data = item
    else:
        raise _CallError(f"can't slice item of type {type_name(item)}")
    bounds = [0, len(data)]
    for i, index in enumerate(indexes):
        x = _index_arg(index, len(data), True)
        if i < 2:
            bounds[i] = x
        else:
            bounds.append(x)
    if bounds[0] > bounds[1]:
        raise _CallError(f"invalid slice index: {bounds[0]} > {bounds[1]}")
    if len(bounds) == 3 and bounds[1] > bounds[2]:
        raise _CallError(f"invalid slice index: {bounds[1]} > {bounds[2]}")
    part = data[bounds[0]:bounds[1]]
    return part.decode("utf-8", "replace") if isinstance(item, str) else part


def _len(values):
    item = values[0]
    if item is INVALID:
        raise _CallError("reflect: call of reflect.Value.Type on zero Value")
    if item is None:
        raise _CallError("len of nil pointer")
    if isinstance(item, str):
        return len(item.encode("utf-8"))
    if isinstance(item, (dict, list)):
        return len(item)
    raise _CallError(f"len of type {type_name(item)}")


def _call(values):
    fn = values[0]
    if fn is None or fn is INVALID:
        raise _CallError("call of nil")
    raise _CallError(f"non-function of type {type_name(fn)}")


def _print(values):
    return _gofmt.sprint(values)


def _println(values):
    return _gofmt.sprintln(values)


def _printf(values):
    return _gofmt.sprintf(values[0], values[1:])


def _eval_args(values) -> str:
    """fmt.Sprint after text/template's printableValue: nil prints as <no value>."""
    if len(values) == 1 and isinstance(values[0], str):
        return values[0]
    return _gofmt.sprint([INVALID if v is None else v for v in values])


def _html(values):
    text = _eval_args(values)
    for a, b in (("&", "&amp;"), ("'", "&#39;"), ('"', "&#34;"), ("<", "&lt;"), (">", "&gt;")):
        text = text.replace(a, b)
    return text.replace("\x00", "\ufffd")


def _js(values):
    out = []
    for ch in _eval_args(values):
        if ch in "\\'\"<>&=":
            out.append({"\\": "\\\\", "'": "\\'", '"': '\\"', "<": "\\u003C", ">": "\\u003E", "&": "\\u0026",
                        "=": "\\u003D"}[ch])
        elif ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04X}")
        elif ord(ch) >= 0x80 and not ch.isprintable():
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return "".join(out)


def _urlquery(values):
    return urllib.parse.quote_plus(_eval_args(values), safe="-_.~")


def _exists(values):
    item, indexes = values[0], values[1:]
    for index in indexes:
        if item is None:
            return False
        if isinstance(item, (list, str)):
            if isinstance(index, bool) or not isinstance(index, int):
                return False
            data = item.encode("utf-8") if isinstance(item, str) else item
            if index < 0 or index >= len(data):
                return False
            item = _Uint8(data[index]) if isinstance(item, str) else data[index]
        elif isinstance(item, dict):
            if index is None:
                index = ""
            if not isinstance(index, str):
                return False
            item = item.get(index)
        else:
            return False
    return item is not None


def _base64decode(values):
    text = values[0]
    try:
        return base64.b64decode(text.encode("utf-8"), validate=True).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        raise _CallError(f"base64 decode failed: illegal base64 data at input byte {_bad_base64_byte(text)}") \
            from None


def _bad_base64_byte(text: str) -> int:
    """Where Go's StdEncoding.DecodeString stops (its CorruptInputError offset)."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    data = text.encode("utf-8")
    clean = [b for b in data if b not in b"\r\n"]
    for i, b in enumerate(clean):
        if chr(b) == "=":
            rest = clean[i:]
            quantum = i % 4
            if quantum < 2 or any(c != ord("=") for c in rest) or len(clean) % 4:
                return i if quantum < 2 else min(i + len(rest), len(clean))
            return i
        if chr(b) not in alphabet:
            return i
    return len(clean) - len(clean) % 4 if len(clean) % 4 else len(clean)


_BUILTINS = {
    "and": None, "or": None, "not": _not, "eq": _eq, "ne": _ne, "lt": _lt, "le": _le, "gt": _gt, "ge": _ge,
    "index": _index, "slice": _slice, "len": _len, "call": _call, "print": _print, "printf": _printf,
    "println": _println, "html": _html, "js": _js, "urlquery": _urlquery, "exists": _exists,
    "base64decode": _base64decode,
}
# (fixed parameters, variadic?) as the Go functions are declared
_SIGNATURES = {
    "and": (1, True), "or": (1, True), "not": (1, False), "eq": (1, True), "ne": (2, False), "lt": (2, False),
    "le": (2, False), "gt": (2, False), "ge": (2, False), "index": (1, True), "slice": (1, True),
    "len": (1, False), "call": (1, True), "print": (0, True), "printf": (1, True), "println": (0, True),
    "html": (0, True), "js": (0, True), "urlquery": (0, True), "exists": (1, True), "base64decode": (1, False),
}
_STRING_PARAMS = {"printf": 1, "base64decode": 1}
_REFLECT_VALUE_PARAMS = frozenset({"and", "or", "not", "eq", "ne", "lt", "le", "gt", "ge", "index", "slice", "len",
                                   "call"})

"""Reading a JSON request body the way kube-apiserver's Go decoder reads it.

Python's json module accepts what Go refuses (NaN, Infinity, any nesting depth within the
recursion limit) and words its errors differently; Go also repairs what Python keeps (invalid
UTF-8 and lone surrogate escapes become U+FFFD). `loads` gives the value Go would see or raises
`JSONBodyError` carrying encoding/json's message, so no body reaches the server as a Python
exception.
"""
from __future__ import annotations

import codecs
import json
import math
import re

from kubelite.manifest._gojson import MAX_DEPTH, syntax_error
from kubelite.manifest._gonum import INT64_MAX, INT64_MIN
from kubelite.schema.gojson import without_lone_surrogates
from kubelite.server.typecheck import FloatLiteral


class JSONBodyError(ValueError):
    """The body is not JSON Go can read; str() is encoding/json's message."""


def _go_replace(exc: UnicodeDecodeError):
    # Go replaces every invalid byte by one U+FFFD (Python would merge a broken sequence into one).
    return "\ufffd" * (exc.end - exc.start), exc.end


codecs.register_error("kubelite-go-replace", _go_replace)

_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
# What has_huge_number looks for, [0-9]{300} or [eE][+]?0*[0-9]{3}, in a body whose digits
# are all written 0 and whose E is written e: three substring searches in C after one pass,
# rather than the expression tried at every byte of every body (~5 us of a 350-byte one).
_NUMBER_SHAPES = bytes(0x30 if 0x30 <= b <= 0x39 else 0x65 if b == 0x45 else b for b in range(256))
_LONG_DIGITS = b"0" * 300


class HugeNumber(FloatLiteral):
    """A JSON number beyond float64 (its value is infinite): Go fails to convert it wherever
    the number has to be kept, so it must not survive decoding."""


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def _may_nest_too_deep(data: bytes) -> bool:
    """Whether `data` could nest deeper than Go's limit: its brackets outside string literals
    counted in C-speed passes (an unterminated string only makes the answer more cautious)."""
    if data.count(b"[") + data.count(b"{") <= MAX_DEPTH:
        return False  # cannot nest deeper than it has openers
    brackets = _STRING.sub(b"", data).translate(None, _NOT_BRACKETS)
    if brackets.count(b"[") + brackets.count(b"{") <= MAX_DEPTH:
        return False
    depth = 0
    for byte in brackets:
        depth += 1 if byte in (0x5B, 0x7B) else -1
        if depth > MAX_DEPTH:
            return True
    return False


def loads(data: bytes, object_pairs_hook=None):
    """The JSON value of `data` as Go decodes it into unstructured values."""
    if _may_nest_too_deep(data):
        problem = syntax_error(data)  # deep enough to matter: Go's depth limit decides
        if problem:
            raise JSONBodyError(problem)
    text = data.decode("utf-8", "kubelite-go-replace")
    try:
        value = json.loads(text, object_pairs_hook=object_pairs_hook, parse_float=_number,
                           parse_int=_integer, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        raise JSONBodyError(syntax_error(data) or "unexpected end of JSON input") from None
    if _SURROGATE_ESCAPE.search(data):
        value = without_lone_surrogates(value)
    return value


def has_huge_number(data: bytes) -> bool:
    """Cheap pre-check: could `data` hold a number float64 cannot represent?"""
    shapes = data.translate(_NUMBER_SHAPES)
    return b"e000" in shapes or b"e+000" in shapes or _LONG_DIGITS in shapes


def find_huge_number(value) -> str | None:
    """The text of the first number in `value` that float64 cannot hold, or None."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, HugeNumber):
            return item.text
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def _number(text: str) -> FloatLiteral:
    value = FloatLiteral(text)
    return HugeNumber(text) if math.isinf(value) else value


def _integer(text: str):
    # Go keeps an int64; any other integer becomes a float64 (4300+ digits: Python's int()
    # refuses them, and they are far beyond int64 anyway).
    if len(text) <= 20:
        n = int(text)
        if INT64_MIN <= n <= INT64_MAX:
            return n
    return _number(text)


def _reject_constant(name: str):
    raise ValueError(name)  # NaN and Infinity are not JSON


__all__ = ["JSONBodyError", "HugeNumber", "loads", "syntax_error", "has_huge_number", "find_huge_number"]

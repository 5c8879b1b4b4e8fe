"""go-yaml v2's resolution of untagged plain scalars (true, 0x1F, .inf, <<), apart from the
YAML reader: the YAML writer asks it which strings need quotes, and must not load PyYAML for that."""
from __future__ import annotations

import math
import re

from . import _gonum


class _Merge:
    """The value of a plain ``<<`` scalar (go-yaml's merge tag)."""


MERGE = _Merge()

_WORDS: dict[str, object] = {}
for _words, _value in (
    (("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    (("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
    (("", "~", "null", "Null", "NULL"), None),
    ((".nan", ".NaN", ".NAN"), math.nan),
    ((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
    (("-.inf", "-.Inf", "-.INF"), -math.inf),
):
    for _w in _words:
        _WORDS[_w] = _value
_WORDS["<<"] = MERGE

# strconv.ParseInt/ParseUint with base 0: sign only for ParseInt, then a
# base prefix or a leading 0 for octal.
_GO_INT = re.compile(r"([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)\Z")
_YAML_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
_DOT_FLOAT = re.compile(r"\.[0-9][0-9_]*([eE][-+]?[0-9][0-9_]*)?\Z")


class _Uint(int):
    """An integer go-yaml decodes as uint64 (above int64's range)."""


def _go_int(text: str) -> int | None:
    m = _GO_INT.match(text)
    if not m:
        return None
    sign, body = m.groups()
    if len(body) > 1 and body[0] == "0":
        p = body[1].lower()
        base, digits = {"x": (16, body[2:]), "o": (8, body[2:]), "b": (2, body[2:])}.get(p, (8, body[1:]))
    else:
        base, digits = 10, body
    if len(digits) > 64:  # beyond 64 bits in any base (and Python's int() refuses 4300+ digits)
        return None
    value = int(digits, base) if digits else 0
    if sign == "-":
        value = -value
    if _gonum.INT64_MIN <= value <= _gonum.INT64_MAX:
        return value
    if not sign and value <= _gonum.UINT64_MAX:
        return _Uint(value)
    return None


def resolve_plain(text: str) -> object:
    """go-yaml v2's value for an untagged plain scalar."""
    if not text:
        return None
    c = text[0]
    if c in "yYnNtTfFoO~":
        return _WORDS.get(text, text)
    if c == ".":
        if text in _WORDS:
            return _WORDS[text]
        if _DOT_FLOAT.match(text):
            try:
                f = float(text)
            except ValueError:
                return text
            return text if math.isinf(f) else f
        return text
    if c in "+-0123456789":
        if text in _WORDS:
            return _WORDS[text]
        plain = text.replace("_", "")
        n = _go_int(plain)
        if n is not None:
            return n
        if _YAML_FLOAT.match(plain):
            f = float(plain)
            # ParseFloat reports overflow as an error: the text stays a string
            return text if math.isinf(f) else f
        return text
    return text

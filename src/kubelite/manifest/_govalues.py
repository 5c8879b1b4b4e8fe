"""How Go prints the JSON values a template selected: fmt's %v and %#v, strconv.Quote, encoding/json."""

from __future__ import annotations

import json
import math
import re

from kubelite.manifest._jp_values import _Byte, _INVALID

TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
    from typing import Any


def _decimal_digits(value: float) -> tuple[str, int]:
    """Shortest round-trip digits of |value| and the decimal point position.

    ``value == 0.DIGITS * 10**point`` (Go's decimalSlice ``d`` and ``dp``).
    """
    mantissa, _, exp = repr(abs(value)).partition("e")
    whole, _, frac = mantissa.partition(".")
    all_digits = whole + frac
    stripped = all_digits.lstrip("0")
    point = len(whole) - (len(all_digits) - len(stripped)) + (int(exp) if exp else 0)
    return stripped.rstrip("0") or "0", point


def _fmt_e(sign: str, digits: str, point: int) -> str:
    exponent = point - 1
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"


def _fmt_f(sign: str, digits: str, point: int) -> str:
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


def _special_float(value: float) -> str | None:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1, value) < 0 else "0"
    return None


def _go_float(value: float) -> str:
    """Go's %v / %#v of a float64 (%g with the shortest digits)."""
    special = _special_float(value)
    if special is not None:
        return special
    sign = "-" if value < 0 else ""
    digits, point = _decimal_digits(value)
    exponent = point - 1
    if exponent < -4 or exponent >= 6:
        return _fmt_e(sign, digits, point)
    return _fmt_f(sign, digits, point)


def _go_json_float(value: float) -> str:
    """encoding/json's rendering of a float64."""
    special = _special_float(value)
    if special is not None:
        return special
    sign = "-" if value < 0 else ""
    digits, point = _decimal_digits(value)
    if abs(value) < 1e-6 or abs(value) >= 1e21:
        text = _fmt_e(sign, digits, point)
        return re.sub(r"e-0(\d)$", r"e-\1", text)
    return _fmt_f(sign, digits, point)


def _as_go_number(value: int) -> int | float:
    """Integers beyond int64 decode as float64 in Go's unstructured values."""
    return int(value) if -(2**63) <= value < 2**63 else float(value)


def _go_int(value: int) -> str:
    number = _as_go_number(value)
    return str(number) if isinstance(number, int) else _go_float(number)


_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _json_string(text: str) -> str:
    encoded = json.dumps(text, ensure_ascii=False)
    return re.sub("[<>&\u2028\u2029]", lambda m: _JSON_ESCAPES[m.group(0)], encoded)


def go_json(value: Any) -> str:
    """Compact JSON exactly as Go's json.Marshal writes an unstructured value."""
    if value is None or value is _INVALID:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        number = _as_go_number(value)
        return str(number) if isinstance(number, int) else _go_json_float(number)
    if isinstance(value, float):
        return _go_json_float(value)
    if isinstance(value, str):
        return _json_string(value)
    if isinstance(value, dict):
        items = (f"{_json_string(str(key))}:{go_json(value[key])}" for key in sorted(value, key=_utf8_key))
        return "{" + ",".join(items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(go_json(item) for item in value) + "]"
    raise TypeError(f"cannot encode {type(value).__name__} as JSON")


def _utf8_key(key: Any) -> bytes:
    return str(key).encode("utf-8")


def go_sprint(value: Any) -> str:
    """Go's fmt.Sprint of an unstructured value (%v)."""
    if value is None or value is _INVALID:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return _go_int(value)
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        items = (f"{key}:{go_sprint(value[key])}" for key in sorted(value, key=_utf8_key))
        return "map[" + " ".join(items) + "]"
    if isinstance(value, (list, tuple)):
        return "[" + " ".join(go_sprint(item) for item in value) + "]"
    return str(value)


def go_quote(text: str) -> str:
    """Go's strconv.Quote."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif ch in "\a\b\f\n\r\t\v":
            out.append({"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}[ch])
        elif ch.isprintable() or ch == " ":
            out.append(ch)
        elif code < 0x80:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def go_sharp_v(value: Any, nested: bool = False) -> str:
    """Go's %#v of an unstructured value, as kubectl's debugging output shows it."""
    if value is None or value is _INVALID:
        return "interface {}(nil)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, _Byte):
        return f"0x{int(value):x}"
    if isinstance(value, int):
        return _go_int(value)
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, dict):
        items = (f"{go_quote(str(key))}:{go_sharp_v(value[key], True)}" for key in sorted(value, key=_utf8_key))
        return "map[string]interface {}{" + ", ".join(items) + "}"
    if isinstance(value, (list, tuple)):
        return "[]interface {}{" + ", ".join(go_sharp_v(item, True) for item in value) + "}"
    return repr(value)

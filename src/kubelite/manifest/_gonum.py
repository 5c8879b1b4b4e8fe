"""Number formatting the way Go's strconv and encoding/json print floats.

kubectl's output goes through Go twice: encoding/json writes the numbers of
`-o json`, and the YAML printer re-reads that JSON with go-yaml, which prints
floats with strconv's shortest 'g' format. Python's repr() finds the same
shortest digits; only the layout around them differs, which is done here.
"""
from __future__ import annotations

import math
import struct

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1


def shortest_digits(f: float) -> tuple[str, int]:
    """Shortest round-trip decimal digits of abs(f) and the decimal point position.

    The value is 0.DIGITS * 10**point, as strconv's decimal representation.
    """
    r = repr(abs(f))
    if r == "0.0":
        return "0", 1
    mant, _, exp = r.partition("e")
    whole, _, frac = mant.partition(".")
    if frac == "0":
        frac = ""
    digits = (whole + frac).lstrip("0")
    point = len(whole) + (int(exp) if exp else 0)
    if whole == "0":
        # 0.00123 -> digits "123", point -2
        stripped = frac.lstrip("0")
        point = -(len(frac) - len(stripped)) + (int(exp) if exp else 0)
        digits = stripped
    digits = digits.rstrip("0") or "0"
    return digits, point


def _fmt_e(neg: bool, digits: str, point: int, min_exp_digits: int) -> str:
    mant = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    exp = point - 1
    sign = "-" if exp < 0 else "+"
    return ("-" if neg else "") + mant + "e" + sign + str(abs(exp)).rjust(min_exp_digits, "0")


def _fmt_f(neg: bool, digits: str, point: int) -> str:
    if point <= 0:
        body = "0." + "0" * (-point) + digits
    elif point >= len(digits):
        body = digits + "0" * (point - len(digits))
    else:
        body = digits[:point] + "." + digits[point:]
    return ("-" if neg else "") + body


def json_float(f: float) -> str:
    """encoding/json's text for a float64 (ES6-like: 'f' unless tiny or huge)."""
    if math.isnan(f) or math.isinf(f):
        raise ValueError(f"json: unsupported value: {go_g(f)}")
    neg = math.copysign(1.0, f) < 0
    if f == 0:
        return "-0" if neg else "0"
    digits, point = shortest_digits(f)
    a = abs(f)
    if a < 1e-6 or a >= 1e21:
        return _fmt_e(neg, digits, point, 1)
    return _fmt_f(neg, digits, point)


def go_g(f: float) -> str:
    """strconv.FormatFloat(f, 'g', -1, 64), with go-yaml's names for Inf/NaN."""
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    neg = math.copysign(1.0, f) < 0
    if f == 0:
        return "-0" if neg else "0"
    digits, point = shortest_digits(f)
    exp = point - 1
    # shortest 'g' switches to exponent form below 1e-4 and from 1e6 up
    if exp < -4 or exp >= 6:
        return _fmt_e(neg, digits, point, 2)
    return _fmt_f(neg, digits, point)


def float32_g(f: float) -> str:
    """strconv.FormatFloat(f, 'g', -1, 32): shortest digits that round-trip as float32."""
    if math.isnan(f) or math.isinf(f):
        return go_g(f)
    try:
        f32 = struct.unpack("f", struct.pack("f", f))[0]
    except OverflowError:  # beyond float32: Go's conversion gives an infinity
        return go_g(math.copysign(math.inf, f))
    if f32 == 0:
        return "-0" if math.copysign(1.0, f32) < 0 else "0"
    for prec in range(1, 10):
        text = f"{f32:.{prec}g}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == f32:
            break
    return go_g(float(text))

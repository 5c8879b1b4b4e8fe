"""Go runtime behaviour the strategic merge patch engine depends on.

apimachinery's results are shaped by a few Go details: values print with `fmt`'s `%v`
(sort keys and error texts use it), `==` on interface values distinguishes int64 from
float64 and never equates a bool with a number, `sort.Sort` runs insertion sort on short
slices with a `Less` that is really `<=`, `sort.SliceStable` is insertion sort plus SymMerge,
and `json.Marshal` sorts keys and formats floats its own way. This module reproduces those.
"""
from __future__ import annotations

import math
from decimal import Decimal
from typing import Any, Callable

# -- value identity ------------------------------------------------------------------------


_KINDS = {dict: "map", list: "slice", str: "string", bool: "bool", float: "float64", type(None): "nil"}
_INT64_MIN, _INT64_LIMIT = -(2**63), 2**63


def kind_of(value: Any) -> str:
    """The Go dynamic type a decoded JSON value would have (apimachinery's json decoding)."""
    t = type(value)
    kind = _KINDS.get(t)
    if kind is not None:
        return kind
    if t is int:
        return "int64" if _INT64_MIN <= value < _INT64_LIMIT else "float64"
    if isinstance(value, dict):
        return "map"
    if isinstance(value, list):
        return "slice"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64" if _INT64_MIN <= value < _INT64_LIMIT else "float64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    return type(value).__name__


def scalar_key(value: Any) -> Any:
    """A hashable identity equal exactly when Go's `==` on two interface values is true."""
    if type(value) is str:
        return value  # the common case; no other kind's identity is a bare str
    k = kind_of(value)
    if k == "float64":
        return (k, float(value))
    if k in ("map", "slice"):
        # Go would panic comparing these; a structural identity keeps us total.
        return (k, marshal(value))
    return (k, value)


def same(a: Any, b: Any) -> bool:
    """Go `a == b` for two interface values holding decoded JSON."""
    return scalar_key(a) == scalar_key(b)


def deep_equal(a: Any, b: Any) -> bool:
    """reflect.DeepEqual on decoded JSON: type-aware and recursive, list order significant."""
    if isinstance(a, dict):
        if not isinstance(b, dict) or len(a) != len(b):
            return False
        for k, v in a.items():
            if k not in b or not deep_equal(v, b[k]):
                return False
        return True
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            return False
        return all(deep_equal(x, y) for x, y in zip(a, b))
    if isinstance(b, (dict, list)):
        return False
    return same(a, b)


# -- fmt %v ----------------------------------------------------------------------------------


def _digits(f: float) -> tuple[str, int]:
    """Shortest round-trip decimal digits of a finite non-zero |f| and its decimal point position."""
    sign, digits, exponent = Decimal(repr(abs(f))).normalize().as_tuple()
    ds = "".join(map(str, digits))
    return ds, len(ds) + exponent  # value = 0.ds * 10**dp


def _exp_form(ds: str, dp: int, echar: str = "e") -> str:
    mant = ds[0] + ("." + ds[1:] if len(ds) > 1 else "")
    exp = dp - 1
    sign = "-" if exp < 0 else "+"
    return f"{mant}{echar}{sign}{abs(exp):02d}"


def _fixed_form(ds: str, dp: int) -> str:
    if dp <= 0:
        return "0." + "0" * (-dp) + ds
    if dp >= len(ds):
        return ds + "0" * (dp - len(ds))
    return ds[:dp] + "." + ds[dp:]


def format_float_v(f: float) -> str:
    """strconv.FormatFloat(f, 'g', -1, 64), which is what `%v` prints for a float64."""
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    if f == 0:
        return "-0" if math.copysign(1, f) < 0 else "0"
    ds, dp = _digits(f)
    exp = dp - 1
    body = _exp_form(ds, dp) if exp < -4 or exp >= 6 else _fixed_form(ds, dp)
    return ("-" if f < 0 else "") + body


def fmt_v(value: Any) -> str:
    """fmt.Sprintf("%v", value) for decoded JSON (maps print with sorted keys)."""
    if value is None:
        return "<nil>"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value) if kind_of(value) == "int64" else format_float_v(float(value))
    if isinstance(value, float):
        return format_float_v(value)
    if isinstance(value, list):
        return "[" + " ".join(fmt_v(v) for v in value) + "]"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{fmt_v(value[k])}" for k in sorted(value)) + "]"
    return str(value)


# -- json.Marshal ----------------------------------------------------------------------------

_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def _quote(s: str) -> str:
    out = []
    for ch in s:
        esc = _ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
        elif ch < " ":
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _marshal_float(f: float) -> str:
    if math.isnan(f) or math.isinf(f):
        raise ValueError(f"json: unsupported value: {format_float_v(f)}")
    if f == 0:
        return "-0" if math.copysign(1, f) < 0 else "0"
    ds, dp = _digits(f)
    a = abs(f)
    if a < 1e-6 or a >= 1e21:
        body = _exp_form(ds, dp)
        # Go trims one leading zero of a negative two-digit exponent (e-07 -> e-7).
        if body[-4:-2] == "-0":
            body = body[:-2] + body[-1]
        elif body[-4:-2] == "+0":
            body = body[:-2] + body[-1]
    else:
        body = _fixed_form(ds, dp)
    return ("-" if f < 0 else "") + body


def marshal(value: Any) -> str:
    """json.Marshal of decoded JSON: compact, map keys sorted, Go's float and HTML escaping."""
    parts: list[str] = []
    stack: list[Any] = [value]
    # Iterative so deep documents do not exhaust the Python stack.
    while stack:
        v = stack.pop()
        if isinstance(v, _Lit):
            parts.append(v.text)
        elif isinstance(v, dict):
            keys = sorted(v)
            if not keys:
                parts.append("{}")
                continue
            stack.append(_Lit("}"))
            for i in range(len(keys) - 1, -1, -1):
                stack.append(v[keys[i]])
                stack.append(_Lit(("," if i else "{") + _quote(keys[i]) + ":"))
        elif isinstance(v, list):
            if not v:
                parts.append("[]")
                continue
            stack.append(_Lit("]"))
            for i in range(len(v) - 1, -1, -1):
                stack.append(v[i])
                stack.append(_Lit("," if i else "["))
        elif v is None:
            parts.append("null")
        elif v is True:
            parts.append("true")
        elif v is False:
            parts.append("false")
        elif isinstance(v, str):
            parts.append(_quote(v))
        elif isinstance(v, int):
            parts.append(str(v) if kind_of(v) == "int64" else _marshal_float(float(v)))
        elif isinstance(v, float):
            parts.append(_marshal_float(v))
        else:
            parts.append(_quote(str(v)))
    return "".join(parts)


class _Lit:
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


# -- sorting ---------------------------------------------------------------------------------


def sort_by_string(items: list, key: Callable[[Any], str]) -> list:
    """sort.Sort with `Less(i, j) = str(i) <= str(j)` as apimachinery writes it.

    Go uses insertion sort for up to 12 elements; with `<=` equal keys end up in reverse
    order of arrival. Longer slices go through pdqsort, whose treatment of equal keys we do
    not reproduce: there the order among equal keys is reversed as well, which agrees with
    Go whenever keys are distinct.
    """
    keyed = [(key(v), v) for v in items]
    n = len(keyed)
    if n <= 12:
        for i in range(1, n):
            j = i
            while j > 0 and keyed[j][0] <= keyed[j - 1][0]:
                keyed[j], keyed[j - 1] = keyed[j - 1], keyed[j]
                j -= 1
        return [v for _, v in keyed]
    keyed.reverse()
    keyed.sort(key=lambda kv: kv[0])
    return [v for _, v in keyed]


def stable_sort(data: list, less: Callable[[Any, Any], bool]) -> None:
    """sort.SliceStable in place, step for step (results depend on it when `less` is not a
    strict order, as in normalizeSliceOrder)."""
    n = len(data)

    def lt(i: int, j: int) -> bool:
        return less(data[i], data[j])

    def swap(i: int, j: int) -> None:
        data[i], data[j] = data[j], data[i]

    def insertion(a: int, b: int) -> None:
        for i in range(a + 1, b):
            j = i
            while j > a and lt(j, j - 1):
                swap(j, j - 1)
                j -= 1

    def swap_range(a: int, b: int, count: int) -> None:
        for i in range(count):
            swap(a + i, b + i)

    def rotate(a: int, m: int, b: int) -> None:
        i, j = m - a, b - m
        while i != j:
            if i > j:
                swap_range(m - i, m, j)
                i -= j
            else:
                swap_range(m - i, m + j - i, i)
                j -= i
        swap_range(m - i, m, i)

    def sym_merge(a: int, m: int, b: int) -> None:
        if m - a == 1:
            i, j = m, b
            while i < j:
                h = (i + j) >> 1
                if lt(h, a):
                    i = h + 1
                else:
                    j = h
            for k in range(a, i - 1):
                swap(k, k + 1)
            return
        if b - m == 1:
            i, j = a, m
            while i < j:
                h = (i + j) >> 1
                if not lt(m, h):
                    i = h + 1
                else:
                    j = h
            for k in range(m, i, -1):
                swap(k, k - 1)
            return
        mid = (a + b) >> 1
        total = mid + m
        if m > mid:
            start, r = total - b, mid
        else:
            start, r = a, m
        p = total - 1
        while start < r:
            c = (start + r) >> 1
            if not lt(p - c, c):
                start = c + 1
            else:
                r = c
        end = total - start
        if start < m < end:
            rotate(start, m, end)
        if a < start < mid:
            sym_merge(a, start, mid)
        if mid < end < b:
            sym_merge(mid, end, b)

    block = 20
    a, b = 0, block
    while b <= n:
        insertion(a, b)
        a, b = b, b + block
    insertion(a, n)
    while block < n:
        a, b = 0, 2 * block
        while b <= n:
            sym_merge(a, a + block, b)
            a, b = b, b + 2 * block
        m = a + block
        if m < n:
            sym_merge(a, m, n)
        block *= 2


def dedupe_scalars(items: list) -> list:
    """apimachinery's de-duplication: a duplicate is overwritten by the last element, so the
    survivors' order is not simply first-occurrence order."""
    s = list(items)
    return s[: dedupe_in_place(s)]


def dedupe_in_place(s: list) -> int:
    """The same, writing into `s` as Go writes into the slice's backing array (positions past
    the returned length keep stale values, which aliasing slices can still see)."""
    length = len(s) - 1
    i = 0
    while i < length:
        j = i + 1
        while j <= length:
            if same(s[i], s[j]):
                s[j] = s[length]
                length -= 1
                j -= 1
            j += 1
        i += 1
    return max(length + 1, 0)


def decoded_capacity(n: int) -> int:
    """cap() of a slice of n elements decoded from JSON: encoding/json appends one element at
    a time, so capacity follows Go's append growth (doubling below 256 elements)."""
    if n == 0:
        return 0
    cap = 1
    while cap < n:
        cap = cap * 2 if cap < 256 else cap + (cap + 768) // 4
    return cap


def type_name(value: Any) -> str:
    """reflect.TypeOf(value).String() for decoded JSON, as mergepatch error messages print it."""
    return {
        "map": "map[string]interface {}",
        "slice": "[]interface {}",
        "nil": "<nil>",
    }.get(kind_of(value), kind_of(value))


def fmt_s(value: Any) -> str:
    """fmt.Sprintf("%s", value): strings as-is, other values in Go's %!s(type=value) form."""
    if isinstance(value, str):
        return value
    if value is None:
        return "%!s(<nil>)"
    if isinstance(value, (dict, list)):
        return fmt_v(value)
    return f"%!s({kind_of(value)}={fmt_v(value)})"

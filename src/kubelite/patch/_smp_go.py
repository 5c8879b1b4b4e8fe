"""Go runtime behaviour the strategic merge patch engine depends on.

apimachinery's results are shaped by a few Go details: values print with `fmt`'s `%v`
(sort keys and error texts use it), `==` on interface values distinguishes int64 from
float64 and never equates a bool with a number, `sort.Sort` runs insertion sort on short
slices with a `Less` that is really `<=`, `sort.SliceStable` is insertion sort plus SymMerge,
and `json.Marshal` sorts keys and formats floats its own way. This module reproduces those.
"""
from __future__ import annotations

import json
import math
import re
TYPE_CHECKING = False  # typing's import is a tenth of a short command's start; annotations only
if TYPE_CHECKING:
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
    from decimal import Decimal  # only documents with floats need it (~1 ms of every patch's start)

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


# Any character _quote writes otherwise than as itself (most strings have none: one C-level scan).
_NEEDS_ESCAPE = re.compile('[\x00-\x1f"\\\\<>&\u2028\u2029]')


def _quote(s: str) -> str:
    if _NEEDS_ESCAPE.search(s) is None:
        return '"' + s + '"'
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
        if body[-4:-1] == "e-0":
            body = body[:-2] + body[-1]
    else:
        body = _fixed_form(ds, dp)
    return ("-" if f < 0 else "") + body


def marshal(value: Any) -> str:
    """json.Marshal of decoded JSON: compact, map keys sorted, Go's float and HTML escaping."""
    text = _encoded(value) if _plain(value) else None
    return text if text is not None else _marshal_walk(value)


def _encoded(value: Any) -> str | None:
    """A plain document as Go writes it, through the C encoder; None when it cannot say."""
    try:
        text = _encode(value)
    except RecursionError:  # too deep for the encoder: the walk is iterative
        return None
    if "\\b" in text or "\\f" in text:
        return None  # Go writes \u0008 and \u000c (an escaped backslash before b or f lands here too)
    for ch, escaped in _HTML_ESCAPES:
        if ch in text:
            text = text.replace(ch, escaped)
    return text


def _plain(value: Any) -> bool:
    """Whether a document holds only what Python's JSON encoder writes as Go's does: string keys,
    strings, int64 integers, booleans and nulls (floats and wider integers are Go's own)."""
    stack = [value]
    while stack:
        v = stack.pop()
        t = type(v)
        if t is str or t is bool or v is None:
            continue
        if t is dict:
            for k in v:
                if type(k) is not str:
                    return False
            stack.extend(v.values())
        elif t is list:
            stack.extend(v)
        elif t is not int or not _INT64_MIN <= v < _INT64_LIMIT:
            return False
    return True


_HTML_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
                 ("\u2029", "\\u2029"))
_encode = json.JSONEncoder(ensure_ascii=False, check_circular=False, allow_nan=False, sort_keys=True,
                           separators=(",", ":")).encode


def _marshal_walk(value: Any) -> str:
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
    """sort.Sort with `Less(i, j) = key(i) <= key(j)`, as apimachinery writes it.

    The order among equal keys depends on Go's algorithm (pattern-defeating quicksort, with
    insertion sort up to 12 elements; with `<=` equal keys mostly end up reversed), so it is
    reproduced step for step.
    """
    keys = [key(v) for v in items]
    order = list(range(len(items)))
    _PdqSort(keys, order).run()
    return [items[i] for i in order]


class _PdqSort:
    """Go's sort.Sort (pdqsort) over `order`, comparing `keys[order[i]] <= keys[order[j]]`."""

    __slots__ = ("keys", "order")

    def __init__(self, keys: list, order: list):
        self.keys, self.order = keys, order

    def less(self, i: int, j: int) -> bool:
        return self.keys[self.order[i]] <= self.keys[self.order[j]]

    def swap(self, i: int, j: int) -> None:
        o = self.order
        o[i], o[j] = o[j], o[i]

    def run(self) -> None:
        n = len(self.order)
        self.pdq(0, n, n.bit_length())

    def insertion(self, a: int, b: int) -> None:
        for i in range(a + 1, b):
            j = i
            while j > a and self.less(j, j - 1):
                self.swap(j, j - 1)
                j -= 1

    def sift_down(self, lo: int, hi: int, first: int) -> None:
        root = lo
        while True:
            child = 2 * root + 1
            if child >= hi:
                return
            if child + 1 < hi and self.less(first + child, first + child + 1):
                child += 1
            if not self.less(first + root, first + child):
                return
            self.swap(first + root, first + child)
            root = child

    def heap_sort(self, a: int, b: int) -> None:
        first, hi = a, b - a
        for i in range((hi - 1) // 2, -1, -1):
            self.sift_down(i, hi, first)
        for i in range(hi - 1, -1, -1):
            self.swap(first, first + i)
            self.sift_down(0, i, first)

    def pdq(self, a: int, b: int, limit: int) -> None:
        was_balanced = was_partitioned = True
        while True:
            length = b - a
            if length <= 12:
                self.insertion(a, b)
                return
            if limit == 0:
                self.heap_sort(a, b)
                return
            if not was_balanced:
                self.break_patterns(a, b)
                limit -= 1
            pivot, hint = self.choose_pivot(a, b)
            if hint == "decreasing":
                self.reverse(a, b)
                pivot = (b - 1) - (pivot - a)
                hint = "increasing"
            if was_balanced and was_partitioned and hint == "increasing":
                if self.partial_insertion(a, b):
                    return
            if a > 0 and not self.less(a - 1, pivot):
                a = self.partition_equal(a, b, pivot)
                continue
            mid, was_partitioned = self.partition(a, b, pivot)
            left, right = mid - a, b - mid
            threshold = length // 8
            if left < right:
                was_balanced = left >= threshold
                self.pdq(a, mid, limit)
                a = mid + 1
            else:
                was_balanced = right >= threshold
                self.pdq(mid + 1, b, limit)
                b = mid

    def partition(self, a: int, b: int, pivot: int) -> tuple[int, bool]:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while i <= j and self.less(i, a):
            i += 1
        while i <= j and not self.less(j, a):
            j -= 1
        if i > j:
            self.swap(j, a)
            return j, True
        self.swap(i, j)
        i += 1
        j -= 1
        while True:
            while i <= j and self.less(i, a):
                i += 1
            while i <= j and not self.less(j, a):
                j -= 1
            if i > j:
                break
            self.swap(i, j)
            i += 1
            j -= 1
        self.swap(j, a)
        return j, False

    def partition_equal(self, a: int, b: int, pivot: int) -> int:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while True:
            while i <= j and not self.less(a, i):
                i += 1
            while i <= j and self.less(a, j):
                j -= 1
            if i > j:
                return i
            self.swap(i, j)
            i += 1
            j -= 1

    def partial_insertion(self, a: int, b: int) -> bool:
        i = a + 1
        for _ in range(5):
            while i < b and not self.less(i, i - 1):
                i += 1
            if i == b:
                return True
            if b - a < 50:
                return False
            self.swap(i, i - 1)
            if i - a >= 2:
                j = i - 1
                while j >= 1:
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
                    j -= 1
            if b - i >= 2:
                j = i + 1
                while j < b:
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
                    j += 1
        return False

    def break_patterns(self, a: int, b: int) -> None:
        length = b - a
        if length >= 8:
            state = length
            modulus = 1 << length.bit_length()
            idx = a + (length // 4) * 2 - 1
            for i in range(3):
                state ^= (state << 13) & _U64
                state ^= state >> 7
                state ^= (state << 17) & _U64
                other = state & (modulus - 1)
                if other >= length:
                    other -= length
                self.swap(idx - 1 + i, a + other)

    def choose_pivot(self, a: int, b: int) -> tuple[int, str]:
        n = b - a
        swaps = [0]
        i, j, k = a + n // 4 * 1, a + n // 4 * 2, a + n // 4 * 3
        if n >= 8:
            if n >= 50:
                i = self.median(i - 1, i, i + 1, swaps)
                j = self.median(j - 1, j, j + 1, swaps)
                k = self.median(k - 1, k, k + 1, swaps)
            j = self.median(i, j, k, swaps)
        if swaps[0] == 0:
            return j, "increasing"
        if swaps[0] == 12:
            return j, "decreasing"
        return j, "unknown"

    def median(self, a: int, b: int, c: int, swaps: list) -> int:
        a, b = self.order2(a, b, swaps)
        b, c = self.order2(b, c, swaps)
        a, b = self.order2(a, b, swaps)
        return b

    def order2(self, a: int, b: int, swaps: list) -> tuple[int, int]:
        if self.less(b, a):
            swaps[0] += 1
            return b, a
        return a, b

    def reverse(self, a: int, b: int) -> None:
        i, j = a, b - 1
        while i < j:
            self.swap(i, j)
            i += 1
            j -= 1


_U64 = (1 << 64) - 1


def stable_sort(data: list, less: Callable[[Any, Any], bool]) -> None:
    """sort.SliceStable in place, step for step (results depend on it when `less` is not a
    strict order, as in normalizeSliceOrder). Module-level steps, not closures: closures that
    call each other (sym_merge calls itself) are reference cycles, left for the garbage collector
    after every sort (a strategic merge of a pod's status sorted four lists)."""
    n = len(data)
    block = 20
    a, b = 0, block
    while b <= n:
        _insertion(data, less, a, b)
        a, b = b, b + block
    _insertion(data, less, a, n)
    while block < n:
        a, b = 0, 2 * block
        while b <= n:
            _sym_merge(data, less, a, a + block, b)
            a, b = b, b + 2 * block
        m = a + block
        if m < n:
            _sym_merge(data, less, a, m, n)
        block *= 2


def _insertion(data: list, less: Callable[[Any, Any], bool], a: int, b: int) -> None:
    for i in range(a + 1, b):
        j = i
        while j > a and less(data[j], data[j - 1]):
            data[j], data[j - 1] = data[j - 1], data[j]
            j -= 1


def _swap_range(data: list, a: int, b: int, count: int) -> None:
    for i in range(count):
        data[a + i], data[b + i] = data[b + i], data[a + i]


def _rotate(data: list, a: int, m: int, b: int) -> None:
    i, j = m - a, b - m
    while i != j:
        if i > j:
            _swap_range(data, m - i, m, j)
            i -= j
        else:
            _swap_range(data, m - i, m + j - i, i)
            j -= i
    _swap_range(data, m - i, m, i)


def _sym_merge(data: list, less: Callable[[Any, Any], bool], a: int, m: int, b: int) -> None:
    if m - a == 1:
        i, j = m, b
        while i < j:
            h = (i + j) >> 1
            if less(data[h], data[a]):
                i = h + 1
            else:
                j = h
        for k in range(a, i - 1):
            data[k], data[k + 1] = data[k + 1], data[k]
        return
    if b - m == 1:
        i, j = a, m
        while i < j:
            h = (i + j) >> 1
            if not less(data[m], data[h]):
                i = h + 1
            else:
                j = h
        for k in range(m, i, -1):
            data[k], data[k - 1] = data[k - 1], data[k]
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
        if not less(data[p - c], data[c]):
            start = c + 1
        else:
            r = c
    end = total - start
    if start < m < end:
        _rotate(data, start, m, end)
    if a < start < mid:
        _sym_merge(data, less, a, start, mid)
    if mid < end < b:
        _sym_merge(data, less, mid, end, b)


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

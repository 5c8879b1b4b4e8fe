"""The CEL libraries kube-apiserver 1.32 adds to its environments, as celpy functions.

Extended strings (charAt, indexOf, lastIndexOf, lowerAscii, upperAscii, replace, split, substring,
trim, join, reverse, format), Kubernetes lists (isSorted, sum, min, max, indexOf, lastIndexOf),
regex (find, findAll), url (url, isURL, getScheme, getHost, getHostname, getPort, getEscapedPath,
getQuery) and quantity (quantity, isQuantity, sign, isInteger, asInteger, asApproximateFloat, add,
sub, compareTo, isLessThan, isGreaterThan). Quantities are read by `kubelite.quantity`.

A function given arguments of types it has no overload for raises TypeError, which celpy reports
as "no such overload"; other failures are returned as errors with cel-go's words.
"""
from __future__ import annotations

import urllib.parse
from fractions import Fraction

import re2
from celpy import celtypes
from celpy.evaluation import CELEvalError

from kubelite.quantity import QuantityError, parse_quantity

_INT64 = (-(2**63), 2**63 - 1)


def error(message: str) -> CELEvalError:
    return CELEvalError(message, ValueError, None)


def _is_list(value) -> bool:
    return isinstance(value, list)


def _is_str(value) -> bool:
    return isinstance(value, str)


def _int(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("not an int")
    return int(value)


def _string(value) -> str:
    if not _is_str(value):
        raise TypeError("not a string")
    return str(value)


# -- strings -------------------------------------------------------------------------------------

def char_at(s, i):
    s, i = _string(s), _int(i)
    if i < 0 or i > len(s):
        return error(f"index out of range: {i}")
    return celtypes.StringType(s[i:i + 1])


def index_of(target, item, offset=None):
    if _is_list(target):
        from kubelite.server.cel.engine import equal

        for n, value in enumerate(target):
            if equal(value, item):
                return celtypes.IntType(n)
        return celtypes.IntType(-1)
    s, sub = _string(target), _string(item)
    start = 0 if offset is None else _int(offset)
    if start < 0 or start > len(s):
        return error(f"index out of range: {start}")
    return celtypes.IntType(s.find(sub, start))


def last_index_of(target, item, offset=None):
    if _is_list(target):
        from kubelite.server.cel.engine import equal

        for n in range(len(target) - 1, -1, -1):
            if equal(target[n], item):
                return celtypes.IntType(n)
        return celtypes.IntType(-1)
    s, sub = _string(target), _string(item)
    end = len(s) if offset is None else _int(offset)
    if end < 0 or end > len(s):
        return error(f"index out of range: {end}")
    return celtypes.IntType(s.rfind(sub, 0, end + len(sub)))


def lower_ascii(s):
    return celtypes.StringType("".join(c.lower() if c.isascii() else c for c in _string(s)))


def upper_ascii(s):
    return celtypes.StringType("".join(c.upper() if c.isascii() else c for c in _string(s)))


def replace(s, old, new, n=None):
    count = -1 if n is None else _int(n)
    return celtypes.StringType(_string(s).replace(_string(old), _string(new), count if count >= 0 else -1))


def split(s, sep, n=None):
    s, sep = _string(s), _string(sep)
    limit = -1 if n is None else _int(n)
    if limit == 0:
        return celtypes.ListType()
    if sep == "":
        parts = list(s)
        if 0 < limit < len(parts):
            parts = parts[:limit - 1] + ["".join(parts[limit - 1:])]
    else:
        parts = s.split(sep, limit - 1) if limit > 0 else s.split(sep)
    return celtypes.ListType(celtypes.StringType(p) for p in parts)


def substring(s, start, end=None):
    s, start = _string(s), _int(start)
    stop = len(s) if end is None else _int(end)
    if start < 0 or start > len(s):
        return error(f"index out of range: {start}")
    if stop < 0 or stop > len(s):
        return error(f"index out of range: {stop}")
    if start > stop:
        return error(f"invalid substring range. start: {start}, end: {stop}")
    return celtypes.StringType(s[start:stop])


def trim(s):
    return celtypes.StringType(_string(s).strip())


def join(items, sep=None):
    if not _is_list(items):
        raise TypeError("not a list")
    separator = "" if sep is None else _string(sep)
    return celtypes.StringType(separator.join(_string(v) for v in items))


def reverse(s):
    return celtypes.StringType(_string(s)[::-1])


def format_string(fmt, args):
    """`"%s and %d".format([a, b])`: the verbs %s %d %f %e %x %X %o %b and %%."""
    fmt = _string(fmt)
    if not _is_list(args):
        raise TypeError("not a list")
    out, i, n = [], 0, 0
    while i < len(fmt):
        c = fmt[i]
        if c != "%":
            out.append(c)
            i += 1
            continue
        j = i + 1
        precision = None
        if j < len(fmt) and fmt[j] == ".":
            k = j + 1
            while k < len(fmt) and fmt[k].isdigit():
                k += 1
            precision = int(fmt[j + 1:k] or 0)
            j = k
        if j >= len(fmt):
            return error("unexpected end of format string")
        verb = fmt[j]
        if verb == "%":
            out.append("%")
            i = j + 1
            continue
        if n >= len(args):
            return error(f"index {n} out of range")
        arg = args[n]
        n += 1
        if verb == "s":
            out.append(_display(arg))
        elif verb == "d":
            out.append(str(int(arg)))
        elif verb in "fe":
            out.append(format(float(arg), f".{6 if precision is None else precision}{verb}"))
        elif verb in "xXob":
            out.append(format(int(arg), verb) if not _is_str(arg) else arg.encode().hex())
        else:
            return error(f'could not parse formatting clause: unrecognized formatting clause "{verb}"')
        i = j + 1
    return celtypes.StringType("".join(out))


def _display(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, celtypes.BoolType):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_display(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_display(k)}: {_display(v)}" for k, v in value.items()) + "}"
    return str(value)


# -- lists ---------------------------------------------------------------------------------------

def _comparable(items) -> list:
    if not _is_list(items):
        raise TypeError("not a list")
    return list(items)


def is_sorted(items):
    values = _comparable(items)
    return celtypes.BoolType(all(not (b < a) for a, b in zip(values, values[1:])))


def sum_list(items):
    values = _comparable(items)
    if not values:
        return celtypes.IntType(0)
    total = values[0]
    for value in values[1:]:
        total = total + value
    return total


def min_list(items):
    values = _comparable(items)
    if not values:
        return error("min called on empty list")
    return min(values)


def max_list(items):
    values = _comparable(items)
    if not values:
        return error("max called on empty list")
    return max(values)


# -- regex ---------------------------------------------------------------------------------------

_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # a bad pattern is the expression's error, not a line on stderr


def _compiled(pattern, prefix: str = "Illegal regex: "):
    try:
        return re2.compile(_string(pattern), _RE2_OPTIONS), None
    except re2.error as err:
        reason = err.args[0] if err.args else ""
        reason = reason.decode(errors="replace") if isinstance(reason, bytes) else str(reason)
        return None, error(f"{prefix}error parsing regexp: {reason}")


def matches(s, pattern):
    regex, err = _compiled(pattern, prefix="")
    if err is not None:
        return err
    return celtypes.BoolType(regex.search(_string(s)) is not None)


def find(s, pattern):
    regex, err = _compiled(pattern)
    if err is not None:
        return err
    match = regex.search(_string(s))
    return celtypes.StringType(match.group(0) if match else "")


def find_all(s, pattern, n=None):
    regex, err = _compiled(pattern)
    if err is not None:
        return err
    limit = -1 if n is None else _int(n)
    if limit == 0:
        return celtypes.ListType()
    found = [m.group(0) for m in regex.finditer(_string(s))]
    if limit > 0:
        found = found[:limit]
    return celtypes.ListType(celtypes.StringType(f) for f in found)


# -- url -----------------------------------------------------------------------------------------

class URL:
    """A parsed URL (Go's url.ParseRequestURI)."""

    cel_text = True

    def __init__(self, text: str, parts: urllib.parse.SplitResult):
        self.text = text
        self.parts = parts

    def __eq__(self, other) -> bool:
        return isinstance(other, URL) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __str__(self) -> str:
        return self.text


def _parse_url(text: str) -> URL | None:
    if not text or any(ord(c) < 0x20 or ord(c) == 0x7f for c in text):
        return None
    parts = urllib.parse.urlsplit(text)
    if parts.scheme:
        if not text[len(parts.scheme) + 1:]:
            return None
    elif not text.startswith("/"):
        return None
    try:
        parts.port  # noqa: B018 - a bad port is a parse error
    except ValueError:
        return None
    return URL(text, parts)


def url(text):
    parsed = _parse_url(_string(text))
    if parsed is None:
        return error(f'URL parse error during conversion from string: parse "{text}": invalid URI for request')
    return parsed


def is_url(text):
    return celtypes.BoolType(_parse_url(_string(text)) is not None)


def _url(value) -> URL:
    if not isinstance(value, URL):
        raise TypeError("not a URL")
    return value


def get_scheme(u):
    return celtypes.StringType(_url(u).parts.scheme)


def get_host(u):
    return celtypes.StringType(_url(u).parts.netloc.rpartition("@")[2])


def get_hostname(u):
    host = _url(u).parts.netloc.rpartition("@")[2]
    if host.startswith("["):
        return celtypes.StringType(host[1:host.find("]")])
    return celtypes.StringType(host.partition(":")[0])


def get_port(u):
    host = _url(u).parts.netloc.rpartition("@")[2]
    if host.startswith("["):
        host = host[host.find("]") + 1:]
    return celtypes.StringType(host.partition(":")[2])


def get_escaped_path(u):
    path = _url(u).parts.path
    return celtypes.StringType(urllib.parse.quote(urllib.parse.unquote(path), safe="/:@!$&'()*+,;=-._~"))


def get_query(u):
    out = celtypes.MapType()
    for key, value in urllib.parse.parse_qsl(_url(u).parts.query, keep_blank_values=True):
        out.setdefault(celtypes.StringType(key), celtypes.ListType()).append(celtypes.StringType(value))
    return out


# -- quantity ------------------------------------------------------------------------------------

class Quantity:
    """A resource quantity: its exact value and the text it was read from."""

    cel_text = True

    def __init__(self, value: Fraction, text: str):
        self.value = value
        self.text = text

    def __eq__(self, other) -> bool:
        return isinstance(other, Quantity) and other.value == self.value

    def __hash__(self) -> int:
        return hash(self.value)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Quantity({self.text!r})"


def _read_quantity(text):
    try:
        value, _ = parse_quantity(_string(text))
    except QuantityError as err:
        return None, error(str(err))
    return Quantity(value, str(text)), None


def quantity(text):
    q, err = _read_quantity(text)
    return err if err is not None else q


def is_quantity(text):
    q, _ = _read_quantity(text)
    return celtypes.BoolType(q is not None)


def _q(value) -> Quantity:
    if not isinstance(value, Quantity):
        raise TypeError("not a quantity")
    return value


def _operand(value) -> Fraction:
    if isinstance(value, Quantity):
        return value.value
    return Fraction(_int(value))


def sign(q):
    v = _q(q).value
    return celtypes.IntType((v > 0) - (v < 0))


def _integral(v: Fraction) -> bool:
    return v.denominator == 1 and _INT64[0] <= v <= _INT64[1]


def is_integer(q):
    return celtypes.BoolType(_integral(_q(q).value))


def as_integer(q):
    v = _q(q).value
    if not _integral(v):
        return error("cannot convert value to integer")
    return celtypes.IntType(int(v))


def as_approximate_float(q):
    return celtypes.DoubleType(float(_q(q).value))


def _as_text(v: Fraction) -> str:
    from kubelite.quantity import canonical_quantity

    if v.denominator == 1:
        return str(v.numerator)
    return canonical_quantity(f"{float(v)!r}")


def add(q, other):
    v = _q(q).value + _operand(other)
    return Quantity(v, _as_text(v))


def sub(q, other):
    v = _q(q).value - _operand(other)
    return Quantity(v, _as_text(v))


def compare_to(q, other):
    a, b = _q(q).value, _q(other).value
    return celtypes.IntType((a > b) - (a < b))


def is_less_than(q, other):
    return celtypes.BoolType(_q(q).value < _q(other).value)


def is_greater_than(q, other):
    return celtypes.BoolType(_q(q).value > _q(other).value)


FUNCTIONS = {
    # strings
    "charAt": char_at, "indexOf": index_of, "lastIndexOf": last_index_of, "lowerAscii": lower_ascii,
    "upperAscii": upper_ascii, "replace": replace, "split": split, "substring": substring, "trim": trim,
    "join": join, "reverse": reverse, "format": format_string,
    # lists
    "isSorted": is_sorted, "sum": sum_list, "min": min_list, "max": max_list,
    # regex
    "matches": matches, "find": find, "findAll": find_all,
    # url
    "url": url, "isURL": is_url, "getScheme": get_scheme, "getHost": get_host, "getHostname": get_hostname,
    "getPort": get_port, "getEscapedPath": get_escaped_path, "getQuery": get_query,
    # quantity
    "quantity": quantity, "isQuantity": is_quantity, "sign": sign, "isInteger": is_integer,
    "asInteger": as_integer, "asApproximateFloat": as_approximate_float, "add": add, "sub": sub,
    "compareTo": compare_to, "isLessThan": is_less_than, "isGreaterThan": is_greater_than,
}

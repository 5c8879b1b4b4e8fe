"""Go's time.Parse(time.RFC3339, text) verdict, with its exact error text.

metav1.Time decodes its JSON string with that call, so a body with `creationTimestamp:
notatime` fails to decode with Go's ParseError (`parsing time "notatime" as
"2006-01-02T15:04:05Z07:00": cannot parse "notatime" as "2006"`).
"""
from __future__ import annotations

LAYOUT = "2006-01-02T15:04:05Z07:00"


class _Bad(Exception):
    def __init__(self, message: str):
        self.message = message


def rfc3339_problem(text: str) -> str | None:
    """The error Go's time.Parse(RFC3339, text) returns, or None when it parses."""
    try:
        _Parser(text).parse()
    except _Bad as bad:
        return bad.message
    return None


def go_time_quote(text: str) -> str:
    """time's own quoting: ASCII as is (\\ and " escaped), every other byte as \\xNN."""
    out = ['"']
    for ch in text:
        if ord(ch) < 0x20 or ord(ch) >= 0x80:
            out.extend(f"\\x{b:02x}" for b in ch.encode("utf-8", "surrogatepass"))
        else:
            out.append("\\" + ch if ch in '"\\' else ch)
    out.append('"')
    return "".join(out)


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.rest = text

    def fail(self, layout_elem: str, value_elem: str):
        raise _Bad(f"parsing time {go_time_quote(self.text)} as {go_time_quote(LAYOUT)}: cannot parse "
                   f"{go_time_quote(value_elem)} as {go_time_quote(layout_elem)}")

    def out_of_range(self, what: str):
        raise _Bad(f"parsing time {go_time_quote(self.text)}: {what} out of range")

    def literal(self, prefix: str) -> None:
        for want in prefix:
            if not self.rest or self.rest[0] != want:
                self.fail(prefix, self.rest)
            self.rest = self.rest[1:]

    def number(self, elem: str, fixed: bool) -> int:
        """Go's getnum: one or two digits (two when `fixed`)."""
        hold = self.rest
        if not _digit(hold, 0) or (fixed and not _digit(hold, 1)):
            self.fail(elem, hold)
        width = 2 if _digit(hold, 1) else 1
        self.rest = hold[width:]
        return int(hold[:width])

    def parse(self) -> None:
        hold = self.rest
        if len(hold) < 4 or not _go_atoi_ok(hold[:4]):
            self.fail("2006", hold)
        year = int(hold[:4])
        self.rest = hold[4:]
        self.literal("-")
        month = self.number("01", True)
        if not 1 <= month <= 12:
            self.out_of_range("month")
        self.literal("-")
        day = self.number("02", True)
        self.literal("T")
        if self.number("15", False) >= 24:
            self.out_of_range("hour")
        self.literal(":")
        if self.number("04", True) >= 60:
            self.out_of_range("minute")
        self.literal(":")
        if self.number("05", True) >= 60:
            self.out_of_range("second")
        self.fraction()
        self.zone()
        if self.rest:
            raise _Bad(f"parsing time {go_time_quote(self.text)}: extra text: {go_time_quote(self.rest)}")
        if not 1 <= day <= _days_in(month, year):
            self.out_of_range("day")

    def fraction(self) -> None:
        # a fraction the layout does not name is still read after the seconds
        rest = self.rest
        if len(rest) >= 2 and rest[0] in ".," and _digit(rest, 1):
            n = 2
            while n < len(rest) and _digit(rest, n):
                n += 1
            self.rest = rest[n:]

    def zone(self) -> None:
        hold = self.rest
        if hold[:1] == "Z":
            self.rest = hold[1:]
            return
        if len(hold) < 6 or hold[3] != ":" or hold[0] not in "+-" or not all(
                _digit(part, 0) and _digit(part, 1) for part in (hold[1:3], hold[4:6])):
            self.fail("Z07:00", hold)
        if int(hold[1:3]) > 24:
            self.out_of_range("time zone offset hour")
        if int(hold[4:6]) > 60:
            self.out_of_range("time zone offset minute")
        self.rest = hold[6:]


def _digit(text: str, i: int) -> bool:
    return len(text) > i and "0" <= text[i] <= "9"


def _go_atoi_ok(text: str) -> bool:
    digits = text[1:] if text[:1] in "+-" else text
    return bool(digits) and all("0" <= c <= "9" for c in digits)


def _days_in(month: int, year: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


_DURATION_UNITS = {"ns": 1, "us": 1_000, "\u00b5s": 1_000, "\u03bcs": 1_000, "ms": 1_000_000,
                   "s": 1_000_000_000, "m": 60_000_000_000, "h": 3_600_000_000_000}
_INT64_MAX = (1 << 63) - 1


def parse_duration(text: str) -> float:
    """time.ParseDuration, in seconds; ValueError with Go's message when it refuses `text`."""
    invalid = ValueError("time: invalid duration " + go_time_quote(text))
    rest, negative = text, False
    if rest[:1] in ("-", "+"):
        negative, rest = rest[0] == "-", rest[1:]
    if rest == "0":
        return 0.0
    if not rest:
        raise invalid
    total = 0  # nanoseconds
    while rest:
        if not (rest[0] == "." or _is_digit(rest[0])):
            raise invalid
        whole = _leading(rest, _is_digit)
        rest = rest[len(whole):]
        fraction = ""
        if rest[:1] == ".":
            fraction = _leading(rest[1:], _is_digit)
            rest = rest[1 + len(fraction):]
            if not whole and not fraction:
                raise invalid
        unit = _leading(rest, lambda ch: not (ch == "." or _is_digit(ch)))
        if not unit:
            raise ValueError("time: missing unit in duration " + go_time_quote(text))
        rest = rest[len(unit):]
        scale = _DURATION_UNITS.get(unit)
        if scale is None:
            raise ValueError(f"time: unknown unit {go_time_quote(unit)} in duration {go_time_quote(text)}")
        value = int(whole or "0")
        if value > _INT64_MAX // scale:
            raise invalid
        nanos = value * scale
        if fraction:
            nanos += int(int(fraction) * scale / 10 ** len(fraction))  # Go truncates the same way
        total += nanos
        if total > _INT64_MAX + (1 if negative else 0):
            raise invalid
    return (-total if negative else total) / 1e9


def _is_digit(ch: str) -> bool:
    return "0" <= ch <= "9"


def _leading(text: str, accept) -> str:
    end = 0
    while end < len(text) and accept(text[end]):
        end += 1
    return text[:end]

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

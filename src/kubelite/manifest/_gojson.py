"""Go's encoding/json scanner verdicts: whether bytes are JSON Go accepts, and its SyntaxError
message and offset when they are not (10,000 levels of nesting at most), plus the recursion
room Python needs to walk documents as deep as Go takes them."""
from __future__ import annotations

from kubelite.godepth import MAX_DEPTH, RECURSION_LIMIT, allow_go_depth  # noqa: F401 (re-exported)

_SPACE = b" \t\r\n"
_HEX = b"0123456789abcdefABCDEF"
_DIGITS = b"0123456789"
_LITERALS = {ord("t"): b"true", ord("f"): b"false", ord("n"): b"null"}


def syntax_error(data: bytes) -> str | None:
    """encoding/json's SyntaxError message for `data`, or None when Go finds it valid JSON."""
    found = syntax_error_at(data)
    return found[0] if found else None


def syntax_error_at(data: bytes) -> tuple[str, int] | None:
    """(message, offset) of encoding/json's SyntaxError for `data` (the offset counts the bytes
    read, the offending one included), or None when Go finds it valid JSON."""
    try:
        _Scan(data).document()
    except _Stop as stop:
        return stop.message, stop.offset
    return None


class _Stop(Exception):
    def __init__(self, message: str, offset: int):
        self.message = message
        self.offset = offset


def go_quote_char(byte: int) -> str:
    """How encoding/json names an unexpected byte: 'x', '\\n', '\\x00', '\\u0080'."""
    if byte == 0x27:
        return "'\\''"
    if byte == 0x22:
        return "'\"'"
    char = chr(byte)  # Go converts the byte to the rune of the same number
    specials = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
                "\v": "\\v", "\\": "\\\\"}
    if char in specials:
        shown = specials[char]
    elif char.isprintable():
        shown = char
    elif byte < 0x80:
        shown = f"\\x{byte:02x}"
    else:
        shown = f"\\u{byte:04x}"
    return f"'{shown}'"


class _Scan:
    """A recursive-descent walk with encoding/json's scanner verdicts (no values are built).

    Nesting is tracked with an explicit stack so depth never costs Python recursion."""

    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0
        self.end = len(data)

    def fail(self, context: str, inside_token: bool = False):
        if self.pos >= self.end:
            if inside_token:  # Go ends the input with a space, which a half-read token refuses
                raise _Stop(f"invalid character ' ' {context}", self.end)
            raise _Stop("unexpected end of JSON input", self.end)
        raise _Stop(f"invalid character {go_quote_char(self.data[self.pos])} {context}", self.pos + 1)

    def space(self) -> None:
        data, pos, end = self.data, self.pos, self.end
        while pos < end and data[pos] in _SPACE:
            pos += 1
        self.pos = pos

    def document(self) -> None:
        self.space()
        self.value_with_stack()
        self.space()
        if self.pos < self.end:
            self.fail("after top-level value")

    def value_with_stack(self) -> None:
        stack: list[int] = []  # open containers: ord('{') or ord('[')
        data = self.data
        while True:
            self.space()
            if self.pos >= self.end:
                self.fail("")
            c = data[self.pos]
            if c in (0x7B, 0x5B):  # { [
                stack.append(c)
                if len(stack) > MAX_DEPTH:
                    self.fail("exceeded max depth")
                self.pos += 1
                self.space()
                closing = 0x7D if c == 0x7B else 0x5D
                if self.pos < self.end and data[self.pos] == closing:
                    self.pos += 1
                    stack.pop()
                    if not self.after_value(stack):
                        return
                    continue
                if c == 0x7B:
                    self.key()
                continue
            self.scalar(c)
            if not self.after_value(stack):
                return

    def key(self) -> None:
        self.space()
        if self.pos >= self.end or self.data[self.pos] != 0x22:
            self.fail("looking for beginning of object key string")
        self.string()
        self.space()
        if self.pos >= self.end or self.data[self.pos] != 0x3A:
            self.fail("after object key")
        self.pos += 1

    def after_value(self, stack: list[int]) -> bool:
        """Past a complete value: consume separators/closers; False once the top level is done."""
        data = self.data
        while stack:
            self.space()
            if self.pos >= self.end:
                self.fail("")
            c = data[self.pos]
            top = stack[-1]
            if c == 0x2C:  # ,
                self.pos += 1
                if top == 0x7B:
                    self.key()
                return True
            if (top == 0x7B and c == 0x7D) or (top == 0x5B and c == 0x5D):
                self.pos += 1
                stack.pop()
                continue
            self.fail("after object key:value pair" if top == 0x7B else "after array element")
        return False

    def scalar(self, c: int) -> None:
        if c == 0x22:
            self.string()
        elif c == 0x2D or c in _DIGITS:
            self.number()
        elif c in _LITERALS:
            self.literal(_LITERALS[c])
        else:
            self.fail("looking for beginning of value")

    def literal(self, word: bytes) -> None:
        for i, want in enumerate(word):
            if i and (self.pos >= self.end or self.data[self.pos] != want):
                self.fail(f"in literal {word.decode()} (expecting '{chr(want)}')", True)
            self.pos += 1

    def string(self) -> None:
        data, end = self.data, self.end
        self.pos += 1
        while True:
            if self.pos >= end:
                self.fail("")
            c = data[self.pos]
            if c == 0x22:
                self.pos += 1
                return
            if c == 0x5C:
                self.pos += 1
                if self.pos >= end:
                    self.fail("in string escape code", True)
                e = data[self.pos]
                if e == 0x75:  # \uXXXX
                    for _ in range(4):
                        self.pos += 1
                        if self.pos >= end or data[self.pos] not in _HEX:
                            self.fail("in \\u hexadecimal character escape", True)
                elif e not in b'bfnrt\\/"':
                    self.fail("in string escape code")
            elif c < 0x20:
                self.fail("in string literal")
            self.pos += 1

    def number(self) -> None:
        data, end = self.data, self.end

        def at() -> int:
            return data[self.pos] if self.pos < end else -1

        if at() == 0x2D:
            self.pos += 1
            if at() == -1 or at() not in _DIGITS:
                self.fail("in numeric literal", True)
        if at() == 0x30:
            self.pos += 1
        else:
            while at() != -1 and at() in _DIGITS:
                self.pos += 1
        if at() == 0x2E:
            self.pos += 1
            if at() == -1 or at() not in _DIGITS:
                self.fail("after decimal point in numeric literal", True)
            while at() != -1 and at() in _DIGITS:
                self.pos += 1
        if at() in (0x65, 0x45):
            self.pos += 1
            if at() in (0x2B, 0x2D):
                self.pos += 1
            if at() == -1 or at() not in _DIGITS:
                self.fail("in exponent of numeric literal", True)
            while at() != -1 and at() in _DIGITS:
                self.pos += 1

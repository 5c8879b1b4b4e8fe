"""The JSONPath template parser, with kubectl's error messages and quirks."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from kubelite.manifest._jp_errors import JSONPathError
from kubelite.manifest._jp_nodes import (
    _Array, _Bool, _Field, _Filter, _Float, _Identifier, _Int, _List, _Param, _Recursive, _Text, _Union,
    _Wildcard,
)


_EOF = ""

_TERMINATORS = set(".,[]$@{}")

_DICT_KEY = re.compile(r"^'([^']*)'$")

_SLICE = re.compile(r"^(-?[0-9]*)(:-?[0-9]*)?(:-?[0-9]*)?$")

_FILTER = re.compile(r"^([^!<>=]+)([!<>=]+)(.+?)$", re.S)


def _is_digit(ch: str) -> bool:
    return ch != _EOF and unicodedata.category(ch) == "Nd"


def _is_alnum(ch: str) -> bool:
    return ch == "_" or (ch != _EOF and (unicodedata.category(ch).startswith("L") or _is_digit(ch)))


def _is_terminator(ch: str) -> bool:
    return ch == _EOF or ch in " \t\r\n" or ch in _TERMINATORS


def _rune_repr(ch: str) -> str:
    """Go's %#U rendering of a rune."""
    code = f"U+{ord(ch):04X}"
    return f"{code} '{ch}'" if ch.isprintable() else code


def _go_atoi(text: str) -> int | None:
    if re.fullmatch(r"[+-]?[0-9]+", text) is None:
        return None
    value = int(text)
    return value if -(2**63) <= value < 2**63 else None


def _go_parse_float(text: str) -> float | None:
    if re.fullmatch(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)", text) is None:
        return None
    return float(text)


class _Parser:
    """A recursive-descent scanner over the template text (rune positions)."""

    def __init__(self, text: str):
        self.input = text
        self.pos = 0
        self.start = 0
        self.root = _List()

    # -- scanning primitives
    def next(self) -> str:
        if self.pos >= len(self.input):
            self._width = 0
            return _EOF
        ch = self.input[self.pos]
        self._width = 1
        self.pos += 1
        return ch

    def peek(self) -> str:
        ch = self.next()
        self.backup()
        return ch

    def backup(self) -> None:
        self.pos -= self._width

    def consume(self) -> str:
        value = self.input[self.start : self.pos]
        self.start = self.pos
        return value

    def before_last(self) -> str:
        """The character just before the one last read (the escape check)."""
        index = self.pos - 2
        return self.input[index] if index >= 0 else ""

    # -- grammar
    def parse(self) -> _List:
        cur: _List | None = self.root
        while cur is not None:
            cur = self._parse_text()
            if cur is not None:
                self._parse_action(cur)
        return self.root

    def _parse_text(self) -> _List | None:
        """Consume literal text up to the next '{'; return the new action list."""
        index = self.input.find("{", self.pos)
        if index < 0:
            self.pos = len(self.input)
            if self.pos > self.start:
                self.root.nodes.append(_Text(self.consume()))
            return None
        self.pos = index
        if self.pos > self.start:
            self.root.nodes.append(_Text(self.consume()))
        self.pos += 1
        self.consume()
        action = _List()
        self.root.nodes.append(action)
        return action

    def _parse_action(self, cur: _List) -> None:
        """Parse nodes into ``cur`` until the closing '}'."""
        while True:
            rest = self.input[self.pos :]
            if rest.startswith("}"):
                self.pos += 1
                self.consume()
                return
            if rest.startswith("[?("):
                self._parse_filter(cur)
                continue
            if rest.startswith(".."):
                self._parse_recursive(cur)
                continue
            ch = self.next()
            if ch == _EOF or ch in "\r\n":
                raise JSONPathError("unclosed action")
            if ch in " @$":
                self.consume()
            elif ch == "[":
                self._parse_array(cur)
            elif ch in "\"'":
                self._parse_quote(cur, ch)
            elif ch == ".":
                self._parse_field(cur)
            elif ch in "+-" or _is_digit(ch):
                self.backup()
                self._parse_number(cur)
            elif _is_alnum(ch):
                self.backup()
                self._parse_identifier(cur)
            else:
                raise JSONPathError(f"unrecognized character in action: {_rune_repr(ch)}")

    def _parse_identifier(self, cur: _List) -> None:
        while not _is_terminator(self.next()):
            pass
        self.backup()
        value = self.consume()
        if value in ("true", "false"):
            cur.nodes.append(_Bool(value == "true"))
        else:
            cur.nodes.append(_Identifier(value))

    def _parse_recursive(self, cur: _List) -> None:
        if cur.nodes and isinstance(cur.nodes[-1], _Recursive):
            raise JSONPathError("invalid multiple recursive descent")
        self.pos += 2
        self.consume()
        cur.nodes.append(_Recursive())
        if _is_alnum(self.peek()):
            self._parse_field(cur)

    def _parse_number(self, cur: _List) -> None:
        if self.peek() in ("+", "-"):
            self.next()
        while True:
            ch = self.next()
            if ch != "." and not _is_digit(ch):
                self.backup()
                break
        value = self.consume()
        as_int = _go_atoi(value)
        if as_int is not None:
            cur.nodes.append(_Int(as_int))
            return
        as_float = _go_parse_float(value)
        if as_float is not None:
            cur.nodes.append(_Float(as_float))
            return
        raise JSONPathError(f"cannot parse number {value}")

    def _parse_array(self, cur: _List) -> None:
        while True:
            ch = self.next()
            if ch == _EOF or ch == "\n":
                raise JSONPathError("unterminated array")
            if ch == "]":
                break
        text = self.consume()[1:-1]
        if text == "*":
            text = ":"
        parts = text.split(",")
        if len(parts) > 1:
            branches = [_parse_action_text(f"[{part.strip(' ')}]") for part in parts]
            cur.nodes.append(_Union(branches))
            return
        key = _DICT_KEY.match(text)
        if key is not None:
            cur.nodes.extend(_parse_action_text("." + key.group(1)).nodes)
            return
        match = _SLICE.match(text)
        if match is None:
            raise JSONPathError(f"invalid array index {text}")
        cur.nodes.append(_Array(_slice_params(match.groups())))

    def _parse_filter(self, cur: _List) -> None:
        self.pos += 3
        self.consume()
        begin = end = False
        pair = ""
        while True:
            ch = self.next()
            if ch == _EOF or ch == "\n":
                raise JSONPathError("unterminated filter")
            if ch in "\"'":
                if not begin:
                    begin, pair = True, ch
                    continue
                if self.before_last() != "\\" and ch == pair:
                    end = True
            elif ch == ")" and begin == end:
                break
        if self.next() != "]":
            raise JSONPathError("unclosed array expect ]")
        text = self.consume()[:-2]
        match = _FILTER.match(text)
        if match is None:
            cur.nodes.append(_Filter(_parse_action_text(text), _List(), "exists"))
            return
        left = _parse_action_text(match.group(1))
        right = _parse_action_text(match.group(3))
        cur.nodes.append(_Filter(left, right, match.group(2)))

    def _parse_quote(self, cur: _List, quote: str) -> None:
        while True:
            ch = self.next()
            if ch == _EOF or ch == "\n":
                raise JSONPathError("unterminated quoted string")
            if ch == quote and self.before_last() != "\\":
                break
        value = self.consume()
        try:
            cur.nodes.append(_Text(_unquote(value)))
        except ValueError as err:
            raise JSONPathError(f"unquote string {value} error {err}") from None

    def _parse_field(self, cur: _List) -> None:
        self.consume()
        while True:
            ch = self.next()
            if ch == "\\":
                self.next()
            elif _is_terminator(ch):
                self.backup()
                break
        value = self.consume()
        if value == "*":
            cur.nodes.append(_Wildcard())
        else:
            cur.nodes.append(_Field(value.replace("\\", "")))


def _slice_params(groups: tuple) -> tuple:
    params = [_Param(), _Param(), _Param()]
    for i, raw in enumerate(groups):
        raw = raw or ""
        if raw:
            if i > 0:
                raw = raw[1:]
            if i > 0 and raw == "":
                params[i] = _Param(0, False)
                continue
            number = _go_atoi(raw)
            if number is None:
                raise JSONPathError(f"array index {raw} is not a number")
            params[i] = _Param(number, True)
        elif i == 1:
            params[i] = _Param(params[0].value + 1, True, True)
        else:
            params[i] = _Param(0, False)
    return tuple(params)


def _parse_action_text(text: str) -> _List:
    """Parse ``text`` as the inside of one action and return its node list."""
    parser = _Parser("{" + text + "}")
    root = parser.parse()
    first = root.nodes[0]
    if not isinstance(first, _List):  # pragma: no cover - the text always opens with '{'
        raise JSONPathError(f"invalid action {text}")
    return first


_SIMPLE_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}


def _unquote(quoted: str) -> str:
    """Go's strconv.Unquote, extended to single-quoted strings of any length."""
    if len(quoted) < 2 or quoted[0] != quoted[-1] or quoted[0] not in "\"'":
        raise ValueError("invalid syntax")
    quote, body = quoted[0], quoted[1:-1]
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == quote or ch == "\n":
            raise ValueError("invalid syntax")
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        if i + 1 >= len(body):
            raise ValueError("invalid syntax")
        esc = body[i + 1]
        i += 2
        if esc in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[esc])
        elif esc in "'\"":
            if esc != quote:
                raise ValueError("invalid syntax")
            out.append(esc)
        elif esc in "xuU":
            size = {"x": 2, "u": 4, "U": 8}[esc]
            digits = body[i : i + size]
            if len(digits) != size or re.fullmatch(r"[0-9a-fA-F]+", digits) is None:
                raise ValueError("invalid syntax")
            code = int(digits, 16)
            i += size
            if esc == "x":
                out.append(chr(code) if code < 0x80 else bytes([code]).decode("latin-1"))
            elif code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                raise ValueError("invalid syntax")
            else:
                out.append(chr(code))
        elif esc in "01234567":
            digits = body[i - 1 : i + 2]
            if len(digits) != 3 or re.fullmatch(r"[0-7]{3}", digits) is None or int(digits, 8) > 255:
                raise ValueError("invalid syntax")
            out.append(chr(int(digits, 8)))
            i += 2
        else:
            raise ValueError("invalid syntax")
    return "".join(out)


@dataclass
class Template:
    """A parsed template; ``source`` is the text it came from."""

    source: str
    root: _List


def parse(template: str) -> Template:
    """Parse ``template`` or raise JSONPathError with kubectl's message."""
    try:
        root = _Parser(template).parse()
    except JSONPathError as err:
        raise JSONPathError(f"error parsing jsonpath {template}, {err.message}", err.message) from None
    except RecursionError:
        reason = "template nested too deeply"
        raise JSONPathError(f"error parsing jsonpath {template}, {reason}", reason) from None
    return Template(template, root)

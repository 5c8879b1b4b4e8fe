"""The text/template lexer: items with trim markers, comments and Go's error texts."""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from kubelite.manifest._govalues import go_quote


(ERROR, BOOL, CHAR, CHARCONST, COMPLEX, ASSIGN, DECLARE, EOF, FIELD, IDENT, LDELIM, LPAREN, NUMBER, PIPE,
 RAWSTRING, RDELIM, RPAREN, SPACE, STRING, TEXT, VARIABLE, COMMENT, KEYWORD) = range(23)
_KEYWORDS = {".": "dot", "block": "block", "break": "break", "continue": "continue", "define": "define",
             "else": "else", "end": "end", "if": "if", "range": "range", "nil": "nil", "template": "template",
             "with": "with"}


@dataclass
class Item:
    typ: int
    pos: int
    val: str
    line: int
    keyword: str = ""

    def __str__(self) -> str:
        if self.typ == EOF:
            return "EOF"
        if self.typ == ERROR:
            return self.val
        if self.typ == KEYWORD:
            return f"<{self.val}>"
        if len(self.val) > 10:
            return go_quote(self.val[:10]) + "..."
        return go_quote(self.val)


def _is_space(ch: str) -> bool:
    return ch in " \t\r\n"


def _is_alnum(ch: str) -> bool:
    return ch == "_" or (ch != "" and (ch.isalpha() or unicodedata.category(ch) == "Nd"))


def _rune_desc(ch: str) -> str:
    """Go's %#U."""
    code = ord(ch)
    return f"U+{code:04X} '{ch}'" if ch.isprintable() else f"U+{code:04X}"


class _Lexer:
    def __init__(self, text: str):
        self.input = text
        self.pos = 0
        self.start = 0
        self.items: list[Item] = []
        self.paren_depth = 0

    def line_at(self, pos: int) -> int:
        return 1 + self.input.count("\n", 0, pos)

    def emit(self, typ: int, keyword: str = "") -> None:
        self.items.append(Item(typ, self.start, self.input[self.start:self.pos], self.line_at(self.start), keyword))
        self.start = self.pos

    def error(self, message: str) -> None:
        self.items.append(Item(ERROR, self.start, message, self.line_at(self.start)))
        raise _LexDone

    def peek(self) -> str:
        return self.input[self.pos] if self.pos < len(self.input) else ""

    def next(self) -> str:
        ch = self.peek()
        if ch:
            self.pos += 1
        return ch

    def run(self) -> list[Item]:
        try:
            state = self.lex_text
            while state is not None:
                state = state()
        except _LexDone:
            pass
        return self.items

    # Go's trim markers: "{{- " and " -}}" (the space may be any of " \t\r\n")
    def _left_trim_at(self, pos: int) -> bool:
        s = self.input
        return pos + 1 < len(s) and s[pos] == "-" and _is_space(s[pos + 1])

    def _at_right_delim(self) -> tuple[bool, bool]:
        s, p = self.input, self.pos
        if p + 1 < len(s) and _is_space(s[p]) and s[p + 1] == "-" and s.startswith("}}", p + 2):
            return True, True
        return s.startswith("}}", p), False

    def lex_text(self):
        x = self.input.find("{{", self.pos)
        if x < 0:
            self.pos = len(self.input)
            if self.pos > self.start:
                self.emit(TEXT)
            self.emit(EOF)
            return None
        self.pos = x
        if x > self.start:
            trim = 0
            if self._left_trim_at(x + 2):
                text = self.input[self.start:x]
                trim = len(text) - len(text.rstrip(" \t\r\n"))
            self.pos -= trim
            if self.pos > self.start:
                self.emit(TEXT)
            self.pos += trim
            self.start = self.pos
        return self.lex_left_delim

    def lex_left_delim(self):
        self.pos += 2
        trim = self._left_trim_at(self.pos)
        after = 2 if trim else 0
        if self.input.startswith("/*", self.pos + after):
            self.pos += after
            self.start = self.pos
            return self.lex_comment
        self.emit(LDELIM)
        self.pos += after
        self.start = self.pos
        self.paren_depth = 0
        return self.lex_inside_action

    def lex_comment(self):
        self.pos += 2
        x = self.input.find("*/", self.pos)
        if x < 0:
            self.error("unclosed comment")
        self.pos = x + 2
        delim, trim = self._at_right_delim()
        if not delim:
            self.error("comment ends before closing delimiter")
        if trim:
            self.pos += 2
        self.pos += 2
        if trim:
            self._skip_leading_space()
        self.start = self.pos
        return self.lex_text

    def _skip_leading_space(self) -> None:
        while self.pos < len(self.input) and _is_space(self.input[self.pos]):
            self.pos += 1

    def lex_right_delim(self):
        _, trim = self._at_right_delim()
        if trim:
            self.pos += 2
            self.start = self.pos
        self.pos += 2
        self.emit(RDELIM)
        if trim:
            self._skip_leading_space()
            self.start = self.pos
        return self.lex_text

    def lex_inside_action(self):
        delim, _ = self._at_right_delim()
        if delim:
            if self.paren_depth == 0:
                return self.lex_right_delim
            self.error("unclosed left paren")
        ch = self.next()
        if ch == "":
            self.error("unclosed action")
        if _is_space(ch):
            self.pos -= 1
            return self.lex_space
        if ch == "=":
            self.emit(ASSIGN)
        elif ch == ":":
            if self.next() != "=":
                self.error("expected :=")
            self.emit(DECLARE)
        elif ch == "|":
            self.emit(PIPE)
        elif ch == '"':
            return self.lex_quote
        elif ch == "`":
            return self.lex_raw_quote
        elif ch == "$":
            return self.lex_variable
        elif ch == "'":
            return self.lex_char
        elif ch == "." and self.pos < len(self.input) and not ("0" <= self.input[self.pos] <= "9"):
            return self.lex_field
        elif ch in "+-." or "0" <= ch <= "9":
            self.pos -= 1
            return self.lex_number
        elif _is_alnum(ch):
            self.pos -= 1
            return self.lex_identifier
        elif ch == "(":
            self.emit(LPAREN)
            self.paren_depth += 1
        elif ch == ")":
            if self.paren_depth == 0:
                self.error("unexpected right paren")
            self.paren_depth -= 1
            self.emit(RPAREN)
        elif ord(ch) < 0x80 and ch.isprintable():
            self.emit(CHAR)
        else:
            self.error(f"unrecognized character in action: {_rune_desc(ch)}")
        return self.lex_inside_action

    def lex_space(self):
        count = 0
        while _is_space(self.peek()):
            self.pos += 1
            count += 1
        s = self.input
        if s[self.pos - 1:self.pos + 1].endswith("-") and _is_space(s[self.pos - 1]) and \
                s.startswith("}}", self.pos + 1):
            self.pos -= 1  # the space belongs to the trim marker
            if count == 1:
                return self.lex_inside_action
        self.emit(SPACE)
        return self.lex_inside_action

    def _at_terminator(self) -> bool:
        ch = self.peek()
        if _is_space(ch) or ch in ("", ".", ",", "|", ":", ")", "("):
            return True
        return self.input.startswith("}}", self.pos)

    def lex_identifier(self):
        while _is_alnum(self.peek()):
            self.pos += 1
        word = self.input[self.start:self.pos]
        if not self._at_terminator():
            self.error(f"bad character {_rune_desc(self.peek())}")
        if word in _KEYWORDS and word != ".":
            self.emit(KEYWORD, _KEYWORDS[word])
        elif word in ("true", "false"):
            self.emit(BOOL)
        else:
            self.emit(IDENT)
        return self.lex_inside_action

    def lex_field(self):
        return self._field_or_variable(FIELD)

    def lex_variable(self):
        if self._at_terminator():
            self.emit(VARIABLE)
            return self.lex_inside_action
        return self._field_or_variable(VARIABLE)

    def _field_or_variable(self, typ: int):
        if self._at_terminator():
            if typ == VARIABLE:
                self.emit(VARIABLE)
            else:
                self.emit(KEYWORD, "dot")
            return self.lex_inside_action
        while _is_alnum(self.peek()):
            self.pos += 1
        if not self._at_terminator():
            self.error(f"bad character {_rune_desc(self.peek())}")
        self.emit(typ)
        return self.lex_inside_action

    def lex_char(self):
        while True:
            ch = self.next()
            if ch == "\\":
                ch = self.next()
                if ch not in ("", "\n"):
                    continue
            if ch in ("", "\n"):
                self.error("unterminated character constant")
            if ch == "'":
                break
        self.emit(CHARCONST)
        return self.lex_inside_action

    def _accept(self, valid: str) -> bool:
        if self.peek() and self.peek() in valid:
            self.pos += 1
            return True
        return False

    def _accept_run(self, valid: str) -> None:
        while self.peek() and self.peek() in valid:
            self.pos += 1

    def _scan_number(self) -> bool:
        self._accept("+-")
        digits = "0123456789_"
        if self._accept("0"):
            if self._accept("xX"):
                digits = "0123456789abcdefABCDEF_"
            elif self._accept("oO"):
                digits = "01234567_"
            elif self._accept("bB"):
                digits = "01_"
        self._accept_run(digits)
        if self._accept("."):
            self._accept_run(digits)
        if len(digits) == 10 + 1 and self._accept("eE"):
            self._accept("+-")
            self._accept_run("0123456789_")
        if len(digits) == 16 + 6 + 1 and self._accept("pP"):
            self._accept("+-")
            self._accept_run("0123456789_")
        self._accept("i")
        if _is_alnum(self.peek()):
            self.pos += 1
            return False
        return True

    def lex_number(self):
        if not self._scan_number():
            self.error(f"bad number syntax: {go_quote(self.input[self.start:self.pos])}")
        if self.peek() in ("+", "-") and self.peek():
            if not self._scan_number() or self.input[self.pos - 1] != "i":
                self.error(f"bad number syntax: {go_quote(self.input[self.start:self.pos])}")
            self.emit(COMPLEX)
        else:
            self.emit(NUMBER)
        return self.lex_inside_action

    def lex_quote(self):
        while True:
            ch = self.next()
            if ch == "\\":
                ch = self.next()
                if ch not in ("", "\n"):
                    continue
            if ch in ("", "\n"):
                self.error("unterminated quoted string")
            if ch == '"':
                break
        self.emit(STRING)
        return self.lex_inside_action

    def lex_raw_quote(self):
        end = self.input.find("`", self.pos)
        if end < 0:
            self.error("unterminated raw quoted string")
        self.pos = end + 1
        self.emit(RAWSTRING)
        return self.lex_inside_action


class _LexDone(Exception):
    pass

"""Go's text/template, as kubectl's ``-o go-template`` runs it over an object.

kubectl marshals the object to JSON and decodes it into ``map[string]interface{}``, so the
template sees maps, lists, strings, bools, nil and float64 numbers only; this module does the
same (every JSON integer becomes a float) and then follows text/template (Go 1.23): the
lexer with trim markers and comments, the parser with its error texts, and execution with
``missingkey=default`` (prints ``<no value>``) or ``missingkey=error``. The functions are Go's
builtins plus kubectl's ``exists`` and ``base64decode``.

Public API::

    parse(text) -> Template                      # GoTemplateError on bad syntax
    execute(template, obj, allow_missing_keys)   # -> str; GoTemplateExecError keeps the partial output
    render(text, obj, allow_missing_keys)        # kubectl's printer: text, or KubectlTemplateError
"""
from __future__ import annotations

import base64
import binascii
import unicodedata
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from kubelite.manifest import _gofmt
from kubelite.manifest.jsonpath import _unquote, go_json, go_quote, go_sprint

__all__ = ["GoTemplateError", "GoTemplateExecError", "KubectlTemplateError", "Template", "parse", "execute",
           "render"]

NAME = "output"  # kubectl's template name, part of every message


class GoTemplateError(Exception):
    """A parse failure; the message is Go's (``template: output:1: ...``)."""


class GoTemplateExecError(Exception):
    """An execution failure; ``output`` is what was written before it."""

    def __init__(self, message: str, output: str = ""):
        super().__init__(message)
        self.output = output


class KubectlTemplateError(Exception):
    """What kubectl's printer reports: ``stdout`` (partial output and debugging text) and the error line."""

    def __init__(self, message: str, stdout: str = ""):
        super().__init__(message)
        self.stdout = stdout


# -- values ------------------------------------------------------------------------------------------

class _Invalid:
    """Go's zero reflect.Value: a missing key, printed as <no value>."""

    def __repr__(self) -> str:
        return "<no value>"


INVALID = _Invalid()


class _Uint8(int):
    """A byte, as `index` of a string yields."""


class _Int64(int):
    """A JSON integer as apimachinery's json.Unmarshal decodes it (int64, not Go's plain int)."""


_INT64 = (-(1 << 63), (1 << 63) - 1)


def _from_json(value: Any) -> Any:
    """The object as kubectl's printer sees it after a JSON round trip through apimachinery's
    json.Unmarshal: numbers written as integers within int64 are int64, the others float64."""
    if isinstance(value, dict):
        return {str(k): _from_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_from_json(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return _Int64(value) if _INT64[0] <= value <= _INT64[1] else float(value)
    if isinstance(value, float):
        # encoding/json writes integral floats below 1e21 without a fraction: they come back as integers
        if value.is_integer() and abs(value) < 1e21 and _INT64[0] <= value <= _INT64[1]:
            return _Int64(int(value))
        return value
    return str(value)


def type_name(value: Any) -> str:
    return _gofmt.type_name(value)


# -- lexer ---------------------------------------------------------------------------------------------

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


# -- nodes ----------------------------------------------------------------------------------------------

@dataclass
class Node:
    pos: int


@dataclass
class Text(Node):
    text: str

    def __str__(self) -> str:
        return go_quote(self.text)


@dataclass
class Field(Node):
    idents: list

    def __str__(self) -> str:
        return "".join("." + i for i in self.idents)


@dataclass
class Variable(Node):
    idents: list

    def __str__(self) -> str:
        return ".".join(self.idents)


@dataclass
class Chain(Node):
    node: Any
    fields: list = field(default_factory=list)

    def __str__(self) -> str:
        base = f"({self.node})" if isinstance(self.node, Pipe) else str(self.node)
        return base + "".join("." + f for f in self.fields)


@dataclass
class Identifier(Node):
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass
class Dot(Node):
    def __str__(self) -> str:
        return "."


@dataclass
class Nil(Node):
    def __str__(self) -> str:
        return "nil"


@dataclass
class Bool(Node):
    value: bool

    def __str__(self) -> str:
        return "true" if self.value else "false"


@dataclass
class Number(Node):
    text: str
    value: Any  # int or float, as the ideal constant evaluates

    def __str__(self) -> str:
        return self.text


@dataclass
class String(Node):
    quoted: str
    text: str

    def __str__(self) -> str:
        return self.quoted


@dataclass
class Command(Node):
    args: list = field(default_factory=list)

    def __str__(self) -> str:
        return " ".join(f"({a})" if isinstance(a, Pipe) else str(a) for a in self.args)


@dataclass
class Pipe(Node):
    decl: list = field(default_factory=list)
    is_assign: bool = False
    cmds: list = field(default_factory=list)

    def __str__(self) -> str:
        text = ""
        if self.decl:
            text = ", ".join(str(v) for v in self.decl) + (" = " if self.is_assign else " := ")
        return text + " | ".join(str(c) for c in self.cmds)


@dataclass
class Action(Node):
    pipe: Pipe

    def __str__(self) -> str:
        return "{{" + str(self.pipe) + "}}"


@dataclass
class ListNode(Node):
    nodes: list = field(default_factory=list)

    def __str__(self) -> str:
        return "".join(str(n) for n in self.nodes)


@dataclass
class Branch(Node):
    kind: str  # if, with, range
    pipe: Pipe
    body: ListNode
    orelse: ListNode | None

    def __str__(self) -> str:
        text = "{{" + self.kind + " " + str(self.pipe) + "}}" + str(self.body)
        if self.orelse is not None:
            text += "{{else}}" + str(self.orelse)
        return text + "{{end}}"


@dataclass
class Jump(Node):
    kind: str  # break, continue

    def __str__(self) -> str:
        return "{{" + self.kind + "}}"


@dataclass
class Invoke(Node):
    name: str
    pipe: Pipe | None

    def __str__(self) -> str:
        return "{{template " + go_quote(self.name) + (" " + str(self.pipe) if self.pipe else "") + "}}"


@dataclass
class _End(Node):
    def __str__(self) -> str:
        return "{{end}}"


@dataclass
class _Else(Node):
    def __str__(self) -> str:
        return "{{else}}"


# -- parser ---------------------------------------------------------------------------------------------

FUNCTIONS = frozenset({"and", "call", "html", "index", "slice", "js", "len", "not", "or", "print", "printf",
                       "println", "urlquery", "eq", "ge", "gt", "le", "lt", "ne", "exists", "base64decode"})


@dataclass
class Template:
    source: str
    root: ListNode
    defined: dict  # name -> ListNode


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.items = _Lexer(text).run()
        self.i = 0
        self.last: Item | None = None
        self.vars = ["$"]
        self.range_depth = 0
        self.action_line = 0
        self.defined: dict = {}

    # tokens
    def next(self) -> Item:
        item = self.items[min(self.i, len(self.items) - 1)]
        self.i += 1
        self.last = item
        return item

    def backup(self, n: int = 1) -> None:
        self.i -= n

    def peek(self) -> Item:
        return self.items[min(self.i, len(self.items) - 1)]

    def next_non_space(self) -> Item:
        item = self.next()
        while item.typ == SPACE:
            item = self.next()
        return item

    def peek_non_space(self) -> Item:
        item = self.next_non_space()
        self.backup()
        return item

    def errorf(self, message: str):
        line = self.last.line if self.last is not None else 1
        raise GoTemplateError(f"template: {NAME}:{line}: {message}")

    def expect(self, typ: int, context: str) -> Item:
        token = self.next_non_space()
        if token.typ != typ:
            self.unexpected(token, context)
        return token

    def unexpected(self, token: Item, context: str):
        if token.typ == ERROR:
            extra = ""
            if self.action_line and self.action_line != token.line:
                extra = f" in action started at {NAME}:{self.action_line}"
                if token.val.endswith(" action"):
                    extra = extra[len(" in action"):]
            self.errorf(f"{token}{extra}")
        self.errorf(f"unexpected {token} in {context}")

    # structure
    def parse(self) -> Template:
        root = ListNode(self.peek().pos)
        while self.peek().typ != EOF:
            if self.peek().typ == LDELIM:
                delim = self.next()
                if self.next_non_space().keyword == "define":
                    self.parse_definition()
                    continue
                self.i = self.items.index(delim)  # back to the delimiter
                self.last = delim
            node = self.text_or_action()
            if isinstance(node, (_End, _Else)):
                self.errorf(f"unexpected {node}")
            root.nodes.append(node)
        return Template(self.text, root, self.defined)

    def parse_definition(self) -> None:
        name_token = self.next_non_space()
        if name_token.typ not in (STRING, RAWSTRING):
            self.unexpected(name_token, "define clause")
        name = self.unquote(name_token)
        self.expect(RDELIM, "define clause")
        body, end = self.item_list()
        if not isinstance(end, _End):
            self.errorf(f"unexpected {end} in define clause")
        self.defined[name] = body

    def item_list(self):
        body = ListNode(self.peek_non_space().pos)
        while self.peek_non_space().typ != EOF:
            node = self.text_or_action()
            if isinstance(node, (_End, _Else)):
                return body, node
            body.nodes.append(node)
        self.errorf("unexpected EOF")

    def text_or_action(self):
        token = self.next_non_space()
        if token.typ == TEXT:
            return Text(token.pos, token.val)
        if token.typ == LDELIM:
            saved = self.action_line
            self.action_line = token.line
            try:
                return self.action()
            finally:
                self.action_line = saved
        self.unexpected(token, "input")

    def action(self):
        token = self.next_non_space()
        kw = token.keyword if token.typ == KEYWORD else ""
        if kw in ("break", "continue"):
            after = self.next_non_space()
            if after.typ != RDELIM:
                self.unexpected(after, "{{" + kw + "}}")
            if self.range_depth == 0:
                self.errorf("{{" + kw + "}} outside {{range}}")
            return Jump(token.pos, kw)
        if kw == "else":
            return self.else_control()
        if kw == "end":
            return _End(self.expect(RDELIM, "end").pos)
        if kw in ("if", "with", "range"):
            return self.control(kw)
        if kw in ("template", "block"):
            return self.template_control(kw)
        self.backup()
        token = self.peek()
        return Action(token.pos, self.pipeline("command", RDELIM))

    def else_control(self):
        peek = self.peek_non_space()
        if peek.typ == KEYWORD and peek.keyword in ("if", "with"):
            return _Else(peek.pos)
        token = self.next_non_space()
        if token.typ != RDELIM:
            self.unexpected(token, "else")
        return _Else(token.pos)

    def control(self, kind: str) -> Branch:
        mark = len(self.vars)
        try:
            pipe = self.pipeline(kind, RDELIM)
            if kind == "range":
                self.range_depth += 1
            body, nxt = self.item_list()
            if kind == "range":
                self.range_depth -= 1
            orelse = None
            if isinstance(nxt, _Else):
                peek = self.peek()
                if kind in ("if", "with") and peek.typ == KEYWORD and peek.keyword == kind:
                    self.next()
                    orelse = ListNode(nxt.pos, [self.control(kind)])
                else:
                    orelse, nxt = self.item_list()
                    if not isinstance(nxt, _End):
                        self.errorf(f"expected end; found {nxt}")
            return Branch(pipe.pos, kind, pipe, body, orelse)
        finally:
            del self.vars[mark:]

    def template_control(self, kind: str):
        context = "template clause" if kind == "template" else "block clause"
        token = self.next_non_space()
        if token.typ not in (STRING, RAWSTRING):
            self.unexpected(token, context)
        name = self.unquote(token)
        pipe = None
        if self.next_non_space().typ != RDELIM:
            self.backup()
            pipe = self.pipeline(context, RDELIM)
        if kind == "block":
            body, end = self.item_list()
            if not isinstance(end, _End):
                self.errorf(f"unexpected {end} in block clause")
            self.defined[name] = body
        return Invoke(token.pos, name, pipe)

    def pipeline(self, context: str, end: int) -> Pipe:
        token = self.peek_non_space()
        pipe = Pipe(token.pos)
        while True:  # declarations
            v = self.peek_non_space()
            if v.typ != VARIABLE:
                break
            self.next_non_space()
            after = self.peek()
            nxt = self.peek_non_space()
            if nxt.typ in (ASSIGN, DECLARE):
                pipe.is_assign = nxt.typ == ASSIGN
                self.next_non_space()
                pipe.decl.append(Variable(v.pos, [v.val]))
                self.vars.append(v.val)
            elif nxt.typ == CHAR and nxt.val == ",":
                self.next_non_space()
                pipe.decl.append(Variable(v.pos, [v.val]))
                self.vars.append(v.val)
                if context == "range" and len(pipe.decl) < 2:
                    if self.peek_non_space().typ in (VARIABLE, RDELIM, RPAREN):
                        continue
                    self.errorf("range can only initialize variables")
                self.errorf(f"too many declarations in {context}")
            elif after.typ == SPACE:
                self.i = self.items.index(v)
            else:
                self.i = self.items.index(v)
            break
        while True:
            token = self.next_non_space()
            if token.typ == end:
                self.check_pipeline(pipe, context)
                return pipe
            if token.typ in (BOOL, CHARCONST, COMPLEX, FIELD, IDENT, NUMBER, RAWSTRING, STRING, VARIABLE,
                             LPAREN) or (token.typ == KEYWORD and token.keyword in ("dot", "nil")):
                self.backup()
                pipe.cmds.append(self.command())
            else:
                self.unexpected(token, context)

    def check_pipeline(self, pipe: Pipe, context: str) -> None:
        if not pipe.cmds:
            self.errorf(f"missing value for {context}")
        for i, cmd in enumerate(pipe.cmds[1:]):
            if isinstance(cmd.args[0], (Bool, Dot, Nil, Number, String)):
                self.errorf(f"non executable command in pipeline stage {i + 2}")

    def command(self) -> Command:
        cmd = Command(self.peek_non_space().pos)
        while True:
            self.peek_non_space()
            operand = self.operand()
            if operand is not None:
                cmd.args.append(operand)
            token = self.next()
            if token.typ == SPACE:
                continue
            if token.typ in (RDELIM, RPAREN):
                self.backup()
            elif token.typ != PIPE:
                self.unexpected(token, "operand")
            break
        if not cmd.args:
            self.errorf("empty command")
        return cmd

    def operand(self):
        node = self.term()
        if node is None:
            return None
        if self.peek().typ == FIELD:
            chain = Chain(self.peek().pos, node)
            while self.peek().typ == FIELD:
                chain.fields.append(self.next().val[1:])
            if isinstance(node, Field):
                return Field(chain.pos, node.idents + chain.fields)
            if isinstance(node, Variable):
                return Variable(chain.pos, node.idents + chain.fields)
            if isinstance(node, (Bool, String, Number, Nil, Dot)):
                self.errorf(f"unexpected . after term {go_quote(str(node))}")
            return chain
        return node

    def term(self):
        token = self.next_non_space()
        if token.typ == IDENT:
            if token.val not in FUNCTIONS:
                self.errorf(f"function {go_quote(token.val)} not defined")
            return Identifier(token.pos, token.val)
        if token.typ == KEYWORD and token.keyword == "dot":
            return Dot(token.pos)
        if token.typ == KEYWORD and token.keyword == "nil":
            return Nil(token.pos)
        if token.typ == VARIABLE:
            parts = token.val.split(".")
            if parts[0] not in self.vars:
                self.errorf(f"undefined variable {go_quote(parts[0])}")
            return Variable(token.pos, parts)
        if token.typ == FIELD:
            return Field(token.pos, [token.val[1:]])
        if token.typ == BOOL:
            return Bool(token.pos, token.val == "true")
        if token.typ in (CHARCONST, COMPLEX, NUMBER):
            return self.number(token)
        if token.typ == LPAREN:
            return self.pipeline("parenthesized pipeline", RPAREN)
        if token.typ in (STRING, RAWSTRING):
            return String(token.pos, token.val, self.unquote(token))
        self.backup()
        return None

    def unquote(self, token: Item) -> str:
        if token.typ == RAWSTRING:
            return token.val[1:-1].replace("\r", "")
        try:
            return _unquote(token.val)
        except ValueError:
            self.errorf("invalid syntax")

    def number(self, token: Item) -> Number:
        text = token.val
        if token.typ == CHARCONST:
            try:
                value = _unquote(text)
            except ValueError:
                value = ""
            if len(value) != 1:
                self.errorf(f"malformed character constant: {text}")
            return Number(token.pos, text, ord(value))
        if token.typ == COMPLEX:
            self.errorf(f"complex constants are not supported: {text}")
        clean = text.replace("_", "")
        hexint = clean.lower().lstrip("+-").startswith("0x") and "p" not in clean.lower()
        if not hexint and any(c in clean for c in ".eEpP"):
            try:
                return Number(token.pos, text, float(clean) if "p" not in clean.lower() else float.fromhex(clean))
            except ValueError:
                self.errorf(f"illegal number syntax: {go_quote(text)}")
        try:
            body = clean.lstrip("+-")
            sign = -1 if clean.startswith("-") else 1
            if len(body) > 1 and body[0] == "0" and body[1].isdigit():
                value = int(body, 8)
            else:
                value = int(body, 0)
            return Number(token.pos, text, sign * value)
        except ValueError:
            self.errorf(f"illegal number syntax: {go_quote(text)}")


def parse(text: str) -> Template:
    """Parse as template.New("output").Parse(text) does, or raise GoTemplateError."""
    try:
        return _Parser(text).parse()
    except RecursionError:
        raise GoTemplateError(f"template: {NAME}: template nested too deeply") from None


# -- execution ------------------------------------------------------------------------------------------

class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _Fail(Exception):
    pass


_MISSING_FINAL = object()  # no value piped into a command


def _truth(value: Any) -> bool:
    if value is INVALID or value is None:
        return False
    if isinstance(value, (dict, list, str)):
        return len(value) > 0
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value != 0
    return True


class _State:
    def __init__(self, template: Template, allow_missing_keys: bool):
        self.template = template
        self.missing_error = not allow_missing_keys
        self.out: list[str] = []
        self.node = None
        self.vars: list[list] = []  # [name, value, boxed]
        self.depth = 0

    def at(self, node) -> None:
        self.node = node

    def errorf(self, message: str):
        if self.node is None:
            text = f"template: {NAME}: {message}"
        else:
            pos = self.node.pos
            source = self.template.source
            last_nl = source.rfind("\n", 0, pos)
            col = pos if last_nl < 0 else pos - (last_nl + 1)
            line = 1 + source.count("\n", 0, pos)
            context = str(self.node)
            text = f'template: {NAME}:{line}:{col}: executing "{NAME}" at <{context}>: {message}'
        raise _Fail(text)

    # variables
    def var(self, name: str) -> tuple:
        for entry in reversed(self.vars):
            if entry[0] == name:
                return entry[1], entry[2]
        self.errorf(f"undefined variable: {name}")

    def set_var(self, name: str, value, boxed=False) -> None:
        for entry in reversed(self.vars):
            if entry[0] == name:
                entry[1], entry[2] = value, boxed
                return
        self.errorf(f"undefined variable: {name}")

    # walking
    def walk(self, dot, node) -> None:
        self.at(node)
        if isinstance(node, Action):
            value = self.eval_pipeline(dot, node.pipe)
            if not node.pipe.decl:
                self.at(node)
                self.out.append("<no value>" if value is INVALID else go_sprint(value))
        elif isinstance(node, ListNode):
            for child in node.nodes:
                self.walk(dot, child)
        elif isinstance(node, Text):
            self.out.append(node.text)
        elif isinstance(node, Branch):
            if node.kind == "range":
                self.walk_range(dot, node)
            else:
                self.walk_if_or_with(dot, node)
        elif isinstance(node, Jump):
            raise _Break() if node.kind == "break" else _Continue()
        elif isinstance(node, Invoke):
            self.walk_template(dot, node)

    def walk_if_or_with(self, dot, node: Branch) -> None:
        mark = len(self.vars)
        try:
            value = self.eval_pipeline(dot, node.pipe)
            if _truth(value):
                self.walk((value, False) if node.kind == "with" else dot, node.body)
            elif node.orelse is not None:
                self.walk(dot, node.orelse)
        finally:
            del self.vars[mark:]

    def walk_range(self, dot, node: Branch) -> None:
        self.at(node)
        outer = len(self.vars)
        try:
            value = self.eval_pipeline(dot, node.pipe)
            mark = len(self.vars)
            pipe = node.pipe
            if isinstance(value, list):
                pairs = [(i, v) for i, v in enumerate(value)]
            elif isinstance(value, dict):
                pairs = [(k, value[k]) for k in sorted(value, key=lambda k: k.encode("utf-8"))]
            elif value is INVALID or value is None:
                pairs = []
            else:
                self.errorf(f"range can't iterate over {go_sprint(value)}")
            for index, elem in pairs:
                boxed = True
                if pipe.decl:
                    if pipe.is_assign:
                        if len(pipe.decl) > 1:
                            self.set_var(pipe.decl[0].idents[0], index)
                        else:
                            self.set_var(pipe.decl[0].idents[0], elem, boxed)
                    else:
                        self.vars[-1][1:] = [elem, boxed]
                if len(pipe.decl) > 1:
                    if pipe.is_assign:
                        self.set_var(pipe.decl[1].idents[0], elem, boxed)
                    else:
                        self.vars[-2][1:] = [index, False]
                try:
                    self.walk((elem, boxed), node.body)
                except _Continue:
                    pass
                except _Break:
                    return
                finally:
                    del self.vars[mark:]
            if not pairs and node.orelse is not None:
                self.walk(dot, node.orelse)
        finally:
            del self.vars[outer:]

    def walk_template(self, dot, node: Invoke) -> None:
        body = self.template.defined.get(node.name)
        if body is None:
            self.errorf(f"template {go_quote(node.name)} not defined")
        if self.depth >= 100000:
            self.errorf("exceeded maximum template depth (100000)")
        value = self.eval_pipeline(dot, node.pipe) if node.pipe is not None else dot[0]
        saved_vars, self.vars = self.vars, [["$", value, False]]
        self.depth += 1
        try:
            self.walk((value, False), body)
        finally:
            self.vars = saved_vars
            self.depth -= 1

    # evaluation
    def eval_pipeline(self, dot, pipe: Pipe | None):
        if pipe is None:
            return INVALID
        self.at(pipe)
        value = _MISSING_FINAL
        for cmd in pipe.cmds:
            value = self.eval_command(dot, cmd, value)
            if value is None:  # an interface holding nil: "dig down" leaves no value
                value = INVALID
        for variable in pipe.decl:
            if pipe.is_assign:
                self.set_var(variable.idents[0], value)
            else:
                self.vars.append([variable.idents[0], value, False])
        return value

    def not_a_function(self, args: list, final) -> None:
        if len(args) > 1 or final is not _MISSING_FINAL:
            self.errorf(f"can't give argument to non-function {args[0]}")

    def eval_command(self, dot, cmd: Command, final):
        first = cmd.args[0]
        if isinstance(first, Field):
            self.at(first)
            return self.eval_field_chain(dot, dot[0], dot[1], first, first.idents, cmd.args, final)
        if isinstance(first, Chain):
            return self.eval_chain(dot, first, cmd.args, final)
        if isinstance(first, Identifier):
            self.at(first)
            return self.call(dot, first.name, cmd, cmd.args[1:], final)
        if isinstance(first, Pipe):
            self.not_a_function(cmd.args, final)
            return self.eval_pipeline(dot, first)
        if isinstance(first, Variable):
            return self.eval_variable(dot, first, cmd.args, final)
        self.at(first)
        self.not_a_function(cmd.args, final)
        if isinstance(first, Bool):
            return first.value
        if isinstance(first, Dot):
            return dot[0]
        if isinstance(first, Nil):
            self.errorf("nil is not a command")
        if isinstance(first, Number):
            return first.value
        if isinstance(first, String):
            return first.text
        self.errorf(f"can't evaluate command {go_quote(str(first))}")

    def eval_chain(self, dot, chain: Chain, args, final):
        self.at(chain)
        if isinstance(chain.node, Nil):
            self.errorf(f"indirection through explicit nil in {chain}")
        receiver = self.eval_arg(dot, chain.node)
        return self.eval_field_chain(dot, receiver, False, chain, chain.fields, args, final)

    def eval_variable(self, dot, variable: Variable, args, final):
        self.at(variable)
        value, boxed = self.var(variable.idents[0])
        if len(variable.idents) == 1:
            self.not_a_function(args, final)
            return value
        return self.eval_field_chain(dot, value, boxed, variable, variable.idents[1:], args, final)

    def eval_field_chain(self, dot, receiver, boxed, node, idents, args, final):
        for name in idents[:-1]:
            receiver = self.eval_field(name, [], _MISSING_FINAL, receiver, boxed)
            boxed = True
        return self.eval_field(idents[-1], args, final, receiver, boxed)

    def eval_field(self, name: str, args, final, receiver, boxed):
        if receiver is INVALID:
            if self.missing_error:
                self.errorf(f"nil data; no entry for key {go_quote(name)}")
            return INVALID
        typ = "interface {}" if boxed else type_name(receiver)
        if receiver is None:
            self.errorf(f"nil pointer evaluating {typ}.{name}")
        if isinstance(receiver, dict):
            if len(args) > 1 or final is not _MISSING_FINAL:
                self.errorf(f"{name} is not a method but has arguments")
            if name in receiver:
                return receiver[name]
            if self.missing_error:
                self.errorf(f"map has no entry for key {go_quote(name)}")
            return INVALID
        self.errorf(f"can't evaluate field {name} in type {typ}")

    def eval_arg(self, dot, node, keep_invalid: bool = False):
        """An argument as an interface{} parameter receives it (no value becomes nil), or as a
        reflect.Value parameter does (`keep_invalid`)."""
        self.at(node)
        if isinstance(node, Dot):
            value = dot[0]
        elif isinstance(node, Nil):
            return None
        elif isinstance(node, Field):
            value = self.eval_field_chain(dot, dot[0], dot[1], node, node.idents, [node], _MISSING_FINAL)
        elif isinstance(node, Variable):
            value = self.eval_variable(dot, node, [node], _MISSING_FINAL)
        elif isinstance(node, Pipe):
            value = self.eval_pipeline(dot, node)
        elif isinstance(node, Identifier):
            value = self.call(dot, node.name, node, [], _MISSING_FINAL)
        elif isinstance(node, Chain):
            value = self.eval_chain(dot, node, [node], _MISSING_FINAL)
        elif isinstance(node, Bool):
            value = node.value
        elif isinstance(node, Number):
            value = node.value
        elif isinstance(node, String):
            value = node.text
        else:
            self.errorf(f"can't handle assignment of {node} to empty interface argument")
        return None if value is INVALID and not keep_invalid else value

    def string_arg(self, dot, node) -> str:
        """An argument to a string parameter (printf's format, base64decode's input)."""
        self.at(node)
        if isinstance(node, (Dot, Field, Variable, Pipe, Identifier, Chain)):
            value = self.eval_arg(dot, node)
            self.at(node)
            if value is None:
                self.errorf("invalid value; expected string")
            if not isinstance(value, str):
                self.errorf(f"wrong type for value; expected string; got {type_name(value)}")
            return value
        if isinstance(node, Nil):
            self.errorf("cannot assign nil to string")
        if isinstance(node, String):
            return node.text
        self.errorf(f"expected string; found {node}")

    def call(self, dot, name: str, node, args: list, final):
        have = len(args) + (final is not _MISSING_FINAL)
        fixed, variadic = _SIGNATURES[name]
        if variadic:
            if have < fixed:
                self.errorf(f"wrong number of args for {name}: want at least {fixed} got {len(args)}")
        elif have != fixed:
            self.errorf(f"wrong number of args for {name}: want {fixed} got {have}")
        if name in ("and", "or"):
            value = INVALID
            for arg in args:
                value = self.eval_arg(dot, arg, True)
                if _truth(value) == (name == "or"):
                    return value
            if final is not _MISSING_FINAL:
                value = final
            return value
        string_params = _STRING_PARAMS.get(name, 0)
        reflective = name in _REFLECT_VALUE_PARAMS  # no value reaches them as such, not as nil
        values = []
        for i, arg in enumerate(args):
            values.append(self.string_arg(dot, arg) if i < string_params else
                          self.eval_arg(dot, arg, reflective))
        if final is not _MISSING_FINAL:
            if len(values) < string_params:
                if not isinstance(final, str):
                    self.errorf(f"wrong type for value; expected string; got {type_name(final)}" if final
                                is not INVALID else "invalid value; expected string")
            values.append(None if final is INVALID and not reflective else final)
        try:
            return _BUILTINS[name](values)
        except _CallError as err:
            self.at(node)
            self.errorf(f"error calling {name}: {err}")


class _CallError(Exception):
    pass


# -- functions -----------------------------------------------------------------------------------------

def _basic_kind(value) -> str:
    if value is None or value is INVALID:
        return "invalid"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, _Uint8):
        return "uint"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    return "other"


def _eq(values):
    first, rest = values[0], values[1:]
    if not rest:
        raise _CallError("missing argument for comparison")
    k1 = _basic_kind(first)
    for other in rest:
        k2 = _basic_kind(other)
        if k1 != k2:
            if {k1, k2} == {"int", "uint"}:
                truth = first == other
            elif k1 != "invalid" and k2 != "invalid":
                raise _CallError("incompatible types for comparison")
            else:
                truth = False
        elif k1 in ("other", "invalid"):
            if k1 == "invalid":
                truth = True
            else:
                raise _CallError(f"non-comparable types {go_sprint(first)}: {type_name(first)}, "
                                 f"{type_name(other)}: {go_sprint(other)}")
        else:
            truth = first == other
        if truth:
            return True
    return False


def _lt(values):
    a, b = values
    k1, k2 = _basic_kind(a), _basic_kind(b)
    if k1 in ("invalid", "other") or k2 in ("invalid", "other"):
        raise _CallError("invalid type for comparison")
    if k1 != k2:
        if {k1, k2} == {"int", "uint"}:
            return a < b
        raise _CallError("incompatible types for comparison")
    if k1 == "bool":
        raise _CallError("invalid type for comparison")
    if k1 == "string":
        return a.encode("utf-8") < b.encode("utf-8")
    return a < b


def _le(values):
    return _lt(values) or _eq(values)


def _gt(values):
    return not _le(values)


def _ge(values):
    return not _lt(values)


def _ne(values):
    return not _eq(values)


def _not(values):
    return not _truth(values[0])


def _index_arg(index, length: int, for_slice: bool = False) -> int:
    if isinstance(index, bool) or not isinstance(index, int):
        if index is None:
            raise _CallError("cannot index slice/array with nil")
        raise _CallError(f"cannot index slice/array with type {type_name(index)}")
    if index < 0 or index > length or (not for_slice and index == length):
        raise _CallError(f"index out of range: {index}")
    return index


def _index(values):
    item, indexes = values[0], [None if i is INVALID else i for i in values[1:]]
    if item is None or item is INVALID:
        raise _CallError("index of untyped nil")
    for index in indexes:
        if item is None:
            raise _CallError("index of nil pointer")
        if isinstance(item, (list, str)):
            i = _index_arg(index, len(item.encode("utf-8")) if isinstance(item, str) else len(item))
            item = _Uint8(item.encode("utf-8")[i]) if isinstance(item, str) else item[i]
        elif isinstance(item, dict):
            if index is None:
                index = ""
            if not isinstance(index, str):
                raise _CallError(f"value has type {type_name(index)}; should be string")
            item = item.get(index)
        else:
            raise _CallError(f"can't index item of type {type_name(item)}")
    return item


def _slice(values):
    item, indexes = values[0], [None if i is INVALID else i for i in values[1:]]
    if item is None or item is INVALID:
        raise _CallError("slice of untyped nil")
    if len(indexes) > 3:
        raise _CallError(f"too many slice indexes: {len(indexes)}")
    if isinstance(item, str):
        if len(indexes) == 3:
            raise _CallError("cannot 3-index slice a string")
        data = item.encode("utf-8")
    elif isinstance(item, list):
        data = item
    else:
        raise _CallError(f"can't slice item of type {type_name(item)}")
    bounds = [0, len(data)]
    for i, index in enumerate(indexes):
        x = _index_arg(index, len(data), True)
        if i < 2:
            bounds[i] = x
        else:
            bounds.append(x)
    if bounds[0] > bounds[1]:
        raise _CallError(f"invalid slice index: {bounds[0]} > {bounds[1]}")
    if len(bounds) == 3 and bounds[1] > bounds[2]:
        raise _CallError(f"invalid slice index: {bounds[1]} > {bounds[2]}")
    part = data[bounds[0]:bounds[1]]
    return part.decode("utf-8", "replace") if isinstance(item, str) else part


def _len(values):
    item = values[0]
    if item is INVALID:
        raise _CallError("reflect: call of reflect.Value.Type on zero Value")
    if item is None:
        raise _CallError("len of nil pointer")
    if isinstance(item, str):
        return len(item.encode("utf-8"))
    if isinstance(item, (dict, list)):
        return len(item)
    raise _CallError(f"len of type {type_name(item)}")


def _call(values):
    fn = values[0]
    if fn is None or fn is INVALID:
        raise _CallError("call of nil")
    raise _CallError(f"non-function of type {type_name(fn)}")


def _print(values):
    return _gofmt.sprint(values)


def _println(values):
    return _gofmt.sprintln(values)


def _printf(values):
    return _gofmt.sprintf(values[0], values[1:])


def _eval_args(values) -> str:
    """fmt.Sprint after text/template's printableValue: nil prints as <no value>."""
    if len(values) == 1 and isinstance(values[0], str):
        return values[0]
    return _gofmt.sprint([INVALID if v is None else v for v in values])


def _html(values):
    text = _eval_args(values)
    for a, b in (("&", "&amp;"), ("'", "&#39;"), ('"', "&#34;"), ("<", "&lt;"), (">", "&gt;")):
        text = text.replace(a, b)
    return text.replace("\x00", "\ufffd")


def _js(values):
    out = []
    for ch in _eval_args(values):
        if ch in "\\'\"<>&=":
            out.append({"\\": "\\\\", "'": "\\'", '"': '\\"', "<": "\\u003C", ">": "\\u003E", "&": "\\u0026",
                        "=": "\\u003D"}[ch])
        elif ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04X}")
        elif ord(ch) >= 0x80 and not ch.isprintable():
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return "".join(out)


def _urlquery(values):
    return urllib.parse.quote_plus(_eval_args(values), safe="-_.~")


def _exists(values):
    item, indexes = values[0], values[1:]
    for index in indexes:
        if item is None:
            return False
        if isinstance(item, (list, str)):
            if isinstance(index, bool) or not isinstance(index, int):
                return False
            data = item.encode("utf-8") if isinstance(item, str) else item
            if index < 0 or index >= len(data):
                return False
            item = _Uint8(data[index]) if isinstance(item, str) else data[index]
        elif isinstance(item, dict):
            if index is None:
                index = ""
            if not isinstance(index, str):
                return False
            item = item.get(index)
        else:
            return False
    return item is not None


def _base64decode(values):
    text = values[0]
    try:
        return base64.b64decode(text.encode("utf-8"), validate=True).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        raise _CallError(f"base64 decode failed: illegal base64 data at input byte {_bad_base64_byte(text)}") \
            from None


def _bad_base64_byte(text: str) -> int:
    """Where Go's StdEncoding.DecodeString stops (its CorruptInputError offset)."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    data = text.encode("utf-8")
    clean = [b for b in data if b not in b"\r\n"]
    for i, b in enumerate(clean):
        if chr(b) == "=":
            rest = clean[i:]
            quantum = i % 4
            if quantum < 2 or any(c != ord("=") for c in rest) or len(clean) % 4:
                return i if quantum < 2 else min(i + len(rest), len(clean))
            return i
        if chr(b) not in alphabet:
            return i
    return len(clean) - len(clean) % 4 if len(clean) % 4 else len(clean)


_BUILTINS = {
    "and": None, "or": None, "not": _not, "eq": _eq, "ne": _ne, "lt": _lt, "le": _le, "gt": _gt, "ge": _ge,
    "index": _index, "slice": _slice, "len": _len, "call": _call, "print": _print, "printf": _printf,
    "println": _println, "html": _html, "js": _js, "urlquery": _urlquery, "exists": _exists,
    "base64decode": _base64decode,
}
# (fixed parameters, variadic?) as the Go functions are declared
_SIGNATURES = {
    "and": (1, True), "or": (1, True), "not": (1, False), "eq": (1, True), "ne": (2, False), "lt": (2, False),
    "le": (2, False), "gt": (2, False), "ge": (2, False), "index": (1, True), "slice": (1, True),
    "len": (1, False), "call": (1, True), "print": (0, True), "printf": (1, True), "println": (0, True),
    "html": (0, True), "js": (0, True), "urlquery": (0, True), "exists": (1, True), "base64decode": (1, False),
}
_STRING_PARAMS = {"printf": 1, "base64decode": 1}
_REFLECT_VALUE_PARAMS = frozenset({"and", "or", "not", "eq", "ne", "lt", "le", "gt", "ge", "index", "slice", "len",
                                   "call"})


# -- entry points --------------------------------------------------------------------------------------

def execute(template: Template, obj: Any, allow_missing_keys: bool = True) -> str:
    """Run the template on ``obj`` (already JSON-decoded as Go does; see render)."""
    state = _State(template, allow_missing_keys)
    state.vars.append(["$", obj, False])
    try:
        state.walk((obj, False), template.root)
    except _Fail as err:
        raise GoTemplateExecError(str(err), "".join(state.out)) from None
    except RecursionError:
        raise GoTemplateExecError(f"template: {NAME}: template nested too deeply", "".join(state.out)) from None
    return "".join(state.out)


def render(text: str, obj: Any, allow_missing_keys: bool = True) -> str:
    """kubectl's go-template printer for one object (or List)."""
    try:
        template = parse(text)
    except GoTemplateError as err:
        raise KubectlTemplateError(f"error parsing template {text}, {err}") from None
    data = _from_json(obj)
    try:
        return execute(template, data, allow_missing_keys)
    except GoTemplateExecError as err:
        debug = (f"Error executing template: {err}. Printing more information for debugging the template:\n"
                 f"\ttemplate was:\n\t\t{text}\n"
                 f"\traw data was:\n\t\t{go_json(obj)}\n"
                 f"\tobject given to template engine was:\n\t\t{go_sprint(data)}\n\n")
        raise KubectlTemplateError(f"error executing template {go_quote(text)}: {err}", err.output + debug) \
            from None

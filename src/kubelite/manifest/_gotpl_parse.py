"""The text/template parser over the lexer's items, with Go's error messages."""
from __future__ import annotations

from dataclasses import dataclass

from kubelite.manifest._gotpl_errors import GoTemplateError, NAME
from kubelite.manifest._gotpl_lex import (
    _Lexer, ASSIGN, BOOL, CHAR, CHARCONST, COMPLEX, DECLARE, EOF, ERROR, FIELD, IDENT, Item, KEYWORD, LDELIM,
    LPAREN, NUMBER, PIPE, RAWSTRING, RDELIM, RPAREN, SPACE, STRING, TEXT, VARIABLE,
)
from kubelite.manifest._gotpl_nodes import (
    _Else, _End, Action, Bool, Branch, Chain, Command, Dot, Field, Identifier, Invoke, Jump, ListNode, Nil,
    Number, Pipe, String, Text, Variable,
)
from kubelite.manifest._govalues import go_quote
from kubelite.manifest._jp_parse import _unquote


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

"""Label selector text as apimachinery 1.32 parses it (k8s.io/apimachinery/pkg/labels), shared
by the server (list/watch labelSelector) and the client-side commands that take --selector.

Pure: no I/O, no state. Errors are SelectorSyntaxError carrying apimachinery's wording; each
caller wraps it as its own layer reports errors.
"""
from __future__ import annotations

import re

_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_INT64 = re.compile(r"^[+-]?[0-9]+$")

_NAME_RULE = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
              "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
              "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
_SUBDOMAIN_RULE = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
                   "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
                   "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
_VALUE_RULE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
               "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
               "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")

# --- labels: the lexer -------------------------------------------------------------------
# Token kinds. The lexer is kube's: runs of special characters form the longest known operator,
# anything else up to whitespace or a special character is an identifier (or the keywords
# in/notin); an error names the token found as its literal text.
END, IDENT, OPEN, CLOSE, COMMA, NOT, EQ, EQEQ, NEQ, GT, LT, IN, NOTIN = (
    "end", "ident", "(", ")", ",", "!", "=", "==", "!=", ">", "<", "in", "notin")
_SYMBOLS = {")": CLOSE, ",": COMMA, "!": NOT, "==": EQEQ, "=": EQ, ">": GT, "<": LT, "!=": NEQ, "(": OPEN}
_KEYWORDS = {"in": IN, "notin": NOTIN}
_SPECIAL = frozenset("=!(),><")
_WHITESPACE = frozenset(" \t\r\n")


def _lex(text: str) -> list[tuple[str, str]]:
    """(kind, literal) tokens, always ending with (END, "")."""
    tokens: list[tuple[str, str]] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in _WHITESPACE:
            i += 1
        # A NUL byte reads as the end of input, as in kube's byte-wise lexer.
        if i >= n or text[i] == "\0":
            tokens.append((END, ""))
            return tokens
        if text[i] in _SPECIAL:
            j, best = i, None
            while j < n and text[j] in _SPECIAL:
                if text[i:j + 1] in _SYMBOLS:
                    best = j + 1
                elif best is not None:
                    break
                j += 1
            literal = text[i:best]
            tokens.append((_SYMBOLS[literal], literal))
            i = best
            continue
        j = i
        while j < n and text[j] not in _SPECIAL and text[j] not in _WHITESPACE and text[j] != "\0":
            j += 1
        word = text[i:j]
        tokens.append((_KEYWORDS.get(word, IDENT), word))
        i = j + 1 if j < n and text[j] == "\0" else j


# --- labels: the parser ------------------------------------------------------------------

class SelectorSyntaxError(ValueError):
    """A selector that does not parse; the message is apimachinery's."""


class _Tokens:
    """Cursor over the tokens. In value position the keywords in/notin are plain identifiers."""

    def __init__(self, tokens):
        self.items = tokens
        self.pos = 0

    def peek(self, values: bool = True) -> tuple[str, str]:
        kind, literal = self.items[min(self.pos, len(self.items) - 1)]
        return (IDENT if values and kind in (IN, NOTIN) else kind), literal

    def take(self, values: bool = True) -> tuple[str, str]:
        token = self.peek(values)
        self.pos += 1
        return token


_BINARY = {IN: "in", NOTIN: "notin", EQ: "=", EQEQ: "==", NEQ: "!=", GT: "gt", LT: "lt"}


def parse_requirements(text: str | None) -> list[tuple[str, str, tuple[str, ...]]]:
    """(key, operator, values) requirements in the order written, values sorted; operators
    =, ==, !=, in, notin, exists, !, gt, lt. Raises SelectorSyntaxError with apimachinery's
    wording."""
    return _parse_requirements(_Tokens(_lex(text or "")))


def _parse_requirements(toks: _Tokens) -> list[tuple[str, str, tuple[str, ...]]]:
    requirements = []
    while True:
        kind, literal = toks.peek()
        if kind == END:
            return requirements
        if kind not in (IDENT, NOT):
            raise SelectorSyntaxError(f"found '{literal}', expected: !, identifier, or 'end of string'")
        try:
            requirements.append(_parse_requirement(toks))
        except SelectorSyntaxError as exc:
            raise SelectorSyntaxError(f"unable to parse requirement: {exc}") from None
        kind, literal = toks.take()
        if kind == END:
            return requirements
        if kind != COMMA:
            raise SelectorSyntaxError(f"found '{literal}', expected: ',' or 'end of string'")
        kind, literal = toks.peek()
        if kind not in (IDENT, NOT):
            raise SelectorSyntaxError(f"found '{literal}', expected: identifier after ','")


def _parse_requirement(toks: _Tokens) -> tuple[str, str, tuple[str, ...]]:
    kind, key = toks.take()
    negated = kind == NOT
    if negated:
        kind, key = toks.take()
    if kind != IDENT:
        raise SelectorSyntaxError(f"found '{key}', expected: identifier")
    key_problems = _key_problems(key)
    if key_problems:
        # Checked before a requirement exists, so the field path is Go's nil path.
        raise SelectorSyntaxError(f'<nil>: Invalid value: "{_go_quote(key)}": ' + "; ".join(key_problems))
    if negated:
        return _requirement(key, "!", ())
    if toks.peek()[0] in (END, COMMA):
        return _requirement(key, "exists", ())
    kind, literal = toks.take(values=False)
    if kind not in _BINARY:
        raise SelectorSyntaxError(f"found '{literal}', expected: in, notin, =, ==, !=, gt, lt")
    values = _parse_value_set(toks) if kind in (IN, NOTIN) else _parse_exact_value(toks)
    return _requirement(key, _BINARY[kind], tuple(sorted(values, key=lambda v: v.encode())))


def _parse_value_set(toks: _Tokens) -> set[str]:
    kind, literal = toks.take()
    if kind != OPEN:
        raise SelectorSyntaxError(f"found '{literal}' expected: '('")
    kind, literal = toks.peek()
    if kind == CLOSE:  # "()" is the set holding the empty value
        toks.take()
        return {""}
    if kind not in (IDENT, COMMA):
        raise SelectorSyntaxError(f"found '{literal}', expected: ',', ')' or identifier")
    values = _parse_value_list(toks)
    if toks.take()[0] != CLOSE:
        raise SelectorSyntaxError(f"found '{literal}', expected: ')'")
    return values


def _parse_value_list(toks: _Tokens) -> set[str]:
    # Empty entries (a leading, doubled or trailing comma) stand for the empty value; kube 1.32
    # also steps over the second comma of a ",," pair, which this keeps.
    values: set[str] = set()
    while True:
        kind, literal = toks.take()
        if kind == IDENT:
            values.add(literal)
            after, after_literal = toks.peek()
            if after == COMMA:
                continue
            if after == CLOSE:
                return values
            raise SelectorSyntaxError(f"found '{after_literal}', expected: ',' or ')'")
        if kind == COMMA:
            if not values:
                values.add("")
            after = toks.peek()[0]
            if after == CLOSE:
                values.add("")
                return values
            if after == COMMA:
                toks.take()
                values.add("")
            continue
        raise SelectorSyntaxError(f"found '{literal}', expected: ',', or identifier")


def _parse_exact_value(toks: _Tokens) -> set[str]:
    if toks.peek()[0] in (END, COMMA):
        return {""}
    kind, literal = toks.take()
    if kind != IDENT:
        raise SelectorSyntaxError(f"found '{literal}', expected: identifier")
    return {literal}


def _requirement(key: str, op: str, values: tuple[str, ...]) -> tuple[str, str, tuple[str, ...]]:
    """Validate as a requirement is built; several problems are reported together, bracketed."""
    problems: list[str] = []
    if op in ("gt", "lt"):
        for i, value in enumerate(values):
            if not is_int64(value):
                problems.append(f'values[{i}]: Invalid value: "{_go_quote(value)}": '
                                "for 'Gt', 'Lt' operators, the value must be an integer")
    for i, value in enumerate(values):
        value_problems = _value_problems(value)
        if value_problems:
            problems.append(f'values[{i}][{key}]: Invalid value: "{_go_quote(value)}": '
                            + "; ".join(value_problems))
    unique = list(dict.fromkeys(problems))
    if len(unique) == 1:
        raise SelectorSyntaxError(unique[0])
    if unique:
        raise SelectorSyntaxError("[" + ", ".join(unique) + "]")
    return key, op, values


def _key_problems(key: str) -> list[str]:
    parts = key.split("/")
    if len(parts) > 2:
        return ["a qualified name " + _NAME_RULE + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    problems = []
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            problems.append("prefix part must be non-empty")
        else:
            if len(prefix) > 253:
                problems.append("prefix part must be no more than 253 characters")
            if not _SUBDOMAIN.fullmatch(prefix):
                problems.append("prefix part " + _SUBDOMAIN_RULE)
    if not name:
        problems.append("name part must be non-empty")
    elif len(name) > 63:
        problems.append("name part must be no more than 63 characters")
    if not _NAME.fullmatch(name):
        problems.append("name part " + _NAME_RULE)
    return problems


def _value_problems(value: str) -> list[str]:
    problems = []
    if len(value) > 63:
        problems.append("must be no more than 63 characters")
    if not _VALUE.fullmatch(value):
        problems.append(_VALUE_RULE)
    return problems


def is_int64(text: str) -> bool:
    return bool(_INT64.fullmatch(text)) and -(2 ** 63) <= int(text) < 2 ** 63


def _go_quote(text: str) -> str:
    """The inside of Go's %q for text: JSON escaping is close enough for selector input."""
    import json

    return json.dumps(text, ensure_ascii=False)[1:-1]

"""kubectl's JSONPath dialect (the template language of ``-o jsonpath=...``).

Objects are plain JSON values: dict, list, str, int, float, bool, None.  The
parser and evaluator follow the behaviour of kubectl 1.32 closely, including
its quirks (``{range}`` bookkeeping, how filters compare values, which errors
are raised), because users script against kubectl's exact output.

Public API::

    render(template, obj, allow_missing_keys=True) -> str
    find_results(template, obj, allow_missing_keys=True) -> list[list[value]]
    parse(template) -> Template

Errors raise :class:`JSONPathError`; ``str(err)`` is kubectl's message and
``err.stderr()`` is what kubectl writes to stderr for it.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = [
    "JSONPathError",
    "Template",
    "parse",
    "render",
    "find_results",
    "format_results",
    "go_sprint",
    "go_sharp_v",
    "go_quote",
    "go_json",
]


class JSONPathError(Exception):
    """A template that cannot be parsed or executed; the message is kubectl's."""

    def __init__(self, message: str, reason: str | None = None):
        super().__init__(message)
        self.message = message
        # The bare cause (e.g. "unclosed action"), as other printers report it.
        self.reason = reason if reason is not None else message

    def stderr(self) -> str:
        """The text kubectl prints on stderr for this error."""
        text = "error: " + self.message
        return text if text.endswith("\n") else text + "\n"


class _ExecError(Exception):
    """An evaluation failure before kubectl wraps it with debugging context.

    ``keeps_input`` records whether kubectl's evaluator hands its (non-empty)
    input back alongside the error, which an existence filter counts as a match.
    """

    def __init__(self, message: str, keeps_input: bool = True):
        super().__init__(message)
        self.keeps_input = keeps_input


# --------------------------------------------------------------------------
# Nodes
# --------------------------------------------------------------------------


@dataclass
class _List:
    nodes: list = field(default_factory=list)


@dataclass
class _Text:
    text: str


@dataclass
class _Field:
    name: str


@dataclass
class _Identifier:
    name: str


@dataclass
class _Param:
    value: int = 0
    known: bool = False
    derived: bool = False


@dataclass
class _Array:
    params: tuple


@dataclass
class _Filter:
    left: _List
    right: _List
    operator: str


@dataclass
class _Int:
    value: int


@dataclass
class _Float:
    value: float


@dataclass
class _Bool:
    value: bool


class _Wildcard:
    pass


class _Recursive:
    pass


@dataclass
class _Union:
    branches: list


# --------------------------------------------------------------------------
# Parser
# --------------------------------------------------------------------------

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


# --------------------------------------------------------------------------
# Evaluation
# --------------------------------------------------------------------------

# Go's "no value at all" (the zero reflect.Value), distinct from JSON null.
_INVALID = object()


class _Byte(int):
    """One byte of a string, produced when a wildcard walks into a string."""


def _go_type(value: Any) -> str:
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, list):
        return "[]interface {}"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, _Byte):
        return "uint8"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    return "interface {}"


def _children(value: Any) -> list:
    if isinstance(value, dict):
        return [value[key] for key in sorted(value)]
    if isinstance(value, list):
        return list(value)
    if isinstance(value, str):
        return [_Byte(b) for b in value.encode("utf-8")]
    return []


class _Evaluator:
    """Holds kubectl's range bookkeeping for one execution of a template."""

    def __init__(self, root: _List, allow_missing_keys: bool):
        self.nodes = root.nodes
        self.allow_missing_keys = allow_missing_keys
        self.begin_range = 0
        self.in_range = 0
        self.end_range = 0
        self.last_end = -1

    def find_results(self, data: Any, start: int = 0) -> list[list]:
        current = [data]
        full: list[list] = []
        i = start
        while i < len(self.nodes):
            results = self.walk(current, self.nodes[i])
            if self.end_range > 0 and self.end_range <= self.in_range:
                self.end_range -= 1
                self.last_end = i
                break
            if self.begin_range > 0:
                self.begin_range -= 1
                self.in_range += 1
                if results:
                    for value in results:
                        full.extend(self.find_results(value, i + 1))
                else:
                    self.find_results(_INVALID, i + 1)
                self.in_range -= 1
                for k in range(i + 1, len(self.nodes)):
                    if k == self.last_end:
                        i = k
                        break
                i += 1
                continue
            full.append(results)
            i += 1
        return full

    def walk(self, values: list, node: Any) -> list:
        handler: Callable = getattr(self, "_eval_" + type(node).__name__.lstrip("_").lower())
        return handler(values, node)

    def _eval_list(self, values: list, node: _List) -> list:
        for child in node.nodes:
            values = self.walk(values, child)
        return values

    def _eval_text(self, values: list, node: _Text) -> list:
        return [node.text]

    def _eval_int(self, values: list, node: _Int) -> list:
        return [node.value for _ in values]

    def _eval_float(self, values: list, node: _Float) -> list:
        return [node.value for _ in values]

    def _eval_bool(self, values: list, node: _Bool) -> list:
        return [node.value for _ in values]

    def _eval_identifier(self, values: list, node: _Identifier) -> list:
        if node.name == "range":
            self.begin_range += 1
            return values
        if node.name == "end":
            if self.in_range > 0:
                self.end_range += 1
                return []
            raise _ExecError("not in range, nothing to end", keeps_input=False)
        raise _ExecError(f"unrecognized identifier {node.name}")

    def _eval_field(self, values: list, node: _Field) -> list:
        if not values:
            return []
        results = []
        for value in values:
            if isinstance(value, dict) and node.name in value:
                results.append(value[node.name])
        if not results and not self.allow_missing_keys:
            raise _ExecError(f"{node.name} is not found", keeps_input=False)
        return results

    def _eval_array(self, values: list, node: _Array) -> list:
        results: list = []
        for value in values:
            if value is None:
                continue
            if value is _INVALID:
                raise _ExecError("<invalid reflect.Value> is not array or slice")
            if not isinstance(value, list):
                raise _ExecError(f"{_go_type(value)} is not array or slice")
            selected = _select(value, node.params)
            if selected is None:
                return results
            results.extend(selected)
        return results

    def _eval_union(self, values: list, node: _Union) -> list:
        results = []
        for branch in node.branches:
            results.extend(self._eval_list(values, branch))
        return results

    def _eval_wildcard(self, values: list, node: _Wildcard) -> list:
        results = []
        for value in values:
            if value is not None and value is not _INVALID:
                results.extend(_children(value))
        return results

    def _eval_recursive(self, values: list, node: _Recursive) -> list:
        results = []
        for value in values:
            if value is None or value is _INVALID:
                continue
            children = _children(value)
            if children:
                results.append(value)
                results.extend(self._eval_recursive(children, node))
        return results

    def _eval_filter(self, values: list, node: _Filter) -> list:
        results = []
        for value in values:
            if not isinstance(value, list):
                shown = "<invalid reflect.Value>" if value is _INVALID else go_sprint(value)
                raise _ExecError(f"{shown} is not array or slice and cannot be filtered")
            for item in value:
                if self._filter_passes(item, node):
                    results.append(item)
        return results

    def _filter_passes(self, item: Any, node: _Filter) -> bool:
        if node.operator == "exists":
            try:
                return bool(self._eval_list([item], node.left))
            except _ExecError as err:
                return err.keeps_input
        lefts = self._eval_list([item], node.left)
        if not lefts:
            return False
        if len(lefts) > 1:
            raise _ExecError("can only compare one element at a time")
        rights = self._eval_list([item], node.right)
        if not rights:
            return False
        if len(rights) > 1:
            raise _ExecError("can only compare one element at a time")
        return _compare(node.operator, lefts[0], rights[0])


def _select(value: list, params: tuple) -> list | None:
    """Apply an index/slice to ``value``; None means "zero elements requested"."""
    length = len(value)
    start = params[0].value if params[0].known else 0
    if start < 0:
        start += length
    stop = params[1].value if params[1].known else length
    if stop < 0 or (stop == 0 and params[1].derived):
        stop += length
    if stop == start:
        return None
    if start >= length or start < 0:
        raise _ExecError(f"array index out of bounds: index {start}, length {length}")
    if stop > length or stop < 0:
        raise _ExecError(f"array index out of bounds: index {stop - 1}, length {length}")
    if start > stop:
        raise _ExecError(f"starting index {start} is greater than ending index {stop}")
    step = 1
    if params[2].known:
        if params[2].value <= 0:
            raise _ExecError("step must be > 0")
        step = params[2].value
    return value[start:stop:step]


def _basic_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, _Byte):
        return "uint"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    raise _ExecError("invalid type for comparison", keeps_input=False)


def _less(left: Any, right: Any) -> bool:
    k1, k2 = _basic_kind(left), _basic_kind(right)
    if k1 != k2:
        if {k1, k2} == {"int", "uint"}:
            return left < right
        raise _ExecError("incompatible types for comparison", keeps_input=False)
    if k1 == "bool":
        raise _ExecError("invalid type for comparison", keeps_input=False)
    if k1 == "string":
        return left.encode("utf-8") < right.encode("utf-8")
    return left < right


def _equal(left: Any, right: Any) -> bool:
    k1, k2 = _basic_kind(left), _basic_kind(right)
    if k1 != k2 and {k1, k2} != {"int", "uint"}:
        raise _ExecError("incompatible types for comparison", keeps_input=False)
    return left == right


def _compare(operator: str, left: Any, right: Any) -> bool:
    if operator == "<":
        return _less(left, right)
    if operator == ">":
        return not (_less(left, right) or _equal(left, right))
    if operator == "==":
        return _equal(left, right)
    if operator == "!=":
        return not _equal(left, right)
    if operator == "<=":
        return _less(left, right) or _equal(left, right)
    if operator == ">=":
        return not _less(left, right)
    raise _ExecError(f"unrecognized filter operator {operator}", keeps_input=False)


# --------------------------------------------------------------------------
# Go value formatting (how kubectl prints what a template selected)
# --------------------------------------------------------------------------


def _decimal_digits(value: float) -> tuple[str, int]:
    """Shortest round-trip digits of |value| and the decimal point position.

    ``value == 0.DIGITS * 10**point`` (Go's decimalSlice ``d`` and ``dp``).
    """
    mantissa, _, exp = repr(abs(value)).partition("e")
    whole, _, frac = mantissa.partition(".")
    all_digits = whole + frac
    stripped = all_digits.lstrip("0")
    point = len(whole) - (len(all_digits) - len(stripped)) + (int(exp) if exp else 0)
    return stripped.rstrip("0") or "0", point


def _fmt_e(sign: str, digits: str, point: int) -> str:
    exponent = point - 1
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"


def _fmt_f(sign: str, digits: str, point: int) -> str:
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


def _special_float(value: float) -> str | None:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1, value) < 0 else "0"
    return None


def _go_float(value: float) -> str:
    """Go's %v / %#v of a float64 (%g with the shortest digits)."""
    special = _special_float(value)
    if special is not None:
        return special
    sign = "-" if value < 0 else ""
    digits, point = _decimal_digits(value)
    exponent = point - 1
    if exponent < -4 or exponent >= 6:
        return _fmt_e(sign, digits, point)
    return _fmt_f(sign, digits, point)


def _go_json_float(value: float) -> str:
    """encoding/json's rendering of a float64."""
    special = _special_float(value)
    if special is not None:
        return special
    sign = "-" if value < 0 else ""
    digits, point = _decimal_digits(value)
    if abs(value) < 1e-6 or abs(value) >= 1e21:
        text = _fmt_e(sign, digits, point)
        return re.sub(r"e-0(\d)$", r"e-\1", text)
    return _fmt_f(sign, digits, point)


def _as_go_number(value: int) -> int | float:
    """Integers beyond int64 decode as float64 in Go's unstructured values."""
    return int(value) if -(2**63) <= value < 2**63 else float(value)


def _go_int(value: int) -> str:
    number = _as_go_number(value)
    return str(number) if isinstance(number, int) else _go_float(number)


_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _json_string(text: str) -> str:
    encoded = json.dumps(text, ensure_ascii=False)
    return re.sub("[<>&\u2028\u2029]", lambda m: _JSON_ESCAPES[m.group(0)], encoded)


def go_json(value: Any) -> str:
    """Compact JSON exactly as Go's json.Marshal writes an unstructured value."""
    if value is None or value is _INVALID:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        number = _as_go_number(value)
        return str(number) if isinstance(number, int) else _go_json_float(number)
    if isinstance(value, float):
        return _go_json_float(value)
    if isinstance(value, str):
        return _json_string(value)
    if isinstance(value, dict):
        items = (f"{_json_string(str(key))}:{go_json(value[key])}" for key in sorted(value, key=_utf8_key))
        return "{" + ",".join(items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(go_json(item) for item in value) + "]"
    raise TypeError(f"cannot encode {type(value).__name__} as JSON")


def _utf8_key(key: Any) -> bytes:
    return str(key).encode("utf-8")


def go_sprint(value: Any) -> str:
    """Go's fmt.Sprint of an unstructured value (%v)."""
    if value is None or value is _INVALID:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return _go_int(value)
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        items = (f"{key}:{go_sprint(value[key])}" for key in sorted(value, key=_utf8_key))
        return "map[" + " ".join(items) + "]"
    if isinstance(value, (list, tuple)):
        return "[" + " ".join(go_sprint(item) for item in value) + "]"
    return str(value)


def go_quote(text: str) -> str:
    """Go's strconv.Quote."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif ch in "\a\b\f\n\r\t\v":
            out.append({"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}[ch])
        elif ch.isprintable() or ch == " ":
            out.append(ch)
        elif code < 0x80:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def go_sharp_v(value: Any, nested: bool = False) -> str:
    """Go's %#v of an unstructured value, as kubectl's debugging output shows it."""
    if value is None or value is _INVALID:
        return "interface {}(nil)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, _Byte):
        return f"0x{int(value):x}"
    if isinstance(value, int):
        return _go_int(value)
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, dict):
        items = (f"{go_quote(str(key))}:{go_sharp_v(value[key], True)}" for key in sorted(value, key=_utf8_key))
        return "map[string]interface {}{" + ", ".join(items) + "}"
    if isinstance(value, (list, tuple)):
        return "[]interface {}{" + ", ".join(go_sharp_v(item, True) for item in value) + "}"
    return repr(value)


def _text_of(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return go_json(value)
    if value is None:
        return "null"
    if value is _INVALID:
        return "<no value>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return _go_int(value)
    if isinstance(value, float):
        return _go_float(value)
    return str(value)


def format_results(results: list[list]) -> str:
    """Join evaluation results the way kubectl prints them."""
    return "".join(" ".join(_text_of(value) for value in group) for group in results)


def _execute(template: Template, obj: Any, allow_missing_keys: bool) -> list[list]:
    evaluator = _Evaluator(template.root, allow_missing_keys)
    try:
        return evaluator.find_results(obj)
    except RecursionError:
        raise _ExecError("template nested too deeply") from None


def find_results(template: str | Template, obj: Any, allow_missing_keys: bool = True) -> list[list]:
    """Evaluate ``template`` against ``obj``; each action yields one result list."""
    parsed = template if isinstance(template, Template) else parse(template)
    try:
        return _execute(parsed, obj, allow_missing_keys)
    except _ExecError as err:
        raise JSONPathError(str(err)) from None


def render(template: str | Template, obj: Any, allow_missing_keys: bool = True) -> str:
    """Print ``obj`` through ``template`` exactly as ``kubectl -o jsonpath=`` does."""
    if template == "":
        raise JSONPathError("template format specified but no template given")
    parsed = template if isinstance(template, Template) else parse(template)
    try:
        return format_results(_execute(parsed, obj, allow_missing_keys))
    except _ExecError as err:
        raise JSONPathError(_execution_message(parsed.source, obj, str(err))) from None


def _execution_message(source: str, obj: Any, reason: str) -> str:
    detail = (
        f"Error executing template: {reason}. Printing more information for debugging the template:\n"
        f"\ttemplate was:\n\t\t{source}\n"
        f"\tobject given to jsonpath engine was:\n\t\t{go_sharp_v(obj)}\n\n"
    )
    return f"error executing jsonpath {go_quote(source)}: {detail}\n"


def read_template_file(path: str) -> str:
    """The template of ``-o jsonpath-file=PATH`` (used verbatim, as kubectl does)."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError as err:
        reason = (err.strerror or str(err)).lower()
        raise JSONPathError(f"error reading --template {path}, open {path}: {reason}") from None
    except UnicodeDecodeError as err:
        raise JSONPathError(f"error reading --template {path}, {err}") from None
